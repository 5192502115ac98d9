"""``RouteTool``: the Tool a FastAPI route becomes, and the class factory behind it.

Each selected operation becomes an ordinary ``Tool`` subclass (:func:`tool_class`) whose
class options (name, title, description, annotations, input and output schema) come from
the route, and whose ``call`` runs the route in-process (``routes.exchange``). Subclass a
generated class to change one hook: ``headers`` (what is forwarded), ``to_result`` (the
response -> result mapping), or ``call`` itself.

Imports genmcp's tool layer and this package's pure modules; never FastAPI.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final

from genmcp.outcomes import Result
from genmcp.routes_as_tools.arguments import Arguments
from genmcp.routes_as_tools.credentials import FORWARDED, SCOPE_KEY, Forwarded
from genmcp.routes_as_tools.exchange import MAX_RESPONSE_BYTES, ASGIApp, Origin, Reply, exchange
from genmcp.routes_as_tools.replies import error_result, report_result, success_result
from genmcp.tool import Tool, ToolRequest

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = ["Credentials", "RouteSpec", "RouteTool", "annotations_for", "tool_class"]

Credentials = Callable[[Mapping[str, Any]], Mapping[str, str]]
"""``assigns -> headers``: the credentials to send when no MCP HTTP request forwarded any."""

_PARAM: Final = re.compile(r"\{(\w+)(?::(\w+))?\}")


@dataclass(frozen=True, slots=True)
class RouteSpec:
    """Everything a generated tool needs to run its route."""

    app: ASGIApp
    method: str
    path: str
    """The route path with Starlette convertors, ``/files/{name:path}``."""
    arguments: Arguments
    structured: bool = False
    wrapped: bool = False
    credentials: Credentials | None = None
    max_response_bytes: int = MAX_RESPONSE_BYTES

    def url_path(self, values: Mapping[str, str]) -> str:
        """The request path with the path arguments quoted in."""

        def one(match: re.Match[str]) -> str:
            safe = "/" if match.group(2) == "path" else ""
            return urllib.parse.quote(values.get(match.group(1), ""), safe=safe)

        return _PARAM.sub(one, self.path)


def annotations_for(method: str) -> dict[str, bool]:
    """Tool annotations implied by an HTTP method (RFC 9110 safe and idempotent methods)."""
    if method in ("GET", "HEAD", "OPTIONS"):
        return {"readOnlyHint": True, "idempotentHint": True}
    if method == "DELETE":
        return {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True}
    if method == "PUT":
        return {"readOnlyHint": False, "idempotentHint": True}
    return {"readOnlyHint": False, "idempotentHint": False}


class RouteTool(Tool):
    """A tool that calls one FastAPI route in-process; made by ``genmcp.route_tools``.

    ``route`` (a :class:`RouteSpec`) says which. Override :meth:`headers` or
    :meth:`to_result` in a subclass to change what is sent or how the answer reads.
    """

    route: ClassVar[RouteSpec]

    def headers(self, channel: Channel, arg: Any) -> list[tuple[str, str]]:
        """The credential headers of the route call: those the MCP request forwarded, else
        what the ``credentials=`` callable derives from ``channel.assigns``."""
        forwarded = channel.assigns.get(FORWARDED)
        if isinstance(forwarded, Forwarded):
            return list(forwarded.headers)
        if self.route.credentials is not None:
            return list(self.route.credentials(_public(channel.assigns)).items())
        return []

    def to_result(self, reply: Reply, arg: Any) -> dict[str, Any]:
        """The ``CallToolResult`` of the route's response."""
        if reply.too_large:
            limit = self.route.max_response_bytes
            return report_result(502, f"the route's response exceeds {limit} bytes")
        if reply.status >= 400:
            return error_result(
                reply.status,
                reply.media_type,
                reply.body,
                self.route.arguments.name_of,
                crashed=reply.crashed,
            )
        return success_result(
            reply.status,
            reply.media_type,
            reply.body,
            structured=self.route.structured,
            wrapped=self.route.wrapped,
            uri=f"{self.route.method.lower()}:{self.route.path}",
        )

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        """Run the route with the call's arguments and answer with its response."""
        route = self.route
        placed = route.arguments.place(request.arguments)
        forwarded = channel.assigns.get(FORWARDED)
        origin = forwarded.origin if isinstance(forwarded, Forwarded) else Origin()
        reply = await exchange(
            route.app,
            method=route.method,
            path=origin.root_path + route.url_path(placed.path_values),
            query_string=placed.query_string,
            headers=[*placed.headers, *self.headers(channel, arg)],
            body=placed.body,
            has_body=placed.has_body,
            origin=origin,
            extensions={SCOPE_KEY: {"assigns": _public(channel.assigns)}},
            max_response_bytes=route.max_response_bytes,
        )
        return Result(self.to_result(reply, arg))


def _public(assigns: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in assigns.items() if key != FORWARDED}


def tool_class(spec: RouteSpec, options: Mapping[str, Any], qualname: str) -> type[RouteTool]:
    """A new ``RouteTool`` subclass for ``spec`` with the given class options."""
    namespace: dict[str, Any] = {"route": spec, "__module__": __name__, "__qualname__": qualname}
    made: type[RouteTool] = type(qualname, (RouteTool,), namespace, **options)
    return made

"""``RouteTool``: the Tool a FastAPI route becomes, and the class factory behind it.

Each selected operation becomes an ordinary ``Tool`` subclass (:func:`tool_class`) whose
class options (name, title, description, annotations, input and output schema) come from
the route, and whose ``call`` runs the route in-process (``routes.exchange``). Subclass a
generated class to change one hook: ``headers`` (what is forwarded), ``to_result`` (the
response -> result mapping), or ``call`` itself.

The caller travels wherever the tool is served: the MCP HTTP request the call answers
(``channel.http_request``, any router, both eras) gives the forwarded headers and the
app's lifespan state. Path arguments reach the route as an HTTP client's would
(``scope["path"]`` decoded, ``raw_path`` percent-encoded, ASGI spec); a header argument
holding CR, LF or NUL (or text that is not Latin-1) is refused before the route runs,
with an ``isError`` result naming the argument.

Imports genmcp's tool layer and this package's modules; never FastAPI directly.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final

from genmcp.outcomes import Result
from genmcp.routes_as_tools.arguments import Arguments
from genmcp.routes_as_tools.credentials import FORWARDED, SCOPE_KEY, Forwarded, caller_of
from genmcp.routes_as_tools.exchange import MAX_RESPONSE_BYTES, ASGIApp, Origin, Reply, exchange
from genmcp.routes_as_tools.replies import error_result, report_result, success_result
from genmcp.tools import Tool, ToolRequest

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = ["Credentials", "RouteSpec", "RouteTool", "annotations_for", "tool_class"]

Credentials = Callable[[Mapping[str, Any]], Mapping[str, str]]
"""``assigns -> headers``: the credentials to send when no MCP HTTP request forwarded any."""

_PARAM: Final = re.compile(r"\{(\w+)(?::(\w+))?\}")
_UNSAFE_HEADER: Final = re.compile(r"[\r\n\x00]")


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
    forward_headers: tuple[str, ...] = ("authorization",)
    """The MCP request's headers (lower case) each route call carries."""

    def url_path(self, values: Mapping[str, str]) -> str:
        """The request path with the path arguments percent-encoded in (the ``raw_path``)."""

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

    def caller(self, channel: Channel) -> Forwarded | None:
        """What the MCP request hands the route call: what ``forward_credentials`` recorded,
        else read from the HTTP request being answered; None without one (a bare Suite)."""
        forwarded = channel.assigns.get(FORWARDED)
        if isinstance(forwarded, Forwarded):
            return forwarded
        request = channel.http_request
        return None if request is None else caller_of(request, self.route.forward_headers)

    def headers(self, channel: Channel, arg: Any) -> list[tuple[str, str]]:
        """The credential headers of the route call: those the MCP request carries (the
        ``forward_headers``), else what ``credentials=`` derives from ``channel.assigns``."""
        forwarded = self.caller(channel)
        if forwarded is not None and forwarded.headers:
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
        refused = _refused(placed.headers, placed.path_values, route.path)
        if refused is not None:
            return Result(refused)
        forwarded = self.caller(channel)
        origin = Origin() if forwarded is None else forwarded.origin
        raw_path = route.url_path(placed.path_values)
        reply = await exchange(
            route.app,
            method=route.method,
            path=origin.root_path + urllib.parse.unquote(raw_path),
            raw_path=(urllib.parse.quote(origin.root_path) + raw_path).encode("ascii"),
            query_string=placed.query_string,
            headers=[*placed.headers, *self.headers(channel, arg)],
            body=placed.body,
            has_body=placed.has_body,
            origin=origin,
            extensions={SCOPE_KEY: {"assigns": _public(channel.assigns)}},
            max_response_bytes=route.max_response_bytes,
        )
        return Result(self.to_result(reply, arg))


def _refused(
    headers: list[tuple[str, str]], path_values: Mapping[str, str], template: str
) -> dict[str, Any] | None:
    """The ``isError`` result for an argument no HTTP client could send, or None."""
    for name, value in headers:
        if _UNSAFE_HEADER.search(value):
            return _argument_error(name, "a header value may not contain CR, LF or NUL")
        try:
            value.encode("latin-1")
        except UnicodeEncodeError:
            return _argument_error(name, "a header value must be Latin-1 text")
    for match in _PARAM.finditer(template):
        name, convertor = match.group(1), match.group(2)
        if convertor != "path" and "/" in path_values.get(name, ""):
            return _argument_error(name, "a path segment may not contain '/'")
    return None


def _argument_error(name: str, why: str) -> dict[str, Any]:
    return report_result(422, f"argument {name!r}: {why}", errors={name: [why]})


def _public(assigns: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in assigns.items() if key != FORWARDED}


def tool_class(spec: RouteSpec, options: Mapping[str, Any], qualname: str) -> type[RouteTool]:
    """A new ``RouteTool`` subclass for ``spec`` with the given class options."""
    namespace: dict[str, Any] = {"route": spec, "__module__": __name__, "__qualname__": qualname}
    made: type[RouteTool] = type(qualname, (RouteTool,), namespace, **options)
    return made

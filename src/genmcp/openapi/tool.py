"""``OpenAPITool``: the Tool one operation of an external API becomes, and its factory.

The twin of ``routes_as_tools.tool.RouteTool``: the class options (name, title,
description, annotations, input and output schema) come from the operation, and ``call``
places the arguments (path, query, opted-in headers, the JSON body: the same
``routes_as_tools.arguments``) into one HTTP request sent through the upstream's pool.

The answer: a 2xx as ``RouteTool`` reads it (``structuredContent`` when the operation
documents a JSON response, text, image, audio or a blob otherwise); a 4xx as an
``isError`` result whose text is JSON ``{"status", "detail"}``, ``detail`` the API's own
body (its JSON, else its text); a 5xx, a timeout or a refused connection as the upstream
being down: the -32603 error the remote mounts answer, naming the upstream.

Imports genmcp's tool layer and this package's upstream.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final

from genmcp.errors import INTERNAL_ERROR
from genmcp.openapi.upstream import APIUnavailable, HTTPUpstream, Reply
from genmcp.outcomes import Error, Result
from genmcp.routes_as_tools.arguments import Arguments
from genmcp.routes_as_tools.replies import report_result, success_result
from genmcp.tools import Tool, ToolRequest
from genmcp.visibility import caller_of

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = ["OpenAPITool", "OperationSpec", "tool_class"]

_PARAM: Final = re.compile(r"\{([^}/]+)\}")
_UNSAFE_HEADER: Final = re.compile(r"[\r\n\x00]")
_DETAIL_CHARS: Final = 4000
"""How much of a 4xx text body the result carries."""


@dataclass(frozen=True, slots=True)
class OperationSpec:
    """Everything a generated tool needs to call its operation."""

    upstream: HTTPUpstream
    method: str
    path: str
    """The path template of the document, ``/pets/{petId}``."""
    operation_id: str
    arguments: Arguments
    structured: bool = False
    wrapped: bool = False

    def url_path(self, values: Mapping[str, str]) -> str:
        """The request path, each path argument percent-encoded as one segment."""
        return _PARAM.sub(
            lambda m: urllib.parse.quote(values.get(m.group(1), ""), safe=""), self.path
        )


class OpenAPITool(Tool):
    """A tool that calls one operation of an external API; made by ``openapi_tools``.

    ``operation`` (an :class:`OperationSpec`) says which. Override :meth:`headers` or
    :meth:`to_result` in a subclass to change what is sent or how the answer reads.
    """

    operation: ClassVar[OperationSpec]

    def headers(self, request: ToolRequest, channel: Channel, arg: Any) -> list[tuple[str, str]]:
        """The credential headers of the call (``HTTPUpstream.auth_headers``)."""
        http = channel.http_request
        authorization = None if http is None else http.headers.get("authorization")
        caller = caller_of(channel.assigns, request.meta)
        return self.operation.upstream.auth_headers(caller, authorization)

    def to_result(self, reply: Reply, arg: Any) -> dict[str, Any]:
        """The ``CallToolResult`` of the API's 2xx-4xx answer."""
        spec = self.operation
        if reply.too_large:
            limit = spec.upstream.max_response_bytes
            return report_result(502, f"the API's response exceeds {limit} bytes")
        if reply.status >= 400:
            return report_result(reply.status, _detail(reply))
        return success_result(
            reply.status,
            reply.media_type,
            reply.body,
            structured=spec.structured,
            wrapped=spec.wrapped,
            uri=f"{spec.upstream.base_url}{spec.path}",
        )

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result | Error:
        """Send the operation with the call's arguments; answer with the API's response."""
        spec = self.operation
        placed = spec.arguments.place(request.arguments)
        for name, value in [*placed.headers, *placed.path_values.items()]:
            why = _unsafe(name, value, name in placed.path_values)
            if why is not None:
                return Result(report_result(422, f"argument {name!r}: {why}", errors={name: [why]}))
        try:
            reply = await spec.upstream.send(
                spec.method,
                spec.url_path(placed.path_values),
                query=placed.query,
                headers=[*placed.headers, *self.headers(request, channel, arg)],
                body=placed.body,
                has_body=placed.has_body,
            )
        except APIUnavailable as exc:
            data: dict[str, Any] = {"upstream": spec.upstream.base_url}
            if exc.status is not None:
                data["status"] = exc.status
            return Error(spec.upstream.down_message(str(exc)), INTERNAL_ERROR, data)
        return Result(self.to_result(reply, arg))


def _unsafe(name: str, value: str, in_path: bool) -> str | None:
    if in_path:
        return "a path segment may not be empty" if value == "" else None
    if _UNSAFE_HEADER.search(value):
        return "a header value may not contain CR, LF or NUL"
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        return "a header value must be Latin-1 text"
    return None


def _detail(reply: Reply) -> Any:
    """The API's 4xx body as the result's ``detail``: its JSON, else its text."""
    if not reply.body:
        return None
    if reply.media_type == "application/json" or reply.media_type.endswith("+json"):
        try:
            return json.loads(reply.body)
        except ValueError:
            pass
    return reply.body.decode("utf-8", "replace")[:_DETAIL_CHARS]


def tool_class(spec: OperationSpec, options: Mapping[str, Any], qualname: str) -> type[OpenAPITool]:
    """A new ``OpenAPITool`` subclass for ``spec`` with the given class options."""
    namespace: dict[str, Any] = {
        "operation": spec,
        "__module__": __name__,
        "__qualname__": qualname,
    }
    made: type[OpenAPITool] = type(qualname, (OpenAPITool,), namespace, **options)
    return made

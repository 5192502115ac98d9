"""The wrong-path help: a JSON 404 naming the endpoint at the paths other clients try.

Clients of other frameworks look for MCP under the mount (FastMCP's ``/mcp/mcp``, the 2024
SSE transport's ``/sse`` and ``/messages``); there a 404 that names the endpoint says how to
fix the client. ``mcp_router``'s lifespan adds one such route per MCP path to the app.
"""

from __future__ import annotations

import re
from typing import Any, Final

from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request as HTTPRequest
from starlette.responses import JSONResponse
from starlette.responses import Response as HTTPResponse
from starlette.routing import Route

from genmcp.fastapi.endpoint import MCPEndpoint
from genmcp.fastapi.startup import mcp_paths

__all__ = ["WRONG_PATHS", "WRONG_PATH_NAME", "help_wrong_paths", "wrong_path"]

WRONG_PATHS: Final = ("mcp", "mcp/", "sse", "sse/", "messages", "messages/")
"""Paths under the MCP mount that other frameworks' clients try (FastMCP's ``/mcp/mcp``
trap, the 2024 SSE transport's ``/sse`` and ``/messages``): a 404 there says where the
endpoint is (one route per MCP path, added to the app at start-up, matched last)."""
WRONG_PATH_NAME: Final = "mcp: a wrong path (a JSON 404 naming the endpoint)"
"""The name of those routes."""
_ANY_METHOD: Final = ["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"]


class _WrongPath(Convertor[str]):
    """The path convertor matching one of :data:`WRONG_PATHS` (and nothing else)."""

    regex = "|".join(re.escape(wrong) for wrong in sorted(WRONG_PATHS, key=len, reverse=True))

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("genmcp_wrong_path", _WrongPath())


def help_wrong_paths(app: Any, endpoint: MCPEndpoint) -> None:
    """Append to ``app``'s own routes, last, one route per path ``endpoint`` is served at:
    the known wrong paths under it (:data:`WRONG_PATHS`) answer a JSON 404 naming it.

    Done at start-up, on the app, not in the router: FastAPI walks an included router's
    routes on every request (each route more costs every call), and a route the app
    matches last costs a request nothing unless nothing else matched."""
    routes = getattr(getattr(app, "router", None), "routes", None)
    if not isinstance(routes, list):
        return
    known = {getattr(r, "path", None) for r in routes if getattr(r, "name", "") == WRONG_PATH_NAME}
    for at, served in mcp_paths(routes):
        wrong = at.rstrip("/") + "/{wrong:genmcp_wrong_path}"
        if served is endpoint and not at.endswith("/") and wrong not in known:
            known.add(wrong)
            route = Route(wrong, wrong_path, name=WRONG_PATH_NAME, include_in_schema=False,
                          methods=_ANY_METHOD)  # fmt: skip
            routes.append(route)


async def wrong_path(request: HTTPRequest) -> HTTPResponse:
    """A JSON 404 for a known wrong path under the mount, naming the endpoint's path."""
    at = request.url.path
    endpoint = at.removesuffix("/" + str(request.path_params.get("wrong", ""))) or "/"
    message = (
        f"Not found: no MCP endpoint at {at}; this server's MCP endpoint is {endpoint} "
        "(Streamable HTTP: POST there; 2025 session clients also GET and DELETE it). "
        "Point the client at that URL."
    )
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    return JSONResponse(body, status_code=404)

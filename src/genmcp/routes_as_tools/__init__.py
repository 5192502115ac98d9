"""Existing FastAPI routes as MCP tools, called in-process with their own dependencies.

::

    from genmcp.routes_as_tools import routes_router

    app.include_router(
        routes_router(app, server_name="shop", server_version="1.0",
                      operations=["get_item", "create_item"]),
        prefix="/mcp",
    )

Each selected route becomes an ordinary ``Tool`` subclass (:class:`RouteTool`). A call
runs the route through the app's own ASGI stack (no socket): middleware, exception
handlers and the route's dependencies (auth, DB sessions, rate limits) run as for an HTTP
client, with the MCP request's ``Authorization`` header. See docs/guides/routes-as-tools.md.

Modules: ``build`` (selection and tool classes), ``table`` (the operations the app serves,
through included routers; its mounts), ``arguments`` (schemas and placement),
``exchange`` (the in-process ASGI call), ``replies`` (response -> result), ``credentials``
(what the MCP request forwards), ``tool`` (``RouteTool``). The package is not named
``route_tools``: importing it would then replace the lazy ``genmcp.route_tools`` function
with the package. Its logger stays ``genmcp.routes``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fastapi import FastAPI

from genmcp.catalogs.tools import ToolProvider
from genmcp.fastapi.router import MCPRouter, mcp_router
from genmcp.routes_as_tools.arguments import BuildError
from genmcp.routes_as_tools.build import SELECTION, SelectionKeywords, route_tools
from genmcp.routes_as_tools.credentials import Forwarded, forward_credentials, mcp_caller
from genmcp.routes_as_tools.exchange import Reply
from genmcp.routes_as_tools.tool import RouteSpec, RouteTool
from genmcp.suite import Suite
from genmcp.transports.http.auth import Auth

__all__ = [
    "BuildError",
    "Forwarded",
    "Reply",
    "RouteSpec",
    "RouteTool",
    "SelectionKeywords",
    "forward_credentials",
    "mcp_caller",
    "route_tools",
    "routes_router",
]


def routes_router(
    app: FastAPI,
    *,
    server_name: str | None = None,
    server_version: str | None = None,
    suite: Suite | None = None,
    auth: Auth | Callable[..., Any] | None = None,
    tools: Iterable[ToolProvider] = (),
    **options: Any,
) -> MCPRouter:
    """An MCP router serving ``app``'s selected routes as tools (plus ``tools``).

    Call it after the routes are defined. It takes what ``mcp_router`` takes (``auth``,
    ``legacy``, ``redis_url``, HTTP and Suite options); with ``suite=`` (yours, e.g. with a
    Redis broker) the route tools are added to it, this process only (generated classes
    cannot travel). The routes' own dependencies enforce their auth either way, and each
    call carries the MCP request's ``forward_headers`` (``Authorization`` by default). Options
    named in :func:`route_tools` select and shape the tools; the rest go to ``mcp_router``.
    """
    selection = {key: value for key, value in options.items() if key in SELECTION}
    rest = {key: value for key, value in options.items() if key not in SELECTION}
    generated: list[ToolProvider] = list(route_tools(app, **selection))
    if suite is not None:
        if tools:
            raise TypeError("give tools to the Suite, not with suite=...")
        for made in generated:
            suite.add_tool(made, local=True)
        return mcp_router(suite=suite, auth=auth, **rest)
    return mcp_router(
        server_name=server_name,
        server_version=server_version,
        tools=[*generated, *tools],
        auth=auth,
        **rest,
    )

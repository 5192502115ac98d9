"""The FastAPI adapter: ``from genmcp.fastapi import mcp_router``.

The router (``router``), the endpoint it mounts (``endpoint``), FastAPI's dependencies for MCP
calls (``depends``), start-up checks and lifespans, per-tenant catalogs (``tenants``), the
server card, stdio for an app (``stdio_app``), and the one module that reads what FastAPI and
Starlette do not promise (``compat``). Importing the package lets ``transports.stdio`` serve
apps: it registers ``stdio_app`` with ``transports.hosting`` (which sits below the adapter and
never imports it).
"""

from genmcp.fastapi import stdio_app
from genmcp.fastapi.endpoint import MCPEndpoint
from genmcp.fastapi.router import MCPRouter, mcp_app, mcp_router
from genmcp.transports.hosting import host_apps
from genmcp.transports.http.options import HTTPOptions

host_apps(stdio_app)

__all__ = ["HTTPOptions", "MCPEndpoint", "MCPRouter", "mcp_app", "mcp_router"]

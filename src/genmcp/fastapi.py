"""Short import path for the FastAPI adapter: ``from genmcp.fastapi import mcp_router``."""

from genmcp.transports.fastapi import HTTPOptions, MCPEndpoint, MCPRouter, mcp_app, mcp_router

__all__ = ["HTTPOptions", "MCPEndpoint", "MCPRouter", "mcp_app", "mcp_router"]

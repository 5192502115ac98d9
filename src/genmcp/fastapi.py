"""Short import path for the FastAPI adapter: ``from genmcp.fastapi import mcp_router``."""

from genmcp.transports.fastapi import MCPEndpoint, MCPRouter, mcp_app, mcp_router

__all__ = ["MCPEndpoint", "MCPRouter", "mcp_app", "mcp_router"]

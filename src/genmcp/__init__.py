"""genmcp: Model Context Protocol servers built from tool classes, served from FastAPI.

Layers (a module imports only from layers below it)::

    protocol/            pure wire vocabulary: JSON-RPC, versions, _meta, 2026-07-28 builders
    errors, sealing      one error table; purpose-bound signed tokens
    schema, tool         the Tool behaviour and its outcomes
    channel, worker      per-call Channel, Outbox, Mailbox and worker task
    suite                routing, pagination, cache hints, outcome -> result
    transports/          Streamable HTTP (FastAPI), stdio; the only I/O

This module only re-exports the public API.
"""

from genmcp.channel import Channel
from genmcp.errors import CallbackReturnError, MCPError
from genmcp.protocol.v2607 import (
    audio,
    call_tool_result,
    create_message_request,
    elicit_request,
    embedded_resource,
    image,
    list_roots_request,
    resource_link,
    text,
)
from genmcp.schema import InvalidArguments
from genmcp.sealing import Sealer
from genmcp.suite import Suite
from genmcp.tool import Error, InputRequired, Result, Stream, Tool, ToolRequest
from genmcp.transports.fastapi import MCPRouter, mcp_router
from genmcp.worker import Mailbox

__version__ = "0.1.0"

__all__ = [
    "CallbackReturnError",
    "Channel",
    "Error",
    "InputRequired",
    "InvalidArguments",
    "MCPError",
    "MCPRouter",
    "Mailbox",
    "Result",
    "Sealer",
    "Stream",
    "Suite",
    "Tool",
    "ToolRequest",
    "audio",
    "call_tool_result",
    "create_message_request",
    "elicit_request",
    "embedded_resource",
    "image",
    "list_roots_request",
    "mcp_router",
    "resource_link",
    "text",
]

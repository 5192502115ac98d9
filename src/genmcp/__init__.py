"""genmcp: Model Context Protocol servers built from tool classes, served from FastAPI.

Layers (a module imports only from layers below it)::

    protocol/            pure wire vocabulary: JSON-RPC, versions, _meta, 2026-07-28 builders
    errors, sealing      one error table; purpose-bound signed tokens
    schema, tool         the Tool behaviour and its outcomes
    channel, worker      per-call Channel, Outbox, Mailbox and worker task
    prompt, resource     the Prompt and ResourceRepo behaviours, and their catalogs
    subscriptions        change notifications and subscriptions/listen streams
    suite                routing, capabilities, change publishing
    transports/          Streamable HTTP (FastAPI), stdio; the only I/O

This module only re-exports the public API.
"""

from genmcp.channel import Channel
from genmcp.errors import CallbackReturnError, MCPError
from genmcp.prompt import Prompt, PromptRequest
from genmcp.protocol.prompts import (
    assistant_message,
    complete_result,
    get_prompt_result,
    prompt_message,
    user_message,
)
from genmcp.protocol.resources import (
    blob_contents,
    read_resource_result,
    resource_item,
    resource_template,
    text_contents,
)
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
from genmcp.resource import ResourceNotFound, ResourceRepo, ResourceRequest, StaticResource
from genmcp.schema import InvalidArguments
from genmcp.sealing import Sealer
from genmcp.suite import Suite
from genmcp.tool import Error, InputRequired, Result, Stream, Tool, ToolRequest
from genmcp.transports.fastapi import MCPRouter, mcp_app, mcp_router
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
    "Prompt",
    "PromptRequest",
    "ResourceNotFound",
    "ResourceRepo",
    "ResourceRequest",
    "Result",
    "Sealer",
    "StaticResource",
    "Stream",
    "Suite",
    "Tool",
    "ToolRequest",
    "assistant_message",
    "audio",
    "blob_contents",
    "call_tool_result",
    "complete_result",
    "create_message_request",
    "elicit_request",
    "embedded_resource",
    "get_prompt_result",
    "image",
    "list_roots_request",
    "mcp_app",
    "mcp_router",
    "prompt_message",
    "read_resource_result",
    "resource_item",
    "resource_link",
    "resource_template",
    "text",
    "text_contents",
    "user_message",
]

"""genmcp: Model Context Protocol servers built from tool classes, served from FastAPI.

Layers, lowest first (a module imports only from its own layer or below;
``tests/layout/`` enforces it)::

    errors, events, sealing     one error table; the typed events of a request; signed tokens
    protocol/                   pure wire vocabulary: JSON-RPC, versions, _meta, builders, 2025
    schema/                     the schema engine: compile, keywords, RE2 patterns, $ref, fast path
    client/                     Client: an async MCP client (HTTP or stdio, either era)
    outcomes, behaviour         Result, Stream, Error, ...; the class-options base
    tools, prompts, resources,  the public behaviours (apps: AppView, an MCP Apps view;
    apps, skills/               skills: Skill, SkillRepo, the Skills extension)
    functions                   @tool, @prompt, @resource: a function as a behaviour class
    outbox, channel             Outbox: a request's events; Channel, Mailbox
    storage/, visibility        Broker, SessionRegistry, Stores: memory, Redis; who sees what
    call/                       the request in flight: Call, its phase table, Job, the relay
    catalogs/                   one catalog per feature with its handlers; outcome -> result
    tasks/                      TaskService: tools/call outliving its request; the task watch
    sync/                       the change feed and listen, the change log, one catalog
                                across processes, worker mail
    middleware, telemetry       the chain around every request; OpenTelemetry (opt-in, [otel])
    observe, ratelimit          built-in middleware: AccessLog, Timing; RateLimit (Limit)
    user_state                  UserStates: named values per user across stateless calls
    transforms/                 shaping every tool added: rename, namespace, hidden arguments;
                                versions; prompts and resources as tools
    suite                       routing, capabilities, the live Calls
    compose/, search/           Mount: another Suite's catalog served under a namespace;
                                CatalogSearch: a search tool over a Suite's catalog
    sessions/                   the 2025 session engine (legacy sessions), for HTTP and stdio
    transports/                 the HTTP wire (rules, ASGI, the relay's SSE writer); stdio
    fastapi/                    the FastAPI adapter: mcp_router, the endpoint, dependencies
    testing/, cli,              the in-process test client; the command line; routes as tools
    routes_as_tools/

This module only re-exports the public API. The FastAPI adapter (``mcp_router``,
``mcp_app``, ``MCPRouter``), tenancy (``Tenants``, ``tenants_router``, the resolvers), routes
as tools (``route_tools``, ``routes_router``) and the
client (``Client``, over httpx) are imported on first use, so ``import genmcp`` loads no
web framework (``HTTPOptions``, the router's HTTP options, imports none).
"""

from typing import TYPE_CHECKING, Any

from genmcp.apps import AppView
from genmcp.caller import Caller
from genmcp.channel import Channel
from genmcp.compose import Mount
from genmcp.errors import CallbackReturnError, MCPError
from genmcp.events import Ending
from genmcp.functions import prompt, resource, tool
from genmcp.middleware.chain import CallEnd, MCPRequest, Middleware, TransportContext, watch
from genmcp.middleware.observe import AccessLog, Timing
from genmcp.middleware.ratelimit import Limit, RateLimit
from genmcp.outcomes import Error, InputDeclined, InputRequired, ResourceNotFound, Result, Stream
from genmcp.prompts import Prompt, PromptRequest
from genmcp.protocol.languages import Languages
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
from genmcp.resources import ResourceRepo, ResourceRequest, StaticResource
from genmcp.schema import InvalidArguments
from genmcp.search import CatalogSearch
from genmcp.skills import Skill, SkillRepo
from genmcp.storage import Stores, TaskOptions, TaskQuota
from genmcp.suite import Suite
from genmcp.tools import Tool, ToolRequest
from genmcp.transforms import Hidden, Transform, prompts_as_tools, resources_as_tools, versioned
from genmcp.transports.http.options import HTTPOptions
from genmcp.user_state import UserState, UserStates
from genmcp.visibility import Item, Visibility

if TYPE_CHECKING:
    from genmcp.client import Client, ClientGroup
    from genmcp.fastapi.router import MCPRouter, mcp_app, mcp_router
    from genmcp.fastapi.tenants import (
        TenantRequest,
        Tenants,
        tenant_from_claim,
        tenant_from_header,
        tenant_from_path,
        tenants_router,
    )
    from genmcp.openapi import OpenAPI, OpenAPITool, openapi_tools
    from genmcp.routes_as_tools import route_tools, routes_router

_LAZY = {
    "Client": "genmcp.client",
    "ClientGroup": "genmcp.client",
    "MCPRouter": "genmcp.fastapi.router",
    "mcp_app": "genmcp.fastapi.router",
    "mcp_router": "genmcp.fastapi.router",
    "OpenAPI": "genmcp.openapi",
    "OpenAPITool": "genmcp.openapi",
    "openapi_tools": "genmcp.openapi",
    "route_tools": "genmcp.routes_as_tools",
    "routes_router": "genmcp.routes_as_tools",
    "TenantRequest": "genmcp.fastapi.tenants",
    "Tenants": "genmcp.fastapi.tenants",
    "tenant_from_claim": "genmcp.fastapi.tenants",
    "tenant_from_header": "genmcp.fastapi.tenants",
    "tenant_from_path": "genmcp.fastapi.tenants",
    "tenants_router": "genmcp.fastapi.tenants",
}

__version__ = "0.1.0"

__all__ = [
    "AccessLog",
    "AppView",
    "CallEnd",
    "CallbackReturnError",
    "Caller",
    "CatalogSearch",
    "Channel",
    "Client",
    "ClientGroup",
    "Ending",
    "Error",
    "HTTPOptions",
    "Hidden",
    "InputDeclined",
    "InputRequired",
    "InvalidArguments",
    "Item",
    "Languages",
    "Limit",
    "MCPError",
    "MCPRequest",
    "MCPRouter",
    "Middleware",
    "Mount",
    "OpenAPI",
    "OpenAPITool",
    "Prompt",
    "PromptRequest",
    "RateLimit",
    "ResourceNotFound",
    "ResourceRepo",
    "ResourceRequest",
    "Result",
    "Skill",
    "SkillRepo",
    "StaticResource",
    "Stores",
    "Stream",
    "Suite",
    "TaskOptions",
    "TaskQuota",
    "TenantRequest",
    "Tenants",
    "Timing",
    "Tool",
    "ToolRequest",
    "Transform",
    "TransportContext",
    "UserState",
    "UserStates",
    "Visibility",
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
    "openapi_tools",
    "prompt",
    "prompt_message",
    "prompts_as_tools",
    "read_resource_result",
    "resource",
    "resource_item",
    "resource_link",
    "resource_template",
    "resources_as_tools",
    "route_tools",
    "routes_router",
    "tenant_from_claim",
    "tenant_from_header",
    "tenant_from_path",
    "tenants_router",
    "text",
    "text_contents",
    "tool",
    "user_message",
    "versioned",
    "watch",
]


def __getattr__(name: str) -> Any:
    """Resolve the FastAPI adapter, routes-as-tools and tenancy on first use (they import
    FastAPI)."""
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'genmcp' has no attribute {name!r}")

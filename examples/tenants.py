"""A multi-tenant SaaS MCP server: two tenants, roles that hide tools, a rate limit.

Each customer (tenant) has its own catalog at ``/t/{tenant}/mcp``: the tools every tenant
has, the ones its plan adds, and those its admins add at runtime (``POST
/admin/t/{tenant}/tools``), which no other tenant ever lists or hears of. Who sees what is
decided per caller (``genmcp.visibility``): ``delete_ticket`` and ``export_data`` exist only
for the ``admin`` role, the ``beta_search`` tool decides for itself (its ``visible`` hook),
and a hidden tool's call answers exactly as an unknown one. Every tenant's callers share a
rate limit per principal (``RateLimit``: in process memory for one process, in Redis, one
budget for every process, when ``GENMCP_REDIS_URL`` is set).

Callers present a demo bearer token (``TOKENS``: its tenant and roles); a token of another
tenant than the path's is a 404, and no token at all is a ``guest``. With
``GENMCP_REDIS_URL`` set, every process shares one Redis: the tenants' runtime catalogs,
their change notifications, 2025 sessions and rate-limit budgets travel between processes
(run several behind a load balancer). ``TENANTS_CONFORMANCE=1`` gives tenant ``acme`` the
everything server's tools too, for the official conformance suite's list and call scenarios.

Run it::

    GENMCP_SECRET_KEY=... uvicorn --app-dir examples tenants:app
    # then MCP at http://127.0.0.1:8000/t/acme/mcp and http://127.0.0.1:8000/t/globex/mcp
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

from fastapi import FastAPI, Header, HTTPException
from pydantic import BaseModel, Field

from genmcp import (
    Caller,
    Channel,
    Item,
    Limit,
    RateLimit,
    Result,
    Suite,
    TenantRequest,
    Tenants,
    Tool,
    ToolRequest,
    call_tool_result,
    tenants_router,
)
from genmcp.auth import Auth
from genmcp.middleware.chain import MCPRequest
from genmcp.storage import Broker, SessionRegistry
from genmcp.storage.buckets import Buckets
from genmcp.storage.owner import owner_of

TENANT_IDS: Final = ("acme", "globex")

TOKENS: Final[Mapping[str, Mapping[str, Any]]] = {
    "alice-acme": {"principal": "alice", "tenant": "acme", "roles": ("admin",)},
    "bob-acme": {"principal": "bob", "tenant": "acme", "roles": ("member",)},
    "carol-globex": {"principal": "carol", "tenant": "globex", "roles": ("admin", "beta")},
    "dan-globex": {"principal": "dan", "tenant": "globex", "roles": ("member",)},
}
"""Demo bearer tokens; a real server verifies JWTs (``genmcp.auth.OAuthResource``)."""

ADMIN_TOKEN: Final = os.environ.get("TENANTS_ADMIN_TOKEN", "admin-secret")
"""What ``POST /admin/...`` wants in ``X-Admin-Token`` (set your own)."""


# -- the tools ------------------------------------------------------------------------------


class Query(BaseModel):
    query: str = Field(description="What to look for.", max_length=200)


class SearchDocs(Tool, name="search_docs", description="Search the tenant's docs.",
                 input_schema=Query):  # fmt: skip
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        tenant, query = channel.assigns.get("tenant"), request.arguments.query
        return Result(call_tool_result(text=f"[{tenant}] 3 documents match {query!r}"))


class Ticket(BaseModel):
    title: str = Field(description="One line.", max_length=120)


class CreateTicket(Tool, name="create_ticket", description="Open a support ticket.",
                   input_schema=Ticket):  # fmt: skip
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        who = channel.assigns.get("principal") or "guest"
        return Result(call_tool_result(text=f"ticket opened by {who}: {request.arguments.title}"))


class TicketId(BaseModel):
    ticket: int = Field(ge=1)


class DeleteTicket(Tool, name="delete_ticket", description="Delete a ticket (admins).",
                   input_schema=TicketId):  # fmt: skip
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=f"ticket {request.arguments.ticket} deleted"))


class ExportData(Tool, name="export_data", description="Export every record (admins)."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=f"export of {channel.assigns.get('tenant')} queued"))


class BetaSearch(Tool, name="beta_search", description="Semantic search (beta testers)."):
    def visible(self, caller: Caller, arg: Any) -> bool:
        return "beta" in caller.roles  # the tool's own decision, cached per caller

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="beta results"))


class TenantTool(Tool, description="A tool one tenant's admin added."):
    """A runtime tool: its name and answer come from its ``arg`` (JSON: it travels)."""

    def info(self, key: str, arg: Any) -> Any:
        if key == "name":
            return arg["name"]
        if key == "description":
            return arg.get("description") or self.option("description")
        return super().info(key, arg)

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=arg["text"]))


EVERY_TENANT: Final = [SearchDocs, CreateTicket, DeleteTicket, ExportData]
PLANS: Final[Mapping[str, list[type[Tool]]]] = {"acme": [], "globex": [BetaSearch]}
ROLE_NEEDED: Final[Mapping[str, str]] = {"delete_ticket": "admin", "export_data": "admin"}


def by_role(caller: Caller, item: Item) -> bool:
    """The Suite-wide policy: a tool that needs a role exists only for callers holding it."""
    needed = ROLE_NEEDED.get(item.name) if item.kind == "tool" else None
    return needed is None or needed in caller.roles


# -- auth and the tenant of a request -----------------------------------------------------


def assigns_of(authorization: str | None) -> Mapping[str, Any] | None:
    """The assigns of an ``Authorization`` header (a guest without); None: a bad token."""
    if not authorization:
        return {"roles": ("guest",)}
    scheme, _, token = authorization.partition(" ")
    found = TOKENS.get(token) if scheme.lower() == "bearer" else None
    if found is None:
        return None
    return {"principal": found["principal"], "roles": found["roles"], "claims": found}


UNKNOWN_TOKEN: Final = {
    "jsonrpc": "2.0",
    "error": {"code": -32600, "message": "Unauthorized: unknown token"},
}


@dataclass(frozen=True, slots=True)
class DemoTokens(Auth):
    """An ``Auth`` (``genmcp.transports.http.auth``): an optional bearer token from ``TOKENS``."""

    async def check(self, scope: MutableMapping[str, Any], suite: Suite) -> Any:
        """The request check: the caller's assigns, or a 401."""
        authorization = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        assigns = assigns_of(authorization)
        if assigns is None:
            return UNKNOWN_TOKEN, 401, [("www-authenticate", 'Bearer error="invalid_token"')]
        return assigns

    @property
    def request_check(self) -> Any:
        return self.check

    @property
    def message_check(self) -> None:
        return None

    @property
    def dependency(self) -> Any:
        def from_header(authorization: str | None = Header(default=None)) -> Any:
            assigns = assigns_of(authorization)
            if assigns is None:
                raise HTTPException(401, "unknown token")
            return assigns

        return from_header


def tenant_of(request: TenantRequest) -> str | None:
    """The path's tenant, unless the token belongs to another one (then: no tenant, 404)."""
    claims = request.assigns.get("claims") or {}
    bound = claims.get("tenant") if isinstance(claims, Mapping) else None
    return None if bound is not None and bound != request.path else request.path


def limit_key(request: MCPRequest) -> str:
    """One bucket per tenant and principal (guests of a tenant share theirs)."""
    return f"{request.assigns.get('tenant')}:{owner_of(request.assigns)}"


# -- the per-tenant Suites --------------------------------------------------------------------


def shared_stores() -> tuple[Broker | None, SessionRegistry | None]:
    """With ``GENMCP_REDIS_URL``, the Redis broker and session registry every process
    shares; else none (one process)."""
    url = os.environ.get("GENMCP_REDIS_URL")
    if not url:
        return None, None
    from genmcp.scaleout import RedisBroker, RedisSessionRegistry

    prefix = os.environ.get("GENMCP_REDIS_PREFIX", "tenants:")
    broker = RedisBroker.from_url(url, prefix=prefix)
    return broker, RedisSessionRegistry.from_url(url, prefix=prefix)


def conformance_tools(tenant: str) -> list[Any]:
    """``TENANTS_CONFORMANCE=1``: the everything server's tools for ``acme``."""
    if tenant != "acme" or os.environ.get("TENANTS_CONFORMANCE") != "1":
        return []
    import everything_server  # examples/ is the app dir

    return list(everything_server.TOOLS)


def limit_store() -> Buckets | None:
    """With ``GENMCP_REDIS_URL``, the rate-limit buckets in Redis (one budget whatever the
    process); else None: this process's memory."""
    url = os.environ.get("GENMCP_REDIS_URL")
    if not url:
        return None
    from genmcp.scaleout import RedisBuckets

    return RedisBuckets.from_url(url, prefix=os.environ.get("GENMCP_REDIS_PREFIX", "tenants:"))


BROKER, REGISTRY = shared_stores()
SECRET: Final = os.environ.get("GENMCP_SECRET_KEY") or secrets.token_urlsafe(32)
LIMIT: Final = RateLimit(
    Limit(rate=5, burst=10), methods=["tools/call"], key=limit_key, store=limit_store()
)


def build(tenant: str, **shared: Any) -> Suite:
    """One tenant's Suite: the common tools, its plan's, the role policy, the rate limit."""
    return Suite(
        server_name="tenants",
        server_title=f"Tenants: {tenant}",
        server_version="1.0.0",
        tools=[*EVERY_TENANT, *PLANS.get(tenant, []), *conformance_tools(tenant)],
        visibility=by_role,
        middleware=[LIMIT],
        secret_key=SECRET,
        **shared,  # the tenant's own audience and (with Redis) its scoped broker
    )


tenants = Tenants(build, known=TENANT_IDS, broker=BROKER)
app = FastAPI(title="genmcp tenants example")
app.include_router(tenants_router(tenants, resolve=tenant_of, auth=DemoTokens(), registry=REGISTRY))


class NewTool(BaseModel):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    text: str = Field(max_length=1000)
    description: str | None = Field(default=None, max_length=500)


def _admin(tenant: str, token: str | None) -> None:
    if token is None or not secrets.compare_digest(token, ADMIN_TOKEN):
        raise HTTPException(403, "X-Admin-Token required")
    if not tenants.known(tenant):
        raise HTTPException(404, f"no tenant {tenant!r}")


@app.post("/admin/t/{tenant}/tools", status_code=201)
async def add_tenant_tool(
    tenant: str, tool: NewTool, x_admin_token: str | None = Header(default=None)
) -> dict[str, str]:
    """Add a tool to ``tenant``'s catalog, on every process; its listeners hear of it."""
    _admin(tenant, x_admin_token)
    suite = await tenants.open(tenant)
    if suite.tool(tool.name) is not None:
        raise HTTPException(409, f"{tenant} already serves {tool.name!r}")
    suite.add_tool((TenantTool, tool.model_dump(exclude_none=True)))
    await suite.catalog_synced()  # logged and published before we answer: read after write
    return {"tenant": tenant, "tool": tool.name}


@app.delete("/admin/t/{tenant}/tools/{name}")
async def remove_tenant_tool(
    tenant: str, name: str, x_admin_token: str | None = Header(default=None)
) -> dict[str, bool]:
    """Remove a tool from ``tenant``'s catalog, on every process."""
    _admin(tenant, x_admin_token)
    suite = await tenants.open(tenant)
    removed = suite.remove_tool(name)
    await suite.catalog_synced()
    return {"removed": removed}

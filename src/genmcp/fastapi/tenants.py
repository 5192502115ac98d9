"""Per-tenant catalogs over HTTP: ``Tenants`` and ``tenants_router``.

A SaaS server gives each customer (tenant) its own catalog: the tools every tenant has,
plus those added at runtime for that tenant only. :class:`Tenants` holds one Suite per
tenant, built on first use by your ``build(tenant, **shared)``, on one shared broker seen
through a ``storage.scoped.ScopedBroker``: a tenant's runtime ``add_tool`` reaches that
tenant's Suite on every process (the shared catalog, ``sync.catalog``) and that
tenant's listen streams only. Each tenant's Suite seals with its own audience, so a cursor,
``requestState`` or session id of one tenant opens nothing of another's.

:func:`tenants_router` serves them on one route: a resolver reads the tenant of each request
from the path (``/t/{tenant}/mcp``: :func:`tenant_from_path`), a header
(:func:`tenant_from_header`) or the verified token (:func:`tenant_from_claim`); the request
is then served by that tenant's endpoint with ``assigns["tenant"]`` set (visibility policies
read it as ``caller.tenant``). A tenant that is not ``known`` is a 404, before any Suite is
built for it. The Origin/Host guard runs first, then auth; a tenant's Suite is built only for
an authenticated caller (with ``auth``), so requests with bad tokens build none whatever
``known`` accepts. Auth runs against the tenant's Suite when it is built already (its tools'
scopes go into the challenge), else against a Suite that serves nothing (the challenge names
the resource-wide scopes; the tool's own come with the 403 once the caller is in).

With ``fastapi/router.py``, a module that imports Starlette and FastAPI.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final, final

from fastapi import APIRouter
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from genmcp.caller import TENANT
from genmcp.docsui import DocsPage, docs_enabled
from genmcp.errors import MCPError, http_status
from genmcp.fastapi.endpoint import MCPEndpoint
from genmcp.protocol.jsonrpc import error_response
from genmcp.sessions import LegacyServer
from genmcp.storage import Broker, SessionRegistry
from genmcp.storage.scoped import SCOPE, ScopedBroker
from genmcp.suite import Suite
from genmcp.transports.http.asgi import HeaderView, send_refusal
from genmcp.transports.http.auth import Auth, as_auth
from genmcp.transports.http.options import HTTPOptions

__all__ = [
    "TenantRequest",
    "Tenants",
    "tenant_from_claim",
    "tenant_from_header",
    "tenant_from_path",
    "tenants_router",
]

Build = Callable[..., Suite]
"""``build(tenant, **shared) -> Suite``: the Suite of one tenant; pass ``shared`` (its
broker and audience) on to ``Suite(...)``."""


@final
@dataclass(frozen=True, slots=True)
class TenantRequest:
    """What a resolver reads of one HTTP request.

    Attributes:
        path: the ``{tenant}`` segment of the route path, None when the route has none.
        headers: the request headers (lower-case names).
        assigns: what auth made of the caller (empty before auth ran).
    """

    path: str | None
    headers: Mapping[str, str]
    assigns: Mapping[str, Any]


Resolve = Callable[[TenantRequest], str | None]
"""The tenant of a request, or None (a 404)."""


def tenant_from_path() -> Resolve:
    """The tenant named by the route path (``/t/{tenant}/mcp``)."""
    return lambda request: request.path


def tenant_from_header(name: str = "x-tenant") -> Resolve:
    """The tenant a header names (set by your gateway: never trust it from the open web)."""
    lowered = name.lower()
    return lambda request: request.headers.get(lowered)


def tenant_from_claim(claim: str = "tenant") -> Resolve:
    """The tenant a claim of the verified token names (``assigns["claims"]``, else the
    assigns key ``claim`` a plain auth dependency returned)."""

    def resolve(request: TenantRequest) -> str | None:
        claims = request.assigns.get("claims")
        value = claims.get(claim) if isinstance(claims, Mapping) else None
        if value is None:
            value = request.assigns.get(claim)
        return value if isinstance(value, str) else None

    return resolve


class Tenants:
    """One Suite per tenant, built on first use, all on one shared broker (see the module).

    Args:
        build: ``build(tenant, **shared) -> Suite``; ``shared`` holds the tenant's
            ``audience`` and, with a broker, its scoped ``broker``: pass them to ``Suite``.
        known: the tenants served: a collection of ids, or ``known(tenant) -> bool``.
        broker: the broker every process shares (a ``RedisBroker``); None: each tenant's
            Suite has its own in-process broker (one process).
        audience: the prefix of each tenant Suite's sealing audience.
    """

    def __init__(
        self,
        build: Build,
        *,
        known: Collection[str] | Callable[[str], bool],
        broker: Broker | None = None,
        audience: str = "genmcp-tenant",
    ) -> None:
        self._build, self.broker, self.audience = build, broker, audience
        self._known = known if callable(known) else frozenset(known).__contains__
        self._suites: dict[str, Suite] = {}
        self._opening: dict[str, asyncio.Future[Suite]] = {}

    def known(self, tenant: str) -> bool:
        """True when ``tenant`` is served (a well-formed id the ``known`` check accepts)."""
        return SCOPE.fullmatch(tenant) is not None and bool(self._known(tenant))

    def get(self, tenant: str) -> Suite | None:
        """The Suite of ``tenant`` if it was built in this process, else None (none is built)."""
        return self._suites.get(tenant)

    def built(self) -> dict[str, Suite]:
        """The Suites built so far in this process, by tenant."""
        return dict(self._suites)

    async def open(self, tenant: str) -> Suite:
        """The Suite of ``tenant``, built and started (its shared catalog replayed) on first
        use; ``LookupError`` for a tenant that is not known. Change a tenant's catalog on it:
        ``(await tenants.open("acme")).add_tool(Tool)``, then ``await suite.catalog_synced()``.
        """
        suite = self._suites.get(tenant)
        if suite is not None:
            return suite
        if not self.known(tenant):
            raise LookupError(f"unknown tenant {tenant!r}")
        opening = self._opening.get(tenant)
        if opening is None:  # the first request builds it; concurrent ones wait for it
            opening = self._opening[tenant] = asyncio.get_running_loop().create_future()
            try:
                suite = self._make(tenant)
                await suite.start()
            except BaseException as exc:
                del self._opening[tenant]
                opening.set_exception(exc)
                opening.exception()  # retrieved: the waiters, if any, get it too
                raise
            self._suites[tenant] = suite
            del self._opening[tenant]
            opening.set_result(suite)
            return suite
        return await asyncio.shield(opening)

    def _make(self, tenant: str) -> Suite:
        shared: dict[str, Any] = {"audience": f"{self.audience}/{tenant}"}
        if self.broker is not None:
            shared["broker"] = ScopedBroker(self.broker, tenant)
        suite = self._build(tenant, **shared)
        if not isinstance(suite, Suite):
            raise TypeError(f"Tenants: build({tenant!r}) returned {suite!r}, not a Suite")
        return suite

    async def aclose(self) -> None:
        """Close every tenant's Suite (at shutdown)."""
        suites, self._suites = list(self._suites.values()), {}
        for suite in suites:
            await suite.aclose()


_UNKNOWN: Final = "Not found: no such tenant"


class TenantsEndpoint:
    """The ASGI endpoint of :func:`tenants_router`: resolve, then the tenant's endpoint."""

    def __init__(
        self,
        tenants: Tenants,
        resolve: Resolve,
        *,
        options: HTTPOptions,
        auth: Auth | None,
        legacy: bool,
        registry: SessionRegistry | None,
    ) -> None:
        self.tenants, self.resolve, self.options, self.auth = tenants, resolve, options, auth
        self.legacy, self.registry = legacy, registry
        # the guard's and the token-resolved auth's Suite: serves nothing
        front = Suite(server_name="tenants", server_version="0", secret_key=secrets.token_bytes(32))
        self._front = MCPEndpoint(front, options)
        self._endpoints: dict[str, MCPEndpoint] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if await self._front.refuse_unguarded(scope, receive, send):
            return
        headers = HeaderView(scope["headers"])
        segment = scope.get("path_params", {}).get("tenant")
        path = segment if isinstance(segment, str) else None
        tenant = self.resolve(TenantRequest(path, headers, {}))
        assigns: Mapping[str, Any] = {}
        check = None if self.auth is None else self.auth.request_check
        if check is not None:
            # a Suite already built names its tools' scopes in the challenge; none is built
            # before the caller is authenticated (a made-up tenant name costs nothing)
            built = None if tenant is None else self.tenants.get(tenant)
            found = await check(scope, self._front.suite if built is None else built)
            if isinstance(found, tuple):
                body, status, extra = found
                await send_refusal(send, receive, headers, body, status, extra)
                return
            assigns = found
            tenant = self.resolve(TenantRequest(path, headers, assigns))
        if tenant is None or not self.tenants.known(tenant):
            failure = MCPError("unknown_tenant", _UNKNOWN)
            body = error_response(None, failure)
            await send_refusal(send, receive, headers, body, http_status(failure.reason))
            return
        endpoint = self._endpoints.get(tenant) or await self._endpoint(tenant)
        await endpoint.serve(scope, receive, send, {**assigns, TENANT: tenant}, guarded=True)

    async def _endpoint(self, tenant: str) -> MCPEndpoint:
        suite = await self.tenants.open(tenant)
        endpoint = self._endpoints.get(tenant)
        if endpoint is None:
            sessions = LegacyServer(suite, registry=self.registry) if self.legacy else None
            endpoint = MCPEndpoint(
                suite, self.options, legacy=sessions, auth=self.auth, auth_by_route=True
            )
            self._endpoints[tenant] = endpoint
        return endpoint

    async def aclose(self) -> None:
        """Close the tenants' Suites and their legacy servers (the router's lifespan)."""
        endpoints, self._endpoints = list(self._endpoints.values()), {}
        await self.tenants.aclose()
        for endpoint in endpoints:
            if endpoint.legacy is not None:
                endpoint.legacy.close()
        if self.auth is not None:
            await self.auth.aclose()


def tenants_router(
    tenants: Tenants,
    *,
    resolve: Resolve | None = None,
    path: str = "/t/{tenant}/mcp",
    auth: Auth | None = None,
    legacy: bool = True,
    registry: SessionRegistry | None = None,
    options: HTTPOptions | None = None,
    docs: bool | None = None,
) -> APIRouter:
    """An ``APIRouter`` serving every tenant of ``tenants`` at ``path``.

    Args:
        tenants: the per-tenant Suites.
        resolve: the tenant of a request (default: :func:`tenant_from_path`, for a ``path``
            with ``{tenant}``); e.g. :func:`tenant_from_claim` with ``path="/mcp"``.
        path: the route path; ``{tenant}`` names the tenant's segment.
        auth: who may call (``genmcp.auth.OAuthResource``, or another ``Auth`` with a
            request check): run before the tenant's Suite; its message check (operation
            scopes) then runs in the tenant's endpoint.
        legacy: serve 2025 session clients too (sessions in ``registry``: a shared
            ``RedisSessionRegistry`` across processes; in memory by default).
        options: the endpoints' ``HTTPOptions``.
        docs: serve the interactive page at ``path + "/docs"`` (as ``mcp_router(docs=...)``:
            each tenant's page calls its own endpoint with the visitor's credentials).
    """
    checks = as_auth(auth)
    if checks is not None and checks.request_check is None:
        raise TypeError(
            "tenants_router(auth=...) takes an Auth with a request check (OAuthResource), "
            "not a plain FastAPI dependency"
        )
    if resolve is None:
        if "{tenant}" not in path:
            raise TypeError("tenants_router: give resolve= when the path has no {tenant}")
        resolve = tenant_from_path()
    endpoint = TenantsEndpoint(
        tenants,
        resolve,
        options=HTTPOptions() if options is None else options,
        auth=checks,
        legacy=legacy,
        registry=registry,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await endpoint.aclose()

    router = APIRouter(lifespan=lifespan)
    router.routes.append(Route(path, endpoint, name="mcp-tenants", include_in_schema=False))
    if docs_enabled(docs):
        page = Route(path.rstrip("/") + "/docs", DocsPage(), name="mcp-tenants: the page",
                     include_in_schema=False)  # fmt: skip
        router.routes.append(page)
    return router

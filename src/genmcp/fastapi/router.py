"""``mcp_router(...)``: MCP Streamable HTTP as a FastAPI ``APIRouter``.

``app.include_router(mcp_router(...), prefix="/mcp")`` serves MCP at ``/mcp``.
Without auth or dependencies the endpoint is a raw ASGI route inside the
router, so FastAPI's per-endpoint machinery costs nothing; so it is with an
``OAuthResource`` alone (or another ``transports.http.auth.Auth`` with a request check: it runs
inside the endpoint). With a plain auth dependency or other dependencies it is an ordinary
API route whose auth dependency's return value becomes ``channel.assigns``.

The endpoint itself (``fastapi.endpoint.MCPEndpoint``) serves both eras and
writes each Call as JSON or SSE; this module builds the router around it, its
lifespan (which shuts the Suite's live calls down) and ``mcp_app``.

Its parts: the storage it wires in (``fastapi.stores``), ``proxy=`` (``fastapi.proxy``),
the wrong-path help (``fastapi.wrong_paths``).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from fastapi import APIRouter, Depends, FastAPI, params
from fastapi.routing import APIRoute
from starlette.requests import Request as HTTPRequest
from starlette.responses import Response as HTTPResponse
from starlette.routing import Match, Route
from starlette.types import Receive, Scope, Send

from genmcp.catalogs.tools import ToolProvider
from genmcp.client.limits import ClientLimits
from genmcp.docsui import DocsPage, docs_enabled
from genmcp.fastapi.compat import plain_include, routes_changed
from genmcp.fastapi.depends import remember_auth
from genmcp.fastapi.endpoint import ENDPOINTS, MCPEndpoint
from genmcp.fastapi.gcfreeze import freeze_startup_objects
from genmcp.fastapi.proxy import add_proxy, share_cache
from genmcp.fastapi.startup import check_at_startup
from genmcp.fastapi.stores import router_stores
from genmcp.fastapi.wrong_paths import help_wrong_paths
from genmcp.middleware.ratelimit import share_buckets
from genmcp.sessions import LegacyServer
from genmcp.storage import Stores
from genmcp.suite import Suite
from genmcp.transports.http.auth import Auth, as_auth
from genmcp.transports.http.options import OPTION_NAMES, HTTPOptions

if TYPE_CHECKING:
    from genmcp.client.cache import CacheStore
    from genmcp.storage.redis import RedisOptions, RedisStores

__all__ = ["DOCS_ROUTE_NAME", "MCPRouter", "docs_route", "mcp_app", "mcp_router"]


DOCS_ROUTE_NAME: Final = "mcp: the interactive page (docs=True)"
"""The name of the page's route."""
ROUTE_NAME: Final = "mcp; include the router with a prefix: include_router(router, prefix='/mcp')"
"""The MCP route's name. FastAPI names it in "Prefix and path cannot be both empty (path
operation: ...)" when the router is included without a prefix, so the name says the fix."""


class MCPRouter(APIRouter):
    """An ``APIRouter`` serving MCP; ``router.suite`` is the Suite behind it.

    ``auth`` is the FastAPI dependency of the ``auth`` given to ``mcp_router`` (None
    without; an ``OAuthResource`` itself), which stdio runs once
    (``genmcp run --transport stdio --header ...``).
    """

    suite: Suite
    endpoint: MCPEndpoint
    auth: Callable[..., Any] | None = None
    stores: Stores | None = None
    """The storage bundle the router wired in (``stores=``, or the one ``redis_url=`` built),
    else None."""
    redis: RedisStores | None = None
    """The Redis parts ``redis_url=`` built (closed by the router's lifespan), else None."""


def _closing(
    suite: Suite, endpoint: MCPEndpoint, freeze_gc: bool, owned: Stores | None = None
) -> Callable[[Any], contextlib.AbstractAsyncContextManager[None]]:
    """A lifespan that runs the startup checks (``startup``), adds the wrong-path help
    (``fastapi.wrong_paths``), puts the raw routes in the app (:func:`_flatten_include`),
    starts the Suite (its shared catalog), freezes the start-up objects (``gcfreeze``) and,
    at shutdown, ends its live calls and listen streams, closes the auth's clients
    (``auth.aclose``, if it has one), then the storage bundle the router built (``owned``:
    ``redis_url=``'s; never a ``stores=`` given, which stays its maker's to close)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        check_at_startup(app, endpoint)
        help_wrong_paths(app, endpoint)
        _flatten_include(app, endpoint)
        await suite.start()  # scale-out: the shared catalog, before the first request
        if freeze_gc:
            freeze_startup_objects()
        try:
            yield
        finally:
            await suite.aclose()
            if endpoint.auth is not None:
                await endpoint.auth.aclose()  # e.g. a verifier's pool
            if endpoint.legacy is not None:  # scale-out: its one signal subscription
                grace = endpoint.options.shutdown_grace_s
                await endpoint.legacy.journal_tasks.logged(grace)  # closed streams' answers
                endpoint.legacy.close()
            if owned is not None:
                await owned.aclose()

    return lifespan


# Members read on every request, bound once: on Python 3.11 a read such as ``Match.FULL`` goes
# through EnumType's ``__getattr__`` hook (about 1k instructions); a module name does not.
_FULL: Final = Match.FULL


class _EndpointRoute(Route):
    """The MCP endpoint's raw route: a request for its path, with no ``root_path``, is matched
    by comparing the path, not by the route's regex (every MCP request is matched first: the
    hot path). Anything else (a path with parameters, another path, a ``root_path``, a
    websocket) is Starlette's own match, as for any route. Its ``handle`` is the endpoint's
    own ``serve``: the router awaits it with no ``Route.handle`` frame between, and no call
    through the endpoint instance's ``__call__`` slot (the route takes every method: the
    endpoint answers the ones it does not)."""

    def __init__(self, path: str, endpoint: MCPEndpoint, **options: Any) -> None:
        super().__init__(path, endpoint, **options)
        self.handle = endpoint.serve  # type: ignore[method-assign]

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if (
            scope["type"] == "http"
            and scope["path"] == self.path
            and not scope.get("root_path")
            and not self.param_convertors
        ):
            params = scope.get("path_params")
            child = {"endpoint": self.endpoint, "path_params": dict(params) if params else {}}
            return _FULL, child
        return super().matches(scope)


class _Delegate(HTTPResponse):
    """A response that hands the raw ASGI exchange to the MCP endpoint."""

    def __init__(self, endpoint: MCPEndpoint, assigns: Mapping[str, Any]) -> None:
        self._endpoint, self._assigns = endpoint, assigns
        self.background = None  # FastAPI reads it after the endpoint returns

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._endpoint.serve(scope, receive, send, self._assigns, guarded=True)


def _as_assigns(value: Any) -> Mapping[str, Any]:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return value
    return {"principal": value}


def _no_auth() -> None:
    return None


def mcp_router(
    *,
    server_name: str | None = None,
    server_version: str | None = None,
    tools: Iterable[ToolProvider] = (),
    suite: Suite | None = None,
    auth: Auth | Callable[..., Any] | None = None,
    dependencies: Sequence[params.Depends] | None = None,
    path: str = "",
    legacy: bool | LegacyServer = True,
    freeze_gc: bool = True,
    options: HTTPOptions | None = None,
    proxy: str | None = None,
    proxy_limits: ClientLimits | None = None,
    proxy_timeout_s: float = 10.0,
    proxy_cache: bool | CacheStore | None = None,
    redis_url: str | None = None,
    redis_prefix: str = "genmcp:",
    redis_options: RedisOptions | None = None,
    stores: Stores | None = None,
    docs: bool | None = None,
    **keywords: Any,
) -> MCPRouter:
    """Build an ``APIRouter`` that serves MCP; mount it with ``include_router``.

    Args:
        server_name: ``serverInfo.name`` (unless ``suite`` is given).
        server_version: ``serverInfo.version`` (unless ``suite`` is given).
        tools: tool classes or ``(ToolClass, arg)`` pairs.
        suite: an existing Suite to serve instead of building one.
        auth: who may call: ``genmcp.auth.OAuthResource`` (or another ``Auth``), or a
            FastAPI dependency whose return value (a mapping, or any value stored as
            ``{"principal": value}``) becomes ``channel.assigns``; a Starlette
            ``Response`` answers the request instead (a challenge). It runs after the
            Origin/Host checks.
        dependencies: more FastAPI dependencies for the endpoint.
        path: the route path inside the router (``""`` with a prefix).
        legacy: serve 2025 session clients on the same endpoint (True, the default), not
            (False: 2026-07-28 only; GET and DELETE answer 405), or with a configured
            ``LegacyServer`` (session registry, broker, session lifetime, ...).
        freeze_gc: at the first start-up in the process, ``gc.collect()`` then
            ``gc.freeze()``, so full collections skip the start-up objects (the largest part
            of the tail latency under load; ``fastapi.gcfreeze``); False leaves the
            collector alone.
        options: the endpoint's :class:`HTTPOptions` (hosts, origins, body cap and
            timeout, keepalive, send timeout, shutdown grace), as one object.
        proxy: serve the remote MCP server at this URL (either era) in both eras: its
            tools, prompts and resources through one pooled client, a ``Mount(url=proxy,
            resources=True)`` under no namespace (docs/guides/composition.md).
        proxy_limits: what the upstream of ``proxy`` may send and how long a call to it may
            take (``genmcp.client.ClientLimits``: the largest response body or SSE event, the
            pages and items of one listing, the deadline of one call); None: its defaults
            (32 MiB, 1,000 pages, 100,000 items, 300 s). An upstream crossing one is a
            JSON-RPC error to the gateway's client, as if it were down.
        proxy_timeout_s: seconds a connect or a read to that upstream may take.
        proxy_cache: that upstream's response cache (``Mount(cache=...)``): None (default)
            shares the router's Redis cache when it has one (``redis_url=``, or a
            ``stores=`` bundle with a ``cache``, as ``RedisStores.from_url`` makes), so the
            gateway's processes ask the upstream once; else this process's memory. False:
            off; True: this process's memory; a ``CacheStore``: that one (yours to close).
            Every remote ``Mount`` of ``mounts=`` left at its default cache shares the
            router's Redis cache the same way.
        redis_url: scale out over this Redis (default: ``GENMCP_REDIS_URL``, when the
            router builds its Suite): the router builds ``RedisStores`` (broker, session
            registry, task store, buckets on one client), wires them in as it does
            ``stores=`` and closes them in its lifespan (``fastapi.redis_url``;
            ``genmcp[redis]``).
        redis_prefix: the prefix of every Redis key and channel (apps sharing a Redis
            each take their own; the processes of one app share it).
        redis_options: the ``RedisOptions`` of that client (timeouts, pool, retries).
        stores: any storage backend's bundle (``genmcp.storage.Stores``: ``MemoryStores``,
            ``RedisStores``, your own): its broker and task store go to the Suite the router
            builds, its registry to the legacy server, its buckets to every ``RateLimit``
            of ``middleware=`` given no store. Yours to close (after the app stopped): the
            router closes only what it built. Not with ``redis_url=`` (which builds
            ``RedisStores`` and passes them here), ``suite=`` or the parts it gives.
        docs: serve the interactive page at ``<endpoint>/docs`` (``genmcp.docsui``; off by
            default, for development: None reads ``GENMCP_DOCS=1``, which ``genmcp dev``
            sets). It calls the endpoint from the browser with the visitor's own credentials.
        **keywords: each field of :class:`HTTPOptions` by name (``allowed_hosts=[...]``,
            ``keepalive_s=5``; not together with ``options``); the rest go to ``Suite``
            (page_size, secret_key, instructions, ...).
    """
    options = _http_options(options, keywords)  # takes the HTTP options out of keywords
    redis = (redis_url, redis_prefix, redis_options)
    stores, owned = router_stores(stores, redis, suite, keywords, legacy)
    if add_proxy(proxy, (proxy_limits, proxy_timeout_s, proxy_cache), suite, keywords):
        server_name = server_name or "genmcp-proxy"
        server_version = server_version or "1"
    share_cache(stores, keywords)
    if suite is None:
        if server_name is None or server_version is None:
            raise TypeError("mcp_router needs server_name and server_version (or suite=...)")
        if stores is not None:
            keywords.update(broker=stores.broker, task_store=stores.tasks)
            share_buckets(keywords.get("middleware", ()), stores.buckets)
        suite = Suite(
            server_name=server_name, server_version=server_version, tools=tools, **keywords
        )
    elif keywords or tools:
        raise TypeError("give tools and Suite options to the Suite, not with suite=...")
    if isinstance(legacy, LegacyServer) and legacy.suite is not suite:
        raise TypeError("the LegacyServer given as legacy= must serve the router's Suite")
    checks = as_auth(auth)
    # raw: the endpoint is the route (no FastAPI machinery); else an API route runs the
    # auth dependency and the other dependencies first
    raw = not dependencies and (checks is None or checks.request_check is not None)
    sessions = legacy if isinstance(legacy, LegacyServer) else None
    if legacy and sessions is None:
        sessions = LegacyServer(suite, registry=None if stores is None else stores.registry)
    endpoint = MCPEndpoint(suite, options, legacy=sessions, auth=checks, auth_by_route=not raw)
    router = MCPRouter(lifespan=_closing(suite, endpoint, freeze_gc, owned))
    router.suite, router.endpoint, router.stores, router.redis = suite, endpoint, stores, owned
    router.auth = None if checks is None else checks.dependency
    for at in (path, path + "/") if not path.endswith("/") else (path,):  # no 307 for "/mcp/"
        if raw:
            route = _EndpointRoute(at or "/", endpoint, name=ROUTE_NAME, include_in_schema=False)
            route.path = at  # FastAPI joins the include prefix with this path
            router.routes.append(route)
        else:
            deps = list(dependencies or ())
            dependency = _no_auth if checks is None else checks.dependency
            _add_dependent_route(router, endpoint, dependency, deps, at)
    if docs_enabled(docs):
        router.routes.append(docs_route(path))
    return router


def docs_route(path: str) -> Route:
    """The page's route at ``path + "/docs"`` (no auth: the page holds nothing; its calls
    to the endpoint carry the visitor's credentials)."""
    return Route(path.rstrip("/") + "/docs", DocsPage(), name=DOCS_ROUTE_NAME,
                 include_in_schema=False)  # fmt: skip


def _flatten_include(app: Any, endpoint: MCPEndpoint) -> None:
    """Replace the app's include of ``endpoint``'s raw router by the router's routes.

    Recent FastAPI (0.165 here) keeps an included router lazy: each request to it matches
    the router's routes twice (once to choose the include, once inside it) and reads its
    route version twice: a fifth of an in-process call (58.6 µs, 47.0 without). A raw MCP
    router holds only the endpoint's own Starlette routes, with nothing of FastAPI's to
    apply, so the app can match them itself. They go where the include was, moved ahead
    only of plain routes that can never match their paths (FastAPI's ``/docs`` and
    ``/openapi.json`` among them), so which route answers a request is unchanged. An
    include with its own ``max_body_size``, nested in another router, or holding API
    routes (auth dependencies) stays as it is."""
    routes = getattr(getattr(app, "router", None), "routes", None)
    if not isinstance(routes, list):
        return
    for index in reversed(range(len(routes))):
        flat = _flat_routes(routes[index], endpoint)
        if flat is None:
            continue
        del routes[index]
        paths = {route.path for route in flat}
        at = index
        while at and _never_matches(routes[at - 1], paths):
            at -= 1
        routes[at:at] = flat
    routes_changed(app.router)


def _flat_routes(include: Any, endpoint: MCPEndpoint) -> list[Route] | None:
    """The routes that serve ``include`` (FastAPI's lazy include of an ``MCPRouter`` of
    ``endpoint``) as the app's own, or None when it must stay an include."""
    plain = plain_include(include)  # fastapi.compat: None on FastAPI without lazy includes
    if plain is None:
        return None
    router, prefix = plain
    if not isinstance(router, MCPRouter) or router.endpoint is not endpoint or not router.routes:
        return None
    flat = []
    for route in router.routes:
        if not isinstance(route, Route):
            return None
        page = isinstance(route.endpoint, DocsPage)
        if not page and (type(route) is not _EndpointRoute or route.endpoint is not endpoint):
            return None  # an API route
        path = prefix + route.path
        if not path.startswith("/"):
            return None
        if page:
            flat.append(Route(path, route.endpoint, name=DOCS_ROUTE_NAME, include_in_schema=False))
        else:
            flat.append(_EndpointRoute(path, endpoint, name=ROUTE_NAME, include_in_schema=False))
    return flat


def _never_matches(route: Any, paths: set[str]) -> bool:
    """Whether ``route`` is a plain route (no path parameters) at none of ``paths``."""
    return isinstance(route, Route) and not route.param_convertors and route.path not in paths


def _http_options(options: HTTPOptions | None, keywords: dict[str, Any]) -> HTTPOptions:
    """``options``, or the ``HTTPOptions`` named in ``keywords`` (popped from it)."""
    named = {name: keywords.pop(name) for name in OPTION_NAMES & keywords.keys()}
    if options is None:
        return HTTPOptions(**named)
    if named:
        given = ", ".join(sorted(named))
        raise TypeError(f"give the HTTP options in options= or as keywords, not both ({given})")
    if not isinstance(options, HTTPOptions):
        raise TypeError(f"options= takes an HTTPOptions, not {options!r}")
    return options


class _GuardedRoute(APIRoute):
    """The MCP route with dependencies: the Origin/Host guard runs first, in raw ASGI.

    So a refusal is the endpoint's own (JSON-RPC body, ``Connection: close``, bounded
    drain), identical with and without auth, and no dependency runs for a refused request;
    a method the route does not take is the endpoint's 405 too. Made per router
    (``mcp_endpoint`` on the class: FastAPI may rebuild the route from its class).
    """

    mcp_endpoint: MCPEndpoint

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        endpoint = self.mcp_endpoint
        if scope["type"] == "http":
            if await endpoint.refuse_unguarded(scope, receive, send):
                return
            if scope["method"] not in (self.methods or ()):
                await endpoint.serve(scope, receive, send, {}, guarded=True)
                return
        await super().handle(scope, receive, send)


def _add_dependent_route(
    router: APIRouter,
    endpoint: MCPEndpoint,
    auth: Callable[..., Any],
    dependencies: list[params.Depends],
    path: str,
) -> None:
    async def mcp(request: HTTPRequest, assigns: Any = Depends(auth)) -> HTTPResponse:
        if isinstance(assigns, HTTPResponse):  # auth: the dependency answered (a challenge)
            return assigns
        if auth is not _no_auth:  # a tool's Depends(auth) reuses this run
            remember_auth(request.scope, auth, assigns)
        return _Delegate(endpoint, _as_assigns(assigns))

    ENDPOINTS.add(mcp, endpoint)  # stdio and the start-up checks find the endpoint by its route
    router.add_api_route(
        path,
        mcp,
        methods=["POST", "GET", "DELETE"],
        dependencies=dependencies,
        include_in_schema=False,
        name=ROUTE_NAME,
        route_class_override=type("MCPRoute", (_GuardedRoute,), {"mcp_endpoint": endpoint}),
    )


def mcp_app(target: Suite | MCPRouter, *, path: str = "/mcp", title: str | None = None) -> FastAPI:
    """A FastAPI app serving ``target`` (a Suite or an MCPRouter) at ``path``.

    For serving a Suite on its own (``genmcp run``, tests); to add MCP to an existing app,
    include ``mcp_router(...)`` in it instead.
    """
    router = mcp_router(suite=target) if isinstance(target, Suite) else target
    app = FastAPI(title=title or f"genmcp: {router.suite.server_info['name']}")
    app.include_router(router, prefix=path)
    return app

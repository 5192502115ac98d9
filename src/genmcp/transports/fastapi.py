"""``mcp_router(...)``: MCP Streamable HTTP as a FastAPI ``APIRouter``.

``app.include_router(mcp_router(...), prefix="/mcp")`` serves MCP at ``/mcp``.
Without auth or dependencies the endpoint is a raw ASGI route inside the
router, so FastAPI's per-endpoint machinery costs nothing; so it is with an
``OAuthResource`` alone (or another ``transports.auth.Auth`` with a request check: it runs
inside the endpoint). With a plain auth dependency or other dependencies it is an ordinary
API route whose auth dependency's return value becomes ``channel.assigns``.

The endpoint itself (``transports.endpoint.MCPEndpoint``) serves both eras and
writes each Call as JSON or SSE; this module builds the router around it, its
lifespan (which shuts the Suite's live calls down) and ``mcp_app``.

With ``transports/endpoint.py``, the only modules that import Starlette and FastAPI.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from fastapi import APIRouter, Depends, FastAPI, params
from fastapi.routing import APIRoute
from starlette.requests import Request as HTTPRequest
from starlette.responses import Response as HTTPResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from genmcp.suite import Suite, ToolProvider
from genmcp.transports.auth import Auth, as_auth
from genmcp.transports.depends import remember_auth
from genmcp.transports.endpoint import ENDPOINTS, MCPEndpoint
from genmcp.transports.gcfreeze import freeze_startup_objects
from genmcp.transports.legacy import LegacyServer
from genmcp.transports.legacy.journal import polled_logged
from genmcp.transports.options import OPTION_NAMES, HTTPOptions
from genmcp.transports.startup import check_at_startup

__all__ = ["HTTPOptions", "MCPEndpoint", "MCPRouter", "mcp_app", "mcp_router"]


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


def _closing(
    suite: Suite, endpoint: MCPEndpoint, freeze_gc: bool
) -> Callable[[Any], contextlib.AbstractAsyncContextManager[None]]:
    """A lifespan that runs the startup checks (``startup``), starts the Suite (its shared
    catalog), freezes the start-up objects (``gcfreeze``) and, at shutdown, ends its live
    calls and listen streams and closes the auth's clients (``auth.aclose``, if it has one)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        check_at_startup(app, endpoint)
        await suite.start()  # scale-out: the shared catalog, before the first request
        if freeze_gc:
            freeze_startup_objects()
        try:
            yield
        finally:
            await suite.aclose()
            close_auth = getattr(endpoint.auth, "aclose", None)  # e.g. a verifier's pool
            if close_auth is not None:
                await close_auth()
            if endpoint.legacy is not None:  # scale-out: its one signal subscription
                await polled_logged(endpoint.options.shutdown_grace_s)  # closed streams' answers
                endpoint.legacy.close()

    return lifespan


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
            of the tail latency under load; ``transports.gcfreeze``); False leaves the
            collector alone.
        options: the endpoint's :class:`HTTPOptions` (hosts, origins, body cap and
            timeout, keepalive, send timeout, shutdown grace), as one object.
        **keywords: each field of :class:`HTTPOptions` by name (``allowed_hosts=[...]``,
            ``keepalive_s=5``; not together with ``options``); the rest go to ``Suite``
            (page_size, secret_key, instructions, ...).
    """
    options = _http_options(options, keywords)  # takes the HTTP options out of keywords
    if suite is None:
        if server_name is None or server_version is None:
            raise TypeError("mcp_router needs server_name and server_version (or suite=...)")
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
        sessions = LegacyServer(suite)
    endpoint = MCPEndpoint(suite, options, legacy=sessions, auth=checks, auth_by_route=not raw)
    router = MCPRouter(lifespan=_closing(suite, endpoint, freeze_gc))
    router.suite, router.endpoint = suite, endpoint
    router.auth = None if checks is None else checks.dependency
    for at in (path, path + "/") if not path.endswith("/") else (path,):  # no 307 for "/mcp/"
        if raw:
            route = Route(at or "/", endpoint, name=ROUTE_NAME, include_in_schema=False)
            route.path = at  # FastAPI joins the include prefix with this path
            router.routes.append(route)
        else:
            deps = list(dependencies or ())
            dependency = _no_auth if checks is None else checks.dependency
            _add_dependent_route(router, endpoint, dependency, deps, at)
    return router


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

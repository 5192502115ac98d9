"""``mcp_router(...)``: MCP Streamable HTTP as a FastAPI ``APIRouter``.

``app.include_router(mcp_router(...), prefix="/mcp")`` serves MCP at ``/mcp``.
Without auth or dependencies the endpoint is a raw ASGI route inside the
router, so FastAPI's per-endpoint machinery costs nothing; with them it is an
ordinary API route whose auth dependency's return value becomes
``channel.assigns``.

A call that answers before it streams anything gets plain JSON; the first
notification or ``channel.start_stream()`` switches the response to SSE
(sse-starlette) with keepalive comments. A client that goes away disconnects
the worker (cancel, or ``handle_close`` while streaming).

One endpoint serves both eras: ``protocol.versions.era_of`` picks the era of
each request; legacy (2025) sessions, their ``GET`` streams and ``DELETE`` go
to ``transports.legacy.LegacyServer``, everything else takes the 2026-07-28
path untouched.

The only module that imports Starlette and FastAPI.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from fastapi import APIRouter, Depends, FastAPI, HTTPException, params
from sse_starlette import EventSourceResponse
from starlette.requests import Request as HTTPRequest
from starlette.responses import Response as HTTPResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from genmcp.channel import FINAL, MESSAGE, Event, Pending
from genmcp.errors import MCPError
from genmcp.protocol.jsonrpc import (
    EnvelopeError,
    Notification,
    Request,
    Response,
    encode,
    error_response,
    parse,
)
from genmcp.protocol.jsonrpc import Message as JSONRPCMessage
from genmcp.protocol.versions import Era, era_of
from genmcp.suite import Suite, ToolProvider
from genmcp.transports.asgi import (
    HeaderView,
    content_type_problem,
    first_event,
    read_body,
    send_empty,
    send_json,
)
from genmcp.transports.http import LOCAL_HOSTS, MAX_BODY_BYTES, guard, modern_preflight
from genmcp.transports.legacy import Answer, LegacyServer
from genmcp.transports.legacy_call import END

__all__ = ["MCPEndpoint", "MCPRouter", "mcp_app", "mcp_router"]

SSE_HEADERS: Final = {"X-Accel-Buffering": "no", "Cache-Control": "no-store"}


class MCPRouter(APIRouter):
    """An ``APIRouter`` serving MCP; ``router.suite`` is the Suite behind it."""

    suite: Suite
    endpoint: MCPEndpoint


def _closing(suite: Suite) -> Callable[[Any], contextlib.AbstractAsyncContextManager[None]]:
    """A lifespan that ends the Suite's live calls and listen streams at shutdown."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await suite.aclose()

    return lifespan


class MCPEndpoint:
    """The ASGI endpoint serving one Suite over Streamable HTTP."""

    def __init__(
        self,
        suite: Suite,
        *,
        allowed_hosts: Iterable[str] | None = LOCAL_HOSTS,
        allowed_origins: Iterable[str] | None = None,
        max_body_bytes: int = MAX_BODY_BYTES,
        keepalive_s: float = 15.0,
        legacy: LegacyServer | None = None,
    ) -> None:
        self.suite = suite
        self.legacy = legacy
        self.allowed_hosts = None if allowed_hosts is None else frozenset(allowed_hosts)
        self.allowed_origins = None if allowed_origins is None else frozenset(allowed_origins)
        self.max_body_bytes = max_body_bytes
        self.keepalive_s = keepalive_s
        # auth: a per-operation check after parsing (OAuthResource.authorize_message)
        self.authorize: Callable[[Request, Mapping[str, Any], Suite], Any] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.serve(scope, receive, send, {}, guarded=False)

    def check_guard(self, headers: Mapping[str, str]) -> MCPError | None:
        """Origin and Host checks (before the body is read and before auth)."""
        return guard(headers, self.allowed_hosts, self.allowed_origins)

    async def serve(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        assigns: Mapping[str, Any],
        *,
        guarded: bool,
    ) -> None:
        """Answer one HTTP request with ``assigns`` from auth."""
        headers = HeaderView(scope["headers"])
        problem = None if guarded else self.check_guard(headers)
        if problem is None and scope["method"] != "POST":
            await self._not_post(scope, receive, send, headers, assigns)
            return
        if problem is None:
            problem = content_type_problem(headers)
        if problem is not None:
            await send_json(send, error_response(None, problem), problem.status)
            return
        body = await read_body(receive, headers, self.max_body_bytes)
        if body is None:
            failure = MCPError("body_too_large", f"Request body over {self.max_body_bytes} bytes")
            await send_json(send, error_response(None, failure), failure.status)
            return
        await self._dispatch(body, headers, scope, receive, send, assigns)

    async def _not_post(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        headers: Mapping[str, str],
        assigns: Mapping[str, Any],
    ) -> None:
        """GET opens a legacy session's stream, DELETE ends it; anything else is 405."""
        method, legacy = scope["method"], self.legacy
        if (
            legacy is None
            or method not in ("GET", "DELETE")
            or era_of(None, None, *_era_headers(headers), http_method=method) is Era.MODERN
        ):
            failure = MCPError("method_not_allowed", f"Method not allowed: {method}")
            allow = "POST" if legacy is None else "GET, POST, DELETE"
            await send_json(send, error_response(None, failure), failure.status, [("allow", allow)])
            return
        if method == "DELETE":
            await _send_answer(send, await legacy.delete(headers, assigns))
            return
        opened = await legacy.stream(headers, assigns)
        if isinstance(opened, Answer):
            await _send_answer(send, opened)
            return
        events = ({"data": encode(m).decode()} async for m in opened)
        stream = EventSourceResponse(events, ping=self.keepalive_s, headers=SSE_HEADERS, sep="\n")
        try:
            await stream(scope, receive, send)
        finally:
            opened.close()

    async def _dispatch(
        self,
        body: bytes,
        headers: Mapping[str, str],
        scope: Scope,
        receive: Receive,
        send: Send,
        assigns: Mapping[str, Any],
    ) -> None:
        try:
            message = parse(body)
        except EnvelopeError as exc:
            await send_json(send, error_response(exc.request_id, exc), exc.status)
            return
        if self.authorize is not None and isinstance(message, Request):  # auth: op scopes
            denied = self.authorize(message, assigns, self.suite)
            if denied is not None:
                await send_json(send, *denied)
                return
        if self.legacy is not None and _era(message, headers) is Era.LEGACY:
            answer = await self.legacy.post(message, headers, assigns)
            if isinstance(answer, Answer):
                await _send_answer(send, answer)
            else:
                await self._answer_pending(answer, scope, receive, send)
            return
        if isinstance(message, Notification):
            await send_empty(send, 202)
            return
        if not isinstance(message, Request):
            failure = MCPError(
                "invalid_request", "Invalid Request: responses are not accepted here"
            )
            await send_json(send, error_response(message.id, failure), failure.status)
            return
        try:
            meta = modern_preflight(headers, message, self.suite)
        except MCPError as exc:
            await send_json(send, error_response(message.id, exc), exc.status)
            return
        reply = await self.suite.handle(message, assigns, meta)
        if isinstance(reply, tuple):
            await send_json(send, *reply)
        else:
            await self._answer_pending(reply, scope, receive, send)

    async def _answer_pending(
        self, worker: Pending, scope: Scope, receive: Receive, send: Send
    ) -> None:
        await asyncio.sleep(0)  # let the worker take its first step: most calls end here
        event = worker.outbox.get_nowait()
        if event is None:
            event = await first_event(worker, receive)
            if event is None:
                return
        kind, payload = event
        if kind == FINAL:
            await send_json(send, *payload)
            return
        if kind == END:  # cancelled before anything was sent: an empty stream
            await send_empty(send, 200, b"text/event-stream")
            return
        stream = EventSourceResponse(
            _sse_events(worker, event),
            ping=self.keepalive_s,
            headers=SSE_HEADERS,
            sep="\n",
        )
        await stream(scope, receive, send)


async def _sse_events(worker: Pending, first: Event) -> AsyncIterator[dict[str, str]]:
    kind, payload = first
    try:
        while True:
            if kind == MESSAGE:
                yield {"data": encode(payload).decode()}
            elif kind == FINAL:
                yield {"data": encode(payload[0]).decode()}
                return
            elif kind == END:
                return
            kind, payload = await worker.outbox.get()
    finally:
        worker.disconnect()


def _era_headers(headers: Mapping[str, str]) -> tuple[str | None, str | None]:
    return headers.get("mcp-protocol-version"), headers.get("mcp-session-id")


def _era(message: JSONRPCMessage, headers: Mapping[str, str]) -> Era:
    if isinstance(message, Response):
        return era_of(None, None, *_era_headers(headers))
    return era_of(message.method, message.params, *_era_headers(headers))


async def _send_answer(send: Send, answer: Answer) -> None:
    if answer.body is None:
        await send_empty(send, answer.status)
    else:
        await send_json(send, answer.body, answer.status, answer.headers)


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
    auth: Callable[..., Any] | None = None,
    dependencies: Sequence[params.Depends] | None = None,
    path: str = "",
    allowed_hosts: Iterable[str] | None = LOCAL_HOSTS,
    allowed_origins: Iterable[str] | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    keepalive_s: float = 15.0,
    legacy: bool | LegacyServer = True,
    **suite_options: Any,
) -> MCPRouter:
    """Build an ``APIRouter`` that serves MCP; mount it with ``include_router``.

    Args:
        server_name: ``serverInfo.name`` (unless ``suite`` is given).
        server_version: ``serverInfo.version`` (unless ``suite`` is given).
        tools: tool classes or ``(ToolClass, arg)`` pairs.
        suite: an existing Suite to serve instead of building one.
        auth: a FastAPI dependency; its return value (a mapping, or any value
            stored as ``{"principal": value}``) becomes ``channel.assigns``; a
            Starlette ``Response`` answers the request instead (a challenge).
            It runs after the Origin/Host checks. ``genmcp.auth.OAuthResource`` is one.
        dependencies: more FastAPI dependencies for the endpoint.
        path: the route path inside the router (``""`` with a prefix).
        allowed_hosts: host names accepted in ``Host`` and ``Origin``;
            loopback names by default; ``["*"]`` or None accepts every host.
        allowed_origins: extra exact origins accepted (``https://app.example``).
        max_body_bytes: request body cap (413 beyond it).
        keepalive_s: seconds between SSE keepalive comments.
        legacy: serve 2025 session clients on the same endpoint (True, the default), not
            (False: 2026-07-28 only; GET and DELETE answer 405), or with a configured
            ``LegacyServer`` (session registry, broker, session lifetime, ...).
        **suite_options: passed to ``Suite`` (page_size, secret_key, instructions, ...).
    """
    if suite is None:
        if server_name is None or server_version is None:
            raise TypeError("mcp_router needs server_name and server_version (or suite=...)")
        suite = Suite(
            server_name=server_name, server_version=server_version, tools=tools, **suite_options
        )
    elif suite_options or tools:
        raise TypeError("give tools and Suite options to the Suite, not with suite=...")
    if isinstance(legacy, LegacyServer) and legacy.suite is not suite:
        raise TypeError("the LegacyServer given as legacy= must serve the router's Suite")
    endpoint = MCPEndpoint(
        suite,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
        max_body_bytes=max_body_bytes,
        keepalive_s=keepalive_s,
        legacy=legacy
        if isinstance(legacy, LegacyServer)
        else LegacyServer(suite)
        if legacy
        else None,
    )
    endpoint.authorize = getattr(auth, "authorize_message", None)  # auth: OAuthResource
    router = MCPRouter(lifespan=_closing(suite))
    router.suite, router.endpoint = suite, endpoint
    if auth is None and not dependencies:
        route = Route(path or "/", endpoint, name="mcp", include_in_schema=False)
        route.path = path  # FastAPI joins the include prefix with this path
        router.routes.append(route)
        return router
    _add_dependent_route(router, endpoint, auth or _no_auth, list(dependencies or ()), path)
    return router


def _add_dependent_route(
    router: APIRouter,
    endpoint: MCPEndpoint,
    auth: Callable[..., Any],
    dependencies: list[params.Depends],
    path: str,
) -> None:
    def check_origin(request: HTTPRequest) -> None:
        problem = endpoint.check_guard({k.lower(): v for k, v in request.headers.items()})
        if problem is not None:
            raise HTTPException(problem.status, problem.message)

    async def mcp(request: HTTPRequest, assigns: Any = Depends(auth)) -> HTTPResponse:
        if isinstance(assigns, HTTPResponse):  # auth: the dependency answered (a challenge)
            return assigns
        return _Delegate(endpoint, _as_assigns(assigns))

    router.add_api_route(
        path,
        mcp,
        methods=["POST", "GET", "DELETE"],
        dependencies=[Depends(check_origin), *dependencies],
        include_in_schema=False,
        name="mcp",
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

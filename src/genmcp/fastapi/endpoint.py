"""``MCPEndpoint``: the ASGI endpoint that serves one Suite over Streamable HTTP.

It guards the request (Origin, Host, content type, body cap), parses it, picks its era,
hands it to the Suite (2026-07-28) or the legacy session server (2025 revisions), and gives
the Call it gets back to the relay's HTTP writer (``transports.http.relay.respond``: JSON, or an
SSE stream written by ``transports.http.sse``). A legacy session's GET stream is written by the
same SSE writer (``sse.write_feed``). Each request is one :class:`_Exchange` (its ASGI
triple, headers and auth's assigns) handed from step to step. The status of a refusal or a
session fault is chosen here, from its reason (``errors.http_status``).

With ``fastapi/router.py`` (the router around it), the only modules that import
Starlette. Its streams learn that the server stops from ``compat.server_exit`` (uvicorn's).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, Final, NamedTuple

from starlette.types import Receive, Scope, Send

from genmcp.call.relay import Relay
from genmcp.context import bind, unbind
from genmcp.errors import MCPError, http_status, retry_after
from genmcp.fastapi.compat import server_exit
from genmcp.fastapi.depends import http_context
from genmcp.middleware.chain import NO_CONTEXT, TransportContext, refusal
from genmcp.protocol.jsonrpc import (
    EnvelopeError,
    Notification,
    Request,
    RequestId,
    Response,
    error_response,
    parse,
    parse_in_steps,
)
from genmcp.protocol.jsonrpc import Message as JSONRPCMessage
from genmcp.protocol.languages import ACCEPT_LANGUAGE_META, mirrors
from genmcp.protocol.versions import Era, era_of
from genmcp.sessions import LegacyServer
from genmcp.suite import Suite
from genmcp.transports.http.asgi import (
    BodyDeadlines,
    HeaderView,
    content_type_problem,
    read_body,
    send_empty,
    send_json,
    send_refusal,
)
from genmcp.transports.http.auth import RESPONSE_HEADERS, Auth
from genmcp.transports.http.options import HTTPOptions
from genmcp.transports.http.registry import Registry
from genmcp.transports.http.relay import respond
from genmcp.transports.http.rules import (
    guard,
    modern_preflight,
)
from genmcp.transports.http.sse import SendTimeout, ShutdownHub, StreamOptions, write_feed

__all__ = ["ENDPOINTS", "MCPEndpoint"]

log = logging.getLogger("genmcp")

_DEFAULTS: Final = HTTPOptions()
# Members read on every request, bound once: on Python 3.11 a read such as ``Era.LEGACY`` goes
# through EnumType's ``__getattr__`` hook (about 1k instructions); a module name does not.
_LEGACY: Final = Era.LEGACY


class MCPEndpoint:
    """The ASGI endpoint serving one Suite over Streamable HTTP.

    Built by ``mcp_router``. ``options`` are its HTTP options; ``legacy`` serves 2025
    session clients (None: 2026-07-28 only). ``auth`` checks callers: in the endpoint
    (``auth.request_check``, before the body) unless ``auth_by_route`` (an API route runs
    ``auth.dependency`` first), and per parsed request (``auth.message_check``).
    """

    def __init__(
        self,
        suite: Suite,
        options: HTTPOptions = _DEFAULTS,
        *,
        legacy: LegacyServer | None = None,
        auth: Auth | None = None,
        auth_by_route: bool = False,
    ) -> None:
        self.suite = suite
        self.options = options
        self.legacy = legacy
        self.auth = auth
        # the hooks the request path calls; None: no call at all (no auth, the hot path)
        self.authenticate = None if auth is None or auth_by_route else auth.request_check
        self.authorize = None if auth is None else auth.message_check
        timeout = options.body_timeout_s
        self._deadlines = None if timeout is None else BodyDeadlines(timeout)
        # how streams are written; its hub tells open streams the server stops
        self._streams = StreamOptions(
            options.keepalive_s,
            options.send_timeout_s,
            options.shutdown_grace_s,
            ShutdownHub(server_exit),
            options.drain_s,
        )
        self._languages = suite.sep2792  # SEP-2792 (None: off): headers mirrored
        ENDPOINTS.add(self, self)  # stdio and the start-up checks find it by its route

    def check_guard(self, headers: Mapping[str, str]) -> MCPError | None:
        """Origin and Host checks (before the body is read and before auth)."""
        return guard(headers, self.options.allowed_hosts, self.options.allowed_origins)

    async def refuse_unguarded(self, scope: Scope, receive: Receive, send: Send) -> bool:
        """Answer a request the Origin/Host guard refuses, as ``serve`` would; True if so.

        For routes that run more before ``serve`` (auth dependencies): call it first.
        """
        headers = HeaderView(scope["headers"])
        problem = self.check_guard(headers)
        if problem is None:
            return False
        await _refuse(send, receive, headers, problem)
        return True

    async def serve(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        assigns: Mapping[str, Any] | None = None,
        *,
        guarded: bool = False,
    ) -> None:
        """Answer one HTTP request with ``assigns`` from auth (None: none yet), its
        Origin/Host already checked when ``guarded``. Called as an ASGI app (the raw route),
        the endpoint is this method itself: no wrapper coroutine per request (the hot path).

        The request's app context (``channel.app`` / ``.state`` / ``.resolve``, see
        ``genmcp.context``) is bound for its whole answer; yield dependencies resolved by the
        call end in the call's task, before its answer.
        """
        context = http_context(scope)
        token = bind(context)
        try:  # one coroutine, not two: each layer costs on every resume (the hot path)
            headers = HeaderView(scope["headers"])
            hosts, origins = self.options.allowed_hosts, self.options.allowed_origins
            problem = None if guarded else guard(headers, hosts, origins)
            if problem is None and self.authenticate is not None:  # auth: before the body
                found = await self.authenticate(scope, self.suite)
                if isinstance(found, tuple):
                    await send_refusal(send, receive, headers, *found)
                    return
                assigns = found
            if assigns is None:
                assigns = {}
            if RESPONSE_HEADERS in assigns:  # an auth's headers for this answer (rare)
                send, assigns = _adding_headers(send, assigns)
            # built by tuple's own __new__: no Python frame, it runs on every request
            exchange = tuple.__new__(_Exchange, (scope, receive, send, headers, assigns))
            if problem is None and scope["method"] != "POST":
                await self._not_post(exchange)
                return
            if problem is None:
                problem = content_type_problem(headers)
            if problem is not None:
                await exchange.refuse(problem)
                return
            body = await self._body(exchange)
            if body is not None:
                await self._dispatch(body, exchange)
        finally:
            unbind(token)

    __call__ = serve  # the ASGI app: (scope, receive, send), no assigns, not guarded

    async def _body(self, exchange: _Exchange) -> bytes | None:
        """The request body; None when it was answered instead (over the cap, too slow)."""
        deadlines, receive, headers = self._deadlines, exchange.receive, exchange.headers
        cap = self.options.max_body_bytes
        if deadlines is None:
            body = await read_body(receive, headers, cap)
        else:
            reader = deadlines.enter()
            try:
                body = await read_body(receive, headers, cap)
            except asyncio.CancelledError:
                if not deadlines.timed_out(reader):
                    raise
                failure = MCPError(  # a body this slow is not drained: answer and close
                    "body_timeout",
                    "Request Timeout: the body did not arrive within "
                    f"{self.options.body_timeout_s} s",
                )
                await exchange.error(None, failure, [("connection", "close")])
                return None
            finally:
                deadlines.leave(reader)
        if body is None:
            failure = MCPError("body_too_large", f"Request body over {cap} bytes")
            await exchange.refuse(failure)
        return body

    async def _not_post(self, exchange: _Exchange) -> None:
        """GET opens a legacy session's stream, DELETE ends it; anything else is 405."""
        method, legacy, headers = exchange.scope["method"], self.legacy, exchange.headers
        if (
            legacy is None
            or method not in ("GET", "DELETE")
            or era_of(None, None, *_era_headers(headers), http_method=method) is Era.MODERN
        ):
            failure = MCPError("method_not_allowed", f"Method not allowed: {method}")
            allow = "POST" if legacy is None else "GET, POST, DELETE"
            await exchange.refuse(failure, [("allow", allow)])
            return
        token, version = _era_headers(headers)[::-1]
        assigns = exchange.assigns
        try:
            if method == "DELETE":
                await legacy.delete(token, version, assigns, TransportContext("tcp", "http"))
                await send_empty(exchange.send, 200)
                return
            opened = await legacy.stream(token, version, assigns, headers.get("last-event-id"))
        except MCPError as exc:
            await exchange.error(None, exc)
            return
        streams, retry = self._streams, legacy.stream_retry_ms
        try:  # resumable: its events carry ids
            await write_feed(opened.sse(), exchange.receive, exchange.send, streams, retry_ms=retry)
        except SendTimeout:  # a GET reader that stopped reading: disconnected
            log.info("an SSE reader took over %s s to accept an event", streams.send_timeout_s)
        finally:
            opened.close()

    async def _dispatch(self, body: bytes, exchange: _Exchange) -> None:
        headers, assigns = exchange.headers, exchange.assigns
        try:
            message = parse(body) if len(body) <= STEPPED_BODY_BYTES else await _stepped(body)
        except EnvelopeError as exc:
            if self.legacy is not None:  # an unusable answer fails the server request it answers
                version, token = _era_headers(headers)
                exc = await self.legacy.unusable(body, exc, token, version, assigns)
            await exchange.error(exc.request_id, exc)
            return
        checks = self.authorize is not None or self._languages is not None  # else: hot path
        if checks and isinstance(message, Request) and await self._refused(message, exchange):
            return
        legacy = self.legacy
        if legacy is not None:  # the era rules read the two headers once (the hot path)
            version, token = headers.get("mcp-protocol-version"), headers.get("mcp-session-id")
            era = (  # _era, inline: no frame (the hot path)
                era_of(None, None, version, token)
                if isinstance(message, Response)
                else era_of(message.method, message.params, version, token)
            )
            if era is _LEGACY:
                await self._legacy_post(legacy, message, exchange, token, version)
                return
        if isinstance(message, Notification):
            await send_empty(exchange.send, 202)
            return
        if not isinstance(message, Request):
            failure = MCPError(
                "invalid_request", "Invalid Request: responses are not accepted here"
            )
            await exchange.error(message.id, failure)
            return
        suite = self.suite
        # what the middleware may read; without middleware nobody does (the hot path)
        context = TransportContext("tcp", "http", headers) if suite.middleware else NO_CONTEXT
        try:
            meta = modern_preflight(headers, message, suite.supported_versions, suite.header_params)
        except MCPError as exc:  # answered through the chain, so middleware sees it too
            call = await suite.handle(message, assigns, context=context, local=refusal(exc))
        else:
            call = await suite.handle(message, assigns, meta, context=context)
        await respond(
            Relay(call),
            exchange.receive,
            exchange.send,
            self._streams,
            headers=headers,
            languages=self._languages,
        )

    async def _refused(self, message: Request, exchange: _Exchange) -> bool:
        """Answer, before any stream, a request the operation's scopes refuse (auth) or
        whose languages do not mirror (SEP-2792); True when answered."""
        if self.authorize is not None:
            denied = self.authorize(message, exchange.assigns, self.suite)
            if denied is not None:  # (body, status, headers)
                await send_json(exchange.send, *denied)
                return True
        return self._languages is not None and await _language_refused(message, exchange)

    async def _legacy_post(
        self,
        legacy: LegacyServer,
        message: JSONRPCMessage,
        exchange: _Exchange,
        token: str | None,
        version: str | None,
    ) -> None:
        """A POST of a 2025 session (``token``, ``version``: its two headers)."""
        # what the middleware may read; without middleware nobody does (the hot path)
        middleware = self.suite.middleware
        context = TransportContext("tcp", "http", exchange.headers) if middleware else NO_CONTEXT
        try:
            answer = await legacy.post(message, token, version, exchange.assigns, context)
        except MCPError as exc:  # a session fault: the 2025 texts send no id when there is none
            await exchange.error(message.id if isinstance(message, Request) else None, exc)
            return
        if answer.call is None:
            await send_empty(exchange.send, 202)
            return
        extra = () if answer.session_id is None else (("mcp-session-id", answer.session_id),)
        # asked only when no answer is waiting (most calls have one: JSON, no stream)
        ended = (
            None
            if answer.call.answers_now
            else partial(legacy.ended, message, token, version, exchange.assigns)
        )
        await respond(
            Relay(answer.call, answer.codec),
            exchange.receive,
            exchange.send,
            self._streams,
            legacy=True,
            extra=extra,
            journal=answer.journal,
            ended=ended,
            expires_at=answer.expires_at,
            languages=self._languages,
        )


STEPPED_BODY_BYTES: Final = 256 * 1024
"""Bodies larger than this are decoded in steps, the event loop running between them."""


async def _stepped(body: bytes) -> JSONRPCMessage:
    """Parse a large body a step at a time (``protocol.json_steps``), yielding to the loop."""
    steps = parse_in_steps(body)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            message: JSONRPCMessage = done.value
            return message
        await asyncio.sleep(0)


class _Exchange(NamedTuple):
    """One HTTP request being answered: its ASGI triple, its headers and auth's assigns."""

    scope: Scope
    receive: Receive
    send: Send
    headers: HeaderView
    assigns: Mapping[str, Any]

    async def refuse(self, failure: MCPError, extra: Sequence[tuple[str, str]] = ()) -> None:
        """Refuse the request before its body was read (``_refuse``)."""
        await _refuse(self.send, self.receive, self.headers, failure, extra)

    async def error(
        self,
        request_id: RequestId | None,
        failure: MCPError,
        extra: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Answer with ``failure`` as a JSON-RPC error, its status from its reason."""
        await _send_error(self.send, request_id, failure, extra)


ENDPOINTS: Final[Registry[MCPEndpoint]] = Registry()
"""The endpoint behind each route's ASGI handler (``transports.http.registry``)."""


async def _refuse(
    send: Send,
    receive: Receive,
    headers: Mapping[str, str],
    failure: MCPError,
    extra: Sequence[tuple[str, str]] = (),
) -> None:
    """A refusal sent before the body was read: readable by the client, then closed."""
    refusal = error_response(None, failure)
    await send_refusal(send, receive, headers, refusal, http_status(failure.reason), extra)


async def _send_error(
    send: Send,
    request_id: RequestId | None,
    failure: MCPError,
    extra: Sequence[tuple[str, str]] = (),
) -> None:
    status, extra = http_status(failure.reason), (*extra, *retry_after(failure.reason))
    await send_json(send, error_response(request_id, failure), status, extra)


async def _language_refused(message: Request, exchange: _Exchange) -> bool:
    """Answer 400 -32020 (both eras, before the Suite) when the request's
    ``Accept-Language`` does not mirror its ``_meta`` ``acceptLanguage`` (SEP-2792)."""
    try:
        mirrors(_lines(exchange.scope, b"accept-language"), _accepted(message))
    except MCPError as exc:
        await exchange.error(message.id, exc)
        return True
    return False


def _lines(scope: Scope, name: bytes) -> list[str]:
    """Every value of the request header ``name`` (lower case), in order."""
    return [value.decode("latin-1") for key, value in scope["headers"] if key == name]


def _accepted(message: Request) -> Any:
    """The request's ``_meta`` ``acceptLanguage`` (None when it has none)."""
    meta = message.params.get("_meta") if isinstance(message.params, Mapping) else None
    return meta.get(ACCEPT_LANGUAGE_META) if isinstance(meta, Mapping) else None


def _adding_headers(send: Send, assigns: Mapping[str, Any]) -> tuple[Send, Mapping[str, Any]]:
    """``send`` adding the auth's :data:`RESPONSE_HEADERS` to the response's start, and the
    assigns without them (a tool never sees the entry)."""
    rest = {name: value for name, value in assigns.items() if name != RESPONSE_HEADERS}
    extra = [(name.encode("latin-1"), value.encode("latin-1"))
             for name, value in assigns[RESPONSE_HEADERS]]  # fmt: skip

    async def adding(message: Any) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message["headers"], *extra]}
        await send(message)

    return adding, rest


def _era_headers(headers: Mapping[str, str]) -> tuple[str | None, str | None]:
    return headers.get("mcp-protocol-version"), headers.get("mcp-session-id")

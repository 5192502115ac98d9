"""``Connection``: one server's wire, era and session; it turns a request into a reply.

The first request learns the era as the spec says. HTTP: ``server/discover`` at 2026-07-28;
a result naming 2026-07-28 (or a modern error) means a modern server, anything else (an
HTTP error without a modern JSON-RPC error, a -32022 naming only 2025 revisions) opens a
2025 session. stdio: the same, and no answer to ``server/discover`` within
``PROBE_TIMEOUT`` counts as 2025 too. ``protocol=`` fixes the era instead. With a response
cache (:attr:`Connection.cache`), a ``server/discover`` result kept as its ``ttlMs`` and
``cacheScope`` allow (SEP-2549 hints it too) answers the probe: a client in another process
sharing the store learns the era and the server without asking.

Then :meth:`Connection.send` builds each request for the era (2026-07-28: ``_meta``
version, capabilities, client info, and the ``Mcp-*`` headers; 2025: the session's id and
revision, ``logging/setLevel`` when the level changes), sends it with the request's
``Sink`` as ``on_message``, and cancels it on ``asyncio.CancelledError`` the era's way
(closing the stream; ``notifications/cancelled`` in a session or over stdio). A 2025
session over HTTP also reads its GET stream, for the server requests and changes sent
there, and for a response the server sends there instead of on its request's own stream
(the request takes whichever comes first). What no request claims goes to the listeners
(``add_listener``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from genmcp.client.cache import ResponseCache
from genmcp.client.errors import ClientError, RPCError
from genmcp.client.exchange import Handlers, Sink
from genmcp.client.http import HTTPWire, Reply
from genmcp.client.inputs import Inputs, resolve
from genmcp.client.limits import DEFAULT_LIMITS, ClientLimits, within
from genmcp.client.session import LegacySession, initialize_request
from genmcp.client.stdio import StdioWire
from genmcp.protocol.client import Message, build_request, is_modern_error, request_headers
from genmcp.protocol.methods import (
    LOGGING_SET_LEVEL,
    SERVER_DISCOVER,
    SUBSCRIPTIONS_LISTEN,
    TASKS_PREFIX,
)
from genmcp.protocol.tasks import EXTENSION as TASKS_EXTENSION
from genmcp.protocol.versions import LATEST, LEGACY_VERSIONS, META_SERVER_INFO

__all__ = ["Connection", "Listener", "check_protocol"]

logger = logging.getLogger("genmcp.client")

PROBE_TIMEOUT: Final = 30.0
"""Seconds a stdio server gets to answer ``server/discover`` before it counts as 2025: its
start-up is in it (seconds on a loaded machine); a 2025 server usually answers an unknown
method with an error at once, so only a silent one waits this long."""
STREAM_PAUSE: Final = 1.0
"""Seconds between a 2025 GET stream's end and the next one."""
Listener = Callable[[Message], Awaitable[None]]


def check_protocol(protocol: str | None) -> None:
    """A ``ValueError`` naming the known revisions unless ``protocol`` (``Client(protocol=)``,
    which skips the probe) is one this client speaks, or None (probe)."""
    if protocol is not None and protocol != LATEST and protocol not in LEGACY_VERSIONS:
        known = ", ".join((LATEST, *LEGACY_VERSIONS))
        raise ValueError(f"protocol {protocol!r} is not one this client speaks ({known})")


class Connection:
    """One server: its wire, its era, its session (see the module docstring)."""

    def __init__(
        self,
        wire: HTTPWire | StdioWire,
        *,
        protocol: str | None,
        capabilities: Mapping[str, Any],
        client_info: Mapping[str, Any],
        inputs: Inputs,
        defaults: Handlers,
        token: str | Callable[[], Any] | None = None,
        headers: Mapping[str, str] | None = None,
        limits: ClientLimits = DEFAULT_LIMITS,
    ) -> None:
        self.wire, self.url = wire, wire.url
        self.limits = limits
        self.protocol = protocol
        self.capabilities, self.client_info = dict(capabilities), dict(client_info)
        self.inputs, self.defaults = inputs, defaults
        self.era: str | None = None
        self.server: dict[str, Any] = {}
        self.cache: ResponseCache | None = None
        """The client's response cache: a kept ``server/discover`` result answers the probe."""
        self.session: LegacySession | None = None
        self.stream_open = asyncio.Event()
        """Set once a 2025 session's GET stream has answered (or failed)."""
        self._token, self._headers = token, dict(headers or {})
        self._ids = itertools.count(1)
        self._listeners: set[Listener] = set()
        self._connecting = asyncio.Lock()
        self._standalone: asyncio.Task[None] | None = None
        self._pending: dict[Any, asyncio.Future[Message]] = {}
        """A 2025 session's requests in flight over HTTP, by id: the GET stream may answer."""
        if isinstance(wire, StdioWire):
            wire.unrouted = self.unrouted

    @property
    def server_info(self) -> dict[str, Any]:
        """The server's ``name``, ``version``... (``_meta`` serverInfo, or the 2025 one)."""
        meta = self.server.get("_meta")
        meta = meta if isinstance(meta, Mapping) else {}
        found = self.server.get("serverInfo") or meta.get(META_SERVER_INFO) or {}
        return dict(found) if isinstance(found, Mapping) else {}

    @property
    def server_capabilities(self) -> dict[str, Any]:
        """The capabilities the server declared."""
        found = self.server.get("capabilities")
        return dict(found) if isinstance(found, Mapping) else {}

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Get the messages no request claims (2025 changes); returns the remover."""
        self._listeners.add(listener)
        return lambda: self._listeners.discard(listener)

    async def aclose(self) -> None:
        """End a 2025 session (``DELETE``), stop a stdio server, close the pool."""
        session, self.session = self.session, None
        standalone, self._standalone = self._standalone, None
        if standalone is not None:
            standalone.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await standalone
        if session is not None and isinstance(self.wire, HTTPWire):
            await self.wire.delete(await self.http_headers(session.headers()))
        await self.wire.aclose()

    # -- requests -------------------------------------------------------------------------

    async def send(
        self,
        method: str,
        params: Mapping[str, Any] | None,
        handlers: Handlers,
        *,
        progress: bool = False,
        log_level: str | None = None,
        meta: Mapping[str, Any] | None = None,
        capabilities: Mapping[str, Any] | None = None,
        header_params: Mapping[str, str] | None = None,
    ) -> Reply:
        """Send one request in the era; the reply (its ``message`` holds result or error).

        Under the deadline (``ClientLimits.deadline_s``), except ``subscriptions/listen``."""
        await self.ensure_era()
        deadline = None if method == SUBSCRIPTIONS_LISTEN else self.limits.deadline_s
        async with within(deadline, self.url, method) as clock:
            return await self._send(
                method, params, handlers, clock.paused, progress=progress,
                log_level=log_level, meta=meta, capabilities=capabilities,
                header_params=header_params,
            )  # fmt: skip

    async def _send(
        self,
        method: str,
        params: Mapping[str, Any] | None,
        handlers: Handlers,
        pause: Callable[[], contextlib.AbstractAsyncContextManager[None]],
        *,
        progress: bool,
        log_level: str | None,
        meta: Mapping[str, Any] | None,
        capabilities: Mapping[str, Any] | None,
        header_params: Mapping[str, str] | None,
    ) -> Reply:
        request_id = next(self._ids)
        token = f"progress-{request_id}" if progress else None
        session = self.session
        if session is not None:
            if log_level is not None and log_level != session.log_level:
                await self._set_level(session, log_level)
            message = session.request(method, params, request_id, token, meta)
            headers = session.headers()
        else:
            declared = {**self.capabilities, **(capabilities or {})}
            if method.startswith(TASKS_PREFIX) or _listens_to_tasks(method, params):
                declared["extensions"] = {**declared.get("extensions", {}), TASKS_EXTENSION: {}}
            message = build_request(
                method, params, request_id, version=LATEST, capabilities=declared,
                client_info=self.client_info, progress_token=token, log_level=log_level,
                meta=meta,
            )  # fmt: skip
            headers = request_headers(message, header_params)
        sink = Sink(handlers, self.inputs, self.reply, self.unrouted, pause)
        try:
            if isinstance(self.wire, StdioWire):
                return await self.wire.send(message, None, sink)
            sent = await self.http_headers(headers)
            resume = sent if session is not None else None
            endless = method == SUBSCRIPTIONS_LISTEN
            sending = self.wire.send(
                message, sent, sink, resume=resume, on_resume=sink.resuming, endless=endless
            )
            if session is None:
                return await sending
            return await self._claimable(request_id, sending)
        except asyncio.CancelledError:
            if session is not None and isinstance(self.wire, HTTPWire):
                with contextlib.suppress(ClientError):
                    await asyncio.shield(self.reply(LegacySession.cancelled(request_id)))
            raise

    async def reply(self, message: Message) -> None:
        """Send a response or notification (a 2025 server request's answer, a cancel)."""
        if isinstance(self.wire, StdioWire):
            await self.wire.post(message)
            return
        headers = self.session.headers() if self.session is not None else request_headers(message)
        async with within(self.limits.deadline_s, self.url, "a reply"):
            await self.wire.send(message, await self.http_headers(headers))

    async def _claimable(self, request_id: int, sending: Awaitable[Reply]) -> Reply:
        """A session request's reply: from its own stream, or the GET stream's, first come."""
        arrived: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = arrived
        own = asyncio.ensure_future(sending)
        try:
            await asyncio.wait((own, arrived), return_when=asyncio.FIRST_COMPLETED)
            return own.result() if own.done() else Reply(200, {}, arrived.result())
        finally:
            del self._pending[request_id]
            if not own.done():
                own.cancel()  # the response came on the GET stream: stop reading our own
                with contextlib.suppress(asyncio.CancelledError, ClientError):
                    await own

    async def unrouted(self, message: Message) -> None:
        """A message no request claims: a server request, a response that came on the GET
        stream (its request's), or a change for the listeners."""
        if "id" in message and "method" in message:
            await Sink(self.defaults, self.inputs, self.reply)(message)
            return
        waiting = self._pending.get(message.get("id")) if "method" not in message else None
        if waiting is not None:
            if not waiting.done():
                waiting.set_result(message)
            return
        for listener in list(self._listeners):
            await listener(message)

    async def http_headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """``headers`` plus the client's own and the bearer token."""
        found = {**headers, **self._headers}
        if self._token is not None:
            token = self._token() if callable(self._token) else self._token
            found["authorization"] = f"Bearer {await resolve(token)}"
        return found

    async def _set_level(self, session: LegacySession, level: str) -> None:
        session.log_level = level
        if "logging" in (session.server.get("capabilities") or {}):
            reply = await self.send(LOGGING_SET_LEVEL, {"level": level}, Handlers())
            if reply.message is not None and "error" in reply.message:
                logger.info("%s refused logging/setLevel %s", self.url, level)

    # -- the era --------------------------------------------------------------------------

    async def ensure_era(self) -> None:
        """Learn the era (once): the probe, a session, or what ``protocol`` said."""
        if self.era is not None:
            return
        async with self._connecting, within(self.limits.deadline_s, self.url, "connecting"):
            if self.era is not None:
                return
            if self.protocol in LEGACY_VERSIONS:
                refused = await self._open_session(self.protocol)
                if refused is not None:
                    why = f"did not open a {self.protocol} session: {refused}"
                    raise ClientError(f"{self.url} {why}")
            elif self.protocol == LATEST:
                self.era = LATEST
            else:
                await self._probe()

    async def _probe(self) -> None:
        """``server/discover`` first (a kept result of it, if the cache has one); a session
        when the answer is not a modern server's."""
        generation = None
        if self.cache is not None:
            found, generation = await self.cache.get(SERVER_DISCOVER, {}, counted=False)
            if isinstance(found, Mapping) and LATEST in (found.get("supportedVersions") or ()):
                self.era, self.server = LATEST, dict(found)
                return
        failure: ClientError
        for _ in range(2):
            message = build_request(
                SERVER_DISCOVER, {}, next(self._ids), version=LATEST,
                capabilities=self.capabilities, client_info=self.client_info,
            )  # fmt: skip
            try:
                reply = await self._discover(message)
            except ClientError as exc:
                if exc.status is None or exc.status in (401, 403):
                    raise  # nothing answered, or it wants credentials: no session would help
                failure = exc
                break
            result = (reply.message or {}).get("result")
            if isinstance(result, Mapping) and LATEST in (result.get("supportedVersions") or ()):
                self.era, self.server = LATEST, dict(result)
                if self.cache is not None and generation is not None:
                    await self.cache.put(SERVER_DISCOVER, {}, result, generation)
                return
            error = (reply.message or {}).get("error")
            failure = RPCError.from_error(error, status=reply.status)
            if is_modern_error(error) and (error or {}).get("code") == -32022:
                continue  # it named 2026-07-28: ask again (version negotiation)
            if reply.status in (401, 403) or is_modern_error(error):
                self.era = LATEST
                raise failure
            if isinstance(result, Mapping):
                failure = ClientError(f"{self.url} answered server/discover without "
                                      f"supportedVersions naming {LATEST}")  # fmt: skip
            break
        if await self._open_session(_newest(failure)) is not None:
            raise failure

    async def _discover(self, message: Message) -> Reply:
        if isinstance(self.wire, StdioWire):
            try:  # not wait_for: on 3.11 it can swallow a cancel that lands as it ends
                async with asyncio.timeout(PROBE_TIMEOUT):
                    return await self.wire.send(message)
            except TimeoutError:
                silent = f"{self.url!r} did not answer server/discover"
                raise ClientError(silent, status=0) from None
        headers = await self.http_headers(request_headers(message))
        return await self.wire.send(message, headers)

    async def _open_session(self, version: str) -> str | None:
        """The 2025 handshake; None when the server opened a session, else why not."""
        message = initialize_request(
            f"init-{next(self._ids)}", version, self.capabilities, self.client_info
        )
        try:
            if isinstance(self.wire, StdioWire):
                reply = await self.wire.send(message)
            else:
                headers = {"accept": "application/json, text/event-stream",
                           "content-type": "application/json"}  # fmt: skip
                reply = await self.wire.send(message, await self.http_headers(headers))
        except ClientError as exc:
            return str(exc) or type(exc).__name__
        session_id = reply.headers.get("mcp-session-id")
        session = LegacySession.accept((reply.message or {}).get("result"), session_id)
        if session is None:
            return f"HTTP {reply.status}, {reply.message!r}"[:500]
        self.session, self.era, self.server = session, session.version, session.server
        await self.reply(session.initialized())
        if isinstance(self.wire, HTTPWire):
            self._standalone = asyncio.create_task(self._server_stream(self.wire, session))
        return None

    async def _server_stream(self, wire: HTTPWire, session: LegacySession) -> None:
        """The session's GET stream: server requests and changes not tied to a request."""
        while self.session is session:
            try:
                headers = await self.http_headers(session.headers())
                status = await wire.stream(
                    headers, self.unrouted, on_open=lambda _: self.stream_open.set()
                )
            except ClientError as exc:
                logger.debug("%s: the session's GET stream failed: %s", self.url, exc)
                self.stream_open.set()
                return
            if status != 200:
                return  # 405: the server offers none
            await asyncio.sleep(STREAM_PAUSE)


def _newest(failure: ClientError) -> str:
    """The 2025 revision to open a session at: the newest the server named, or ours."""
    data = failure.data if isinstance(failure, RPCError) else None
    named = data.get("supported") if isinstance(data, Mapping) else None
    for version in LEGACY_VERSIONS:
        if isinstance(named, list) and version in named:
            return version
    return LEGACY_VERSIONS[0]


def _listens_to_tasks(method: str, params: Mapping[str, Any] | None) -> bool:
    """A ``subscriptions/listen`` naming ``taskIds``: it needs the Tasks extension declared."""
    if method != SUBSCRIPTIONS_LISTEN or not isinstance(params, Mapping):
        return False
    notifications = params.get("notifications")
    return isinstance(notifications, Mapping) and bool(notifications.get("taskIds"))

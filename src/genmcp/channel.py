"""The Channel: what a hook holds to talk back to the client during one request.

A Channel is built for each request in flight (``genmcp.call.Call``) and lent to the
behaviour's hooks (they never construct one). It carries the request's read-only ``meta``
and the ``assigns`` auth put there, its :class:`Mailbox`, and sends progress, logs and
notifications as typed events (``genmcp.events``) on the request's :class:`Outbox`, which
the transport drains. Every send returns a bool: False when the channel is closed (the
client went away) or the send does not apply (no ``progressToken``, log level filtered
out); a send never raises.

Sends and ``mailbox.send`` are safe from any thread, so a plain ``def call`` running in a
worker thread can report progress too.

The outbox (``genmcp.outbox``) is bounded for notifications: past
:data:`~genmcp.outbox.OUTBOX_CAPACITY`, a send returns False.

Mailbox semantics: ``send`` returns False once the call ended (the message is dropped and
logged at debug level) or when the mailbox holds :data:`MAILBOX_CAPACITY` messages; the call
receives them one at a time while it streams.

Imports asyncio and genmcp's pure modules only; never a web framework.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine, Iterable, Mapping
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any, Final, final

from genmcp.context import AppContext, AppState, Dependencies, current
from genmcp.errors import missing_capability
from genmcp.events import STREAM_START, Interim, StreamStart
from genmcp.outbox import Outbox
from genmcp.protocol.jsonrpc import notification
from genmcp.protocol.languages import CONTENT_LANGUAGE_META, lookup
from genmcp.protocol.meta import LOG_LEVELS, absent_capabilities
from genmcp.protocol.methods import MESSAGE, PROGRESS
from genmcp.protocol.versions import META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROTOCOL_VERSION

__all__ = [
    "CLOSE_STREAM",
    "MAILBOX_CAPACITY",
    "USER_STATES",
    "Channel",
    "Mailbox",
]

USER_STATES: ContextVar[Any] = ContextVar("genmcp_user_states", default=None)
"""The ``genmcp.UserStates`` a Suite's middleware bound around the request (read by
``Channel.user_state``; set by ``UserStates`` itself, given in ``middleware=``)."""

log = logging.getLogger("genmcp")

_SEVERITY: Final = {level: rank for rank, level in enumerate(LOG_LEVELS)}
MAILBOX_CAPACITY: Final = 10_000
CLOSE_STREAM: Final = StreamStart()
"""What ``close_stream()`` puts on the outbox: a stream start of its own (not ``STREAM_START``).

The core knows no "close the stream" event: every reader takes this for a stream start (the
stream opens, or stays open) except the one transport that can end a response and resume it
later, a 2025-11-25 session's POST stream, which tells it apart by identity
(``event is CLOSE_STREAM``, in ``sessions.journal``) and ends the response there."""
WAKE: Final = object()
"""What ``Mailbox.receive`` returns when the mailbox closed under a waiting receiver."""


@final
class Mailbox:
    """A call's inbox: ``send`` from anywhere, the call receives one message at a time."""

    __slots__ = ("_closed", "_loop", "_queue", "_thread", "id")

    def __init__(self, loop: asyncio.AbstractEventLoop, call_id: str) -> None:
        self.id = call_id
        self._loop = loop
        self._thread = threading.get_ident()
        self._queue: asyncio.Queue[Any] | None = None  # made on first use: most calls never stream
        self._closed = False

    @property
    def closed(self) -> bool:
        """True once the call ended; sends are dropped from then on."""
        return self._closed

    def _inbox(self) -> asyncio.Queue[Any]:
        if self._queue is None:
            self._queue = asyncio.Queue(MAILBOX_CAPACITY)
        return self._queue

    def send(self, message: Any) -> bool:
        """Post ``message`` to the call; False when it ended or the mailbox is full."""
        if self._closed:
            log.debug("mailbox %s closed: message dropped", self.id)
            return False
        if threading.get_ident() != self._thread:
            self._loop.call_soon_threadsafe(self._put, message)
            return True
        return self._put(message)

    def _put(self, message: Any) -> bool:
        if self._closed:
            log.debug("mailbox %s closed: message dropped", self.id)
            return False
        try:
            self._inbox().put_nowait(message)
        except asyncio.QueueFull:
            log.warning("mailbox %s full (%d): message dropped", self.id, MAILBOX_CAPACITY)
            return False
        return True

    def receive(self) -> Coroutine[Any, Any, Any]:
        """Wait for the next message (:data:`WAKE` when the mailbox closed meanwhile); the
        queue's ``get`` itself, no coroutine of ours around it while a stream waits."""
        return self._inbox().get()

    def close(self) -> None:
        """Refuse further messages and wake a waiting receiver."""
        if not self._closed:
            self._closed = True
            if self._queue is None:  # nobody ever sent or waited: nothing to wake
                return
            inbox = self._queue
            if inbox.full():
                inbox.get_nowait()
            inbox.put_nowait(WAKE)


@final
class Channel:
    """Request-scoped link from a tool to its client (built by genmcp, never by tools).

    Attributes:
        meta: the request ``_meta`` (protocol version, client capabilities, ...).
        assigns: what the auth dependency returned, read-only.
        mailbox: the call's mailbox; ``channel.mailbox.send(msg)`` from anywhere.
        app, state, http_request: the app serving the request, its lifespan state and
            ``app.state`` (read-only), the HTTP request (None under stdio or a bare Suite).
        languages: the caller's language ranges for this request, most wanted first (SEP-2792,
            Draft: its ``acceptLanguage``); empty when it stated none, or the Suite's
            ``sep2792`` switch is off.
    """

    __slots__ = (
        "_closed",
        "_content_language",
        "_context",
        "_dependencies",
        "_log_floor",
        "_negotiates",
        "_outbox",
        "_progress_token",
        "assigns",
        "languages",
        "mailbox",
        "meta",
    )

    def __init__(  # positional from the Call: a class called with keywords builds a dict
        self,
        meta: Mapping[str, Any],
        assigns: Mapping[str, Any],
        outbox: Outbox,
        mailbox: Mailbox,
        languages: tuple[str, ...] | None = None,
    ) -> None:
        # read-only views; the transport builds both per request and never changes them
        self.meta: Mapping[str, Any] = MappingProxyType(meta) if isinstance(meta, dict) else meta
        self.assigns: Mapping[str, Any] = (
            MappingProxyType(assigns) if isinstance(assigns, dict) else assigns
        )
        self.mailbox = mailbox
        self._outbox = outbox
        self._closed = False
        self._context: AppContext = current()  # what the transport bound around this request
        self._dependencies: Dependencies | None = None  # what channel.resolve opened
        self._progress_token = meta.get("progressToken")
        level = meta.get(META_LOG_LEVEL)
        self._log_floor = _SEVERITY.get(level) if isinstance(level, str) else None
        self._negotiates = languages is not None  # the Suite's sep2792 switch
        self.languages: tuple[str, ...] = languages or ()
        self._content_language: str | None = None

    @property
    def closed(self) -> bool:
        """True once the client went away or the call finished."""
        return self._closed

    @property
    def client_capabilities(self) -> Mapping[str, Any]:
        """The capabilities the client declared for this request."""
        caps = self.meta.get(META_CLIENT_CAPABILITIES)
        return caps if isinstance(caps, Mapping) else {}

    @property
    def log_level(self) -> str | None:
        """The lowest log level the client asked for, or None when it wants no logs (a
        proxy asks its upstream for the same)."""
        return None if self._log_floor is None else LOG_LEVELS[self._log_floor]

    @property
    def protocol_version(self) -> str | None:
        """The protocol revision the client speaks on this request."""
        version = self.meta.get(META_PROTOCOL_VERSION)
        return version if isinstance(version, str) else None

    @property
    def content_language(self) -> str | None:
        """The language of this request's answer (SEP-2792, Draft), as the tool says it
        (a BCP 47 tag, or several comma-separated): named in the answer's ``_meta`` (a
        result's, an error's ``data``), in HTTP ``Content-Language``, and in the ``_meta`` of
        the progress and log notifications sent after it is set. Setting it does nothing
        while the Suite's ``sep2792`` switch is off."""
        return self._content_language

    @content_language.setter
    def content_language(self, language: str | None) -> None:
        if language is not None and not isinstance(language, str):
            raise TypeError(f"content_language is a language tag, not {language!r}")
        if self._negotiates:
            self._content_language = language

    def choose_language(self, available: Iterable[str], default: str | None = None) -> str | None:
        """The language of ``available`` to answer in: the caller's most wanted one
        (RFC 4647 lookup over :attr:`languages`), else ``default``, else the first of
        ``available``; it becomes :attr:`content_language` (with the switch on)."""
        offered = tuple(available)
        chosen = lookup(self.languages, offered) or default or (offered[0] if offered else None)
        self.content_language = chosen
        return chosen

    @property
    def app(self) -> Any:
        """The ASGI app serving this request (a FastAPI app), or None."""
        return self._context.app

    @property
    def state(self) -> AppState:
        """The app's lifespan state, then ``app.state``: ``channel.state.db``."""
        return self._context.state

    @property
    def user_state(self) -> Any:
        """The caller's ``genmcp.UserState``: named values per user that outlive the call
        (docs: guides/user-state.md). Needs ``UserStates`` in the Suite's ``middleware=``;
        ``RuntimeError`` without, ``ValueError`` for a caller with no principal."""
        states = USER_STATES.get()
        if states is None:
            raise RuntimeError(
                "channel.user_state needs a UserStates in the middleware: "
                "Suite(middleware=[states]) or mcp_router(..., middleware=[states])"
            )
        return states.of(self)

    @property
    def http_request(self) -> Any:
        """The Starlette ``Request`` this call came in (its body already read), or None."""
        return self._context.http_request

    async def resolve(self, dependency: Any) -> Any:
        """Resolve a FastAPI dependency (``get_db`` or ``Depends(get_db)``) for this call.

        Sub-dependencies, ``app.dependency_overrides``, ``Security`` scopes and the request's
        headers apply, as FastAPI applies them to a route. The value is cached for the call
        (``use_cache=False`` opts out); a ``yield`` dependency is torn down in the call's
        task once the hook's outcome is decided, before the answer is sent, the hook's
        exception thrown into it (docs: guides/fastapi.md). Raises ``RuntimeError`` when
        no app serves the request.
        """
        dependencies = self._dependencies
        if dependencies is None:
            dependencies = self._dependencies = Dependencies()
        return await self._context.resolve(dependency, dependencies)

    def _open_dependencies(self) -> Dependencies | None:
        """Give ``resolve`` fresh dependencies (one hook invocation's); the ones it replaced."""
        outer, self._dependencies = self._dependencies, Dependencies()
        return outer

    async def _close_dependencies(
        self, error: BaseException | None, outer: Dependencies | None = None
    ) -> None:
        """Tear down what ``resolve`` opened (``error``: the hook's exception), then put back
        ``outer``; raises what a teardown raised."""
        dependencies, self._dependencies = self._dependencies, outer
        if dependencies is not None:
            await dependencies.close(error)

    def send_notification(self, method: str, params: dict[str, Any] | None = None) -> bool:
        """Send a notification about this request on its response stream."""
        return self._send(notification(method, params))

    def _send(self, message: dict[str, Any]) -> bool:
        """Send any JSON-RPC message before the response (genmcp's own use)."""
        if self._closed:
            return False
        return self._outbox.put(Interim(message))

    def send_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> bool:
        """Report progress; only when the client sent a ``progressToken`` (echoed back)."""
        if self._progress_token is None:
            return False
        params: dict[str, Any] = {"progressToken": self._progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
            if self._content_language is not None:
                params["_meta"] = {CONTENT_LANGUAGE_META: self._content_language}
        return self.send_notification(PROGRESS, params)

    def send_log(self, level: str, data: Any, logger: str | None = None) -> bool:
        """Send a log message if the client asked for this level or a lower one.

        Raises:
            ValueError: ``level`` is not an MCP logging level (a programming error).
        """
        rank = _SEVERITY.get(level)
        if rank is None:
            raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        if self._log_floor is None or rank < self._log_floor:
            return False
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        if self._content_language is not None:
            params["_meta"] = {CONTENT_LANGUAGE_META: self._content_language}
        return self.send_notification(MESSAGE, params)

    def start_stream(self) -> bool:
        """Open the streamed response now, so keepalives flow while slow work runs."""
        if self._closed:
            return False
        self._outbox.put(STREAM_START)
        return True

    def close_stream(self) -> bool:
        """Close the response stream now and keep running (SSE polling, SEP-1699).

        For a 2025-11-25 session's POST stream the transport ends the HTTP response here,
        with no response in it; the call runs on, and what it sends from now on, its
        response included, goes to the session's event log. The client reconnects (after
        the stream's ``retry:`` delay) with ``GET`` and ``Last-Event-ID``, on any process,
        and gets it (``sessions.resume``; ``genmcp.testing`` resumes the same way).
        Elsewhere (2026-07-28 requests, older revisions, stdio, a Suite driven directly) the
        stream stays open, as after :meth:`start_stream`, and the response comes on it. A
        closed call runs until it answers, is cancelled (``notifications/cancelled``,
        ``DELETE``) or the server stops. False when the channel is closed.
        """
        if self._closed:
            return False
        self._outbox.put(CLOSE_STREAM)  # a stream start to all but a legacy journal
        return True

    def require_capability(self, capabilities: Mapping[str, Any]) -> None:
        """Raise the -32021 error unless the client declared ``capabilities`` here.

        Example: ``channel.require_capability({"sampling": {}})``.
        """
        missing = absent_capabilities(capabilities, self.client_capabilities)
        if missing:
            raise missing_capability(missing)

    def _close(self) -> None:
        self._closed = True

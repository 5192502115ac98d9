"""The Channel: what a tool holds to talk back to the client during one request.

A Channel is built by the Suite for each call and lent to the tool's hooks
(tools never construct one). It carries the request's read-only ``meta`` and
the ``assigns`` auth put there, and sends progress, logs and notifications
through an ``Outbox`` the transport drains. Every send returns a bool: False
when the channel is closed (the client went away) or the send does not apply
(no ``progressToken``, log level filtered out); a send never raises.

Sends are safe from any thread, so a plain ``def call`` running in a worker
thread can report progress too.

Imports asyncio and genmcp's pure modules only; never a web framework.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Protocol, final

from genmcp.errors import MCPError
from genmcp.protocol.jsonrpc import notification
from genmcp.protocol.meta import (
    LOG_LEVELS,
    META_CLIENT_CAPABILITIES,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
)

if TYPE_CHECKING:
    from genmcp.worker import Mailbox

__all__ = [
    "FINAL",
    "MESSAGE",
    "OPEN",
    "Channel",
    "Event",
    "Outbox",
    "Pending",
    "missing_capabilities",
]

_SEVERITY: Final = {level: rank for rank, level in enumerate(LOG_LEVELS)}

MESSAGE: Final = "message"
"""Outbox event: a JSON-RPC message (notification) sent before the response."""
OPEN: Final = "open"
"""Outbox event: switch the response to a stream now (``start_stream``)."""
FINAL: Final = "final"
"""Outbox event: the JSON-RPC response; nothing follows it."""

Event = tuple[str, Any]


class Outbox:
    """The ordered events of one request, fed from any thread, drained by one reader.

    A deque plus a future made only while the reader waits: lighter than an
    ``asyncio.Queue``, which matters because every call has one.
    """

    __slots__ = ("_events", "_loop", "_thread", "_waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._loop = loop or asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._events: deque[Event] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put(self, kind: str, payload: Any = None) -> None:
        """Append an event; from a foreign thread it is handed to the loop."""
        if threading.get_ident() == self._thread:
            self._append((kind, payload))
        else:
            self._loop.call_soon_threadsafe(self._append, (kind, payload))

    def _append(self, event: Event) -> None:
        self._events.append(event)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Event:
        """Wait for the next event (one reader at a time)."""
        while not self._events:
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._events.popleft()

    def get_nowait(self) -> Event | None:
        """The next event if one is ready, else None."""
        return self._events.popleft() if self._events else None


class Pending(Protocol):
    """A request still being answered: its events arrive on ``outbox``.

    ``Worker`` (a ``tools/call``) is one; a listen stream is another. The
    transport drains the outbox until the ``FINAL`` event and calls
    ``disconnect()`` when the client goes away before it.
    """

    @property
    def outbox(self) -> Outbox:
        """Where the request's notifications and final response arrive."""
        ...

    def disconnect(self) -> None:
        """The client went away: stop the work and send nothing more."""
        ...


@final
class Channel:
    """Request-scoped link from a tool to its client (built by genmcp, never by tools).

    Attributes:
        meta: the request ``_meta`` (protocol version, client capabilities, ...).
        assigns: what the auth dependency returned, read-only.
        mailbox: the worker's mailbox; ``channel.mailbox.send(msg)`` from anywhere.
    """

    __slots__ = (
        "_closed",
        "_log_floor",
        "_outbox",
        "_progress_token",
        "assigns",
        "mailbox",
        "meta",
    )

    def __init__(
        self,
        *,
        meta: Mapping[str, Any],
        assigns: Mapping[str, Any],
        outbox: Outbox,
        mailbox: Mailbox | None = None,
    ) -> None:
        # read-only views; the transport builds both per request and never changes them
        self.meta: Mapping[str, Any] = MappingProxyType(meta) if isinstance(meta, dict) else meta
        self.assigns: Mapping[str, Any] = (
            MappingProxyType(assigns) if isinstance(assigns, dict) else assigns
        )
        self.mailbox = mailbox
        self._outbox = outbox
        self._closed = False
        self._progress_token = meta.get("progressToken")
        level = meta.get(META_LOG_LEVEL)
        self._log_floor = _SEVERITY.get(level) if isinstance(level, str) else None

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
    def protocol_version(self) -> str | None:
        """The protocol revision the client speaks on this request."""
        version = self.meta.get(META_PROTOCOL_VERSION)
        return version if isinstance(version, str) else None

    def send_notification(self, method: str, params: dict[str, Any] | None = None) -> bool:
        """Send a notification about this request on its response stream."""
        if self._closed:
            return False
        self._outbox.put(MESSAGE, notification(method, params))
        return True

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
        return self.send_notification("notifications/progress", params)

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
        return self.send_notification("notifications/message", params)

    def start_stream(self) -> bool:
        """Open the streamed response now, so keepalives flow while slow work runs."""
        if self._closed:
            return False
        self._outbox.put(OPEN)
        return True

    def require_capability(self, capabilities: Mapping[str, Any]) -> None:
        """Raise the -32021 error unless the client declared ``capabilities`` here.

        Example: ``channel.require_capability({"sampling": {}})``.
        """
        missing = missing_capabilities(capabilities, self.client_capabilities)
        if missing:
            raise MCPError(
                "missing_capability",
                "Missing required client capability: " + ", ".join(sorted(missing)),
                {"requiredCapabilities": missing},
            )

    def _close(self) -> None:
        self._closed = True


def missing_capabilities(
    required: Mapping[str, Any], declared: Mapping[str, Any]
) -> dict[str, Any]:
    """The part of ``required`` (a ClientCapabilities object) absent from ``declared``."""
    missing: dict[str, Any] = {}
    for key, needed in required.items():
        have = declared.get(key)
        if not isinstance(have, Mapping):
            missing[key] = needed
        elif isinstance(needed, Mapping) and needed:
            deeper = missing_capabilities(needed, have)
            if deeper:
                missing[key] = deeper
    return missing

"""A legacy POST stream's journal: the sink the SSE writer calls (SSE ids, SSE polling).

A legacy request answered over SSE (when the session has an event log: ``storage.EventLog``,
a Redis Stream with ``MAXLEN ~`` and a TTL when shared) gets a :class:`Journal`, the
:class:`~genmcp.transports.sse.StreamLog` the one SSE writer calls: every event is logged
before it is sent and its SSE ``id`` names the entry, ``<stream>~<entry>``
(``legacy.resume``, which replays them for a ``GET`` with ``Last-Event-ID``).

SSE polling (2025-11-25, SEP-1699): the stream opens with a priming event (an id, ``retry:``,
empty data; logged as an entry without a message). A tool that calls
``channel.close_stream()`` puts ``channel.CLOSE_STREAM`` on its outbox: the core has no
"close" event, and every other reader takes that one for a stream start; the journal alone
tells it apart, by identity, and only on a primed stream. The writer then ends the response
there and hands the relay back (:meth:`Journal.follow`): one task logs the rest of the Call's
events, its response included, for the client's ``GET`` with ``Last-Event-ID``. At shutdown
:func:`polled_logged` waits for those tasks, once the Suite answered its calls, so their
answers reach the log.

A stream closed before its response by the client (it left: the call stops) logs a final
error, so a resumer learns the request ended; a cancelled one logs a bare end. Imports
asyncio, genmcp's core and storage and the SSE writer's framing; never a web framework.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, final

from genmcp.channel import CLOSE_STREAM
from genmcp.errors import MCPError
from genmcp.events import Answer, Event, Interim
from genmcp.protocol.jsonrpc import RequestId, encode, error_response
from genmcp.storage import EventLog
from genmcp.storage.guard import StorageUnavailable
from genmcp.transports.legacy.resume import log_key, stream_of
from genmcp.transports.sse import priming

if TYPE_CHECKING:
    from genmcp._suite.relay import Relay
    from genmcp.transports.sse import ShutdownHub

__all__ = ["Journal", "polled_logged"]

log = logging.getLogger("genmcp")

_following: set[asyncio.Task[None]] = set()  # closed streams' Calls being logged (from the GC)


@final
class Journal:
    """Logs one POST stream's events and names each (its SSE ``id``): the SSE writer's sink."""

    __slots__ = (
        "_key",
        "_log",
        "_maxlen",
        "_owner",
        "_primed",
        "_request_id",
        "_session",
        "_stream",
        "_ttl_s",
        "done",
        "retry_ms",
    )

    def __init__(
        self,
        events: EventLog,
        session: str,
        request_id: RequestId,
        owner: str,
        *,
        maxlen: int,
        ttl_s: float,
        retry_ms: int | None = None,
    ) -> None:
        self._log, self._owner, self._request_id = events, owner, request_id
        self._session = session
        self._stream = self._key = ""  # named at the first event: most calls answer as JSON
        self._maxlen, self._ttl_s = maxlen, ttl_s
        self.retry_ms = retry_ms
        """SSE polling (2025-11-25): the stream is primed with this ``retry:`` delay and
        ``channel.close_stream()`` closes it; None: neither (older revisions)."""
        self.done = False
        self._primed = False  # opened with a priming event: close_stream() may end it

    async def prime(self) -> bytes | None:
        """The priming event of a polled stream (an id, ``retry:``, empty data), once logged;
        None: not polled (older revisions), or the log is unreachable (no id to resume from)."""
        if self.retry_ms is None:
            return None
        event_id = await self._append({"o": self._owner})
        if event_id is None:
            return None
        self._primed = True
        return priming(event_id, self.retry_ms)

    async def name(self, message: Any, *, final: bool) -> str | None:
        """Log ``message`` before it is sent; its SSE id (``record``)."""
        return await self.record(message, final=final)

    def closes(self, event: Event) -> bool:
        """Whether ``event`` is ``channel.close_stream()`` on a primed stream."""
        return event is CLOSE_STREAM and self._primed

    def unfinished(self, *, cancelled: bool) -> None:
        """The stream ended before its end was logged (``closed``)."""
        self.closed(cancelled=cancelled)

    def follow(self, relay: Relay, hub: ShutdownHub) -> None:
        """Log the rest of a Call whose stream was closed for polling, in a task of its own."""
        task = asyncio.get_running_loop().create_task(_log_rest(relay, self, hub))
        _following.add(task)
        task.add_done_callback(_following.discard)

    async def record(self, message: Any, *, final: bool) -> str | None:
        """Log ``message``; its SSE id (None when the log is unreachable: sent unnamed)."""
        entry = {"m": encode(message).decode(), "o": self._owner}
        if final:
            entry["f"] = "1"
            self.done = True
        return await self._append(entry)

    async def ended(self) -> None:
        """The request ended without a response (cancelled): log a bare end for resumers."""
        self.done = True
        await self._append({"o": self._owner, "f": "1"})

    async def _append(self, entry: dict[str, str]) -> str | None:
        if not self._stream:
            self._stream = stream_of(self._request_id)
            self._key = log_key(self._session, self._stream)
        try:
            entry_id = await self._log.append(self._key, entry, self._maxlen, self._ttl_s)
        except StorageUnavailable:
            log.warning("event log unreachable: stream %s is not resumable", self._stream)
            return None
        return f"{self._stream}~{entry_id}"

    def closed(self, *, cancelled: bool = False) -> None:
        """The stream ended before the response was logged: log a final error (the client
        left: the call stopped), or a bare end when it was ``cancelled``."""
        if self.done:
            return
        ending: Coroutine[Any, Any, object]
        if cancelled:
            ending = self.ended()
        else:
            failure = MCPError(
                "internal_error", "The request stopped: its stream closed before the response"
            )
            ending = self.record(error_response(self._request_id, failure), final=True)
        self.done = True
        task = asyncio.get_running_loop().create_task(ending)
        _pending.add(task)
        task.add_done_callback(_pending.discard)


_pending: set[asyncio.Task[Any]] = set()  # final records in flight (kept from the GC)


async def polled_logged(within_s: float) -> None:
    """Wait (at most ``within_s``) until every polled Call of this loop has logged its end:
    at shutdown, once the Suite answered its calls, so their answers reach the log."""
    loop = asyncio.get_running_loop()
    tasks = [task for task in _following if task.get_loop() is loop]
    if tasks:
        await asyncio.wait(tasks, timeout=within_s)


async def _log_rest(relay: Relay, journal: Journal, hub: ShutdownHub) -> None:
    stop = relay.call.shutdown  # at shutdown the Call answers, and that answer is logged
    hub.join(stop)
    try:
        async for event in relay:
            if type(event) is Interim:
                await journal.record(event.message, final=False)
            elif type(event) is Answer:
                await journal.record(event.response, final=True)
        if not journal.done:
            await journal.ended()  # cancelled (no response): resumers' streams end
    finally:
        hub.leave(stop)
        relay.close()

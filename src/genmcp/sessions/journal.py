"""A legacy POST stream's journal: the sink the SSE writer calls (SSE ids, SSE polling).

A legacy request answered over SSE (when the session has an event log: ``storage.EventLog``,
a Redis Stream with ``MAXLEN ~`` and a TTL when shared) gets a :class:`Journal`, the
:class:`~genmcp.sessions.stream_log.StreamLog` the one SSE writer calls: every event is logged
before it is sent and its SSE ``id`` names the entry, ``<stream>~<entry>``
(``legacy.resume``, which replays them for a ``GET`` with ``Last-Event-ID``).

SSE polling (2025-11-25, SEP-1699): the stream opens with a priming event (an id, ``retry:``,
empty data; logged as an entry without a message). A tool that calls
``channel.close_stream()`` puts ``channel.CLOSE_STREAM`` on its outbox: the core has no
"close" event, and every other reader takes that one for a stream start; the journal alone
tells it apart, by identity, and only on a primed stream. The writer then ends the response
there and hands the relay back (:meth:`Journal.follow`): one task logs the rest of the Call's
events, its response included, for the client's ``GET`` with ``Last-Event-ID``. At shutdown
its server's :meth:`JournalTasks.logged` waits for those tasks, once the Suite answered its
calls, so their answers reach the log.

A stream closed before its response by the client (it left: the call stops) logs a final
error, so a resumer learns the request ended; a cancelled one logs a bare end.

The log unreachable (a Redis outage): an event that cannot be logged is sent without an id
only while the stream has named none (it promised nothing, and its client has nothing to
resume from). Once it has, the stream ends there instead (:class:`~genmcp.sessions.stream_log.
Unlogged`: the client resumes with its last id, as after a drop) and the Call's events are
logged from that one on, held back in order while the log is away and stored when it is back
(retried with backoff for at most the log's TTL), so the resumed stream lacks none of them. Imports
asyncio, genmcp's core and storage and the stream log protocol; never a web framework.
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
from genmcp.sessions.resume import log_key, stream_of
from genmcp.sessions.stream_log import Hub, Unlogged, priming
from genmcp.storage import EventLog
from genmcp.storage.guard import StorageUnavailable

if TYPE_CHECKING:
    from genmcp.call.relay import Relay

__all__ = ["Journal", "JournalTasks"]

log = logging.getLogger("genmcp")

class JournalTasks:
    """The tasks one server's journals run past their streams, kept here from the garbage
    collector: the rest of polled Calls being logged (``following``: awaited at shutdown,
    :meth:`logged`) and final records in flight (``pending``)."""

    __slots__ = ("following", "pending")

    def __init__(self) -> None:
        self.following: set[asyncio.Task[None]] = set()
        self.pending: set[asyncio.Task[Any]] = set()

    async def logged(self, within_s: float) -> None:
        """Wait (at most ``within_s``) until every polled Call of this loop has logged its
        end: at shutdown, once the Suite answered its calls, so their answers reach the log."""
        loop = asyncio.get_running_loop()
        tasks = [task for task in self.following if task.get_loop() is loop]
        if tasks:
            await asyncio.wait(tasks, timeout=within_s)


@final
class Journal:
    """Logs one POST stream's events and names each (its SSE ``id``): the SSE writer's sink."""

    __slots__ = (
        "_held",
        "_key",
        "_log",
        "_maxlen",
        "_named",
        "_owner",
        "_primed",
        "_request_id",
        "_retry_at",
        "_session",
        "_stream",
        "_tasks",
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
        tasks: JournalTasks,
        retry_ms: int | None = None,
    ) -> None:
        self._log, self._owner, self._request_id = events, owner, request_id
        self._tasks = tasks  # its server's: what runs past the stream is kept and awaited there
        self._session = session
        self._stream = self._key = ""  # named at the first event: most calls answer as JSON
        self._maxlen, self._ttl_s = maxlen, ttl_s
        self.retry_ms = retry_ms
        """SSE polling (2025-11-25): the stream is primed with this ``retry:`` delay and
        ``channel.close_stream()`` closes it; None: neither (older revisions)."""
        self.done = False
        self._primed = False  # opened with a priming event: close_stream() may end it
        self._named = False  # an event went out with an id: every later one must have one
        self._held: list[dict[str, str]] = []  # entries the log refused, in order, to store
        self._retry_at = 0.0  # (loop time) the next try to store them

    async def prime(self) -> bytes | None:
        """The priming event of a polled stream (an id, ``retry:``, empty data), once logged;
        None: not polled (older revisions), or the log is unreachable (no id to resume from)."""
        if self.retry_ms is None:
            return None
        event_id = await self._append({"o": self._owner})
        if event_id is None:
            return None
        self._primed = self._named = True
        return priming(event_id, self.retry_ms)

    async def name(self, message: Any, *, final: bool) -> str | None:
        """Log ``message`` before it is sent; its SSE id. None: the log is unreachable and
        no event was named yet (sent without an id). Raises :class:`Unlogged` when the log
        is unreachable after an event was named: the entry is held, the stream ends there."""
        entry = self._entry(message, final)
        event_id = await self._append(entry, hold=self._named)
        if event_id is not None:
            self._named = True
        elif self._named:
            raise Unlogged(f"the event log is unreachable: stream {self._stream} ends here")
        return event_id

    def closes(self, event: Event) -> bool:
        """Whether ``event`` is ``channel.close_stream()`` on a primed stream."""
        return event is CLOSE_STREAM and self._primed

    def unfinished(self, *, cancelled: bool) -> None:
        """The stream ended before its end was logged (``closed``)."""
        self.closed(cancelled=cancelled)

    def follow(self, relay: Relay, hub: Hub) -> None:
        """Log the rest of a Call whose stream was closed for polling, in a task of its own."""
        task = asyncio.get_running_loop().create_task(_log_rest(relay, self, hub))
        self._tasks.following.add(task)
        task.add_done_callback(self._tasks.following.discard)

    async def record(self, message: Any, *, final: bool) -> None:
        """Log ``message`` of a stream no client reads (closed for polling, or cut off by the
        log's outage): held while the log is unreachable, stored once it is back."""
        await self._append(self._entry(message, final), hold=True)

    async def ended(self) -> None:
        """The request ended without a response (cancelled): log a bare end for resumers."""
        self.done = True
        await self._append({"o": self._owner, "f": "1"}, hold=True)

    def _entry(self, message: Any, final: bool) -> dict[str, str]:
        entry = {"m": encode(message).decode(), "o": self._owner}
        if final:
            entry["f"] = "1"
            self.done = True
        return entry

    async def _append(self, entry: dict[str, str], *, hold: bool = False) -> str | None:
        """Log ``entry``; its SSE id, or None when it was not stored now: the log is
        unreachable, or entries held before it wait (``hold`` keeps it to store later)."""
        if not self._stream:
            self._stream = stream_of(self._request_id)
            self._key = log_key(self._session, self._stream)
        if self._held:
            self._held.append(entry)
            if asyncio.get_running_loop().time() >= self._retry_at:
                await self._store_held()
            return None
        try:
            entry_id = await self._log.append(self._key, entry, self._maxlen, self._ttl_s)
        except StorageUnavailable:
            if hold:
                self._held.append(entry)
                self._retry_at = asyncio.get_running_loop().time() + _RETRY_S
            log.warning("event log unreachable: stream %s holds its events", self._stream)
            return None
        return f"{self._stream}~{entry_id}"

    async def _store_held(self) -> bool:
        """Store the held entries in order; whether all are."""
        while self._held:
            try:
                await self._log.append(self._key, self._held[0], self._maxlen, self._ttl_s)
            except StorageUnavailable:
                self._retry_at = asyncio.get_running_loop().time() + _RETRY_S
                return False
            del self._held[0]
        return True

    async def settle(self) -> None:
        """Store what the log's outage held back, retrying with backoff; after the log's TTL
        (the entries would have expired by then) what is left is dropped, and logged."""
        loop = asyncio.get_running_loop()
        deadline, delay = loop.time() + self._ttl_s, _RETRY_S
        while self._held and not await self._store_held():
            if loop.time() + delay > deadline:
                log.error(
                    "event log unreachable for %.0f s: %d events of stream %s dropped",
                    self._ttl_s, len(self._held), self._stream,
                )  # fmt: skip
                self._held.clear()
                return
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)

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
        task = asyncio.get_running_loop().create_task(_then_settle(self, ending))
        self._tasks.pending.add(task)
        task.add_done_callback(self._tasks.pending.discard)


_RETRY_S = 0.1  # the first wait before held entries are tried again


async def _then_settle(journal: Journal, ending: Coroutine[Any, Any, object]) -> None:
    await ending
    await journal.settle()


async def _log_rest(relay: Relay, journal: Journal, hub: Hub) -> None:
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
        await journal.settle()
    finally:
        hub.leave(stop)
        relay.close()

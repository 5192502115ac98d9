"""A 2025 session's POST stream, journaled: SSE ids, SSE polling, the rest of a closed stream.

:class:`JournalSink` is the :class:`~genmcp.transports.sse.StreamLog` the one SSE writer
calls for a legacy request answered over SSE (when the session has an event log): each
event is logged before it is sent and named by its entry (``legacy.resume.Journal``).

SSE polling (2025-11-25, SEP-1699): the stream opens with a priming event (an id, ``retry:``,
empty data). A tool that calls ``channel.close_stream()`` puts ``channel.CLOSE_STREAM`` on its
outbox: the core has no "close" event, and every other reader takes that one for a stream
start; this sink alone tells it apart, by identity, and only on a primed stream. The writer
then ends the response there and hands the relay back (:meth:`JournalSink.follow`): one task
logs the rest of the Call's events, its response included, for the client's ``GET`` with
``Last-Event-ID`` (``legacy.resume.ResumedStream``). At shutdown :func:`polled_logged`
waits for those tasks, once the Suite answered its calls, so their answers reach the log.

Imports asyncio, genmcp's core and the SSE writer's protocol; never a web framework.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, final

from genmcp.channel import CLOSE_STREAM
from genmcp.events import Answer, Event, Interim
from genmcp.transports.sse import priming

if TYPE_CHECKING:
    from genmcp._suite.relay import Relay
    from genmcp.transports.legacy.resume import Journal
    from genmcp.transports.sse import ShutdownHub

__all__ = ["JournalSink", "polled_logged"]

_following: set[asyncio.Task[None]] = set()  # closed streams' Calls being logged (from the GC)


@final
class JournalSink:
    """What the SSE writer logs of one legacy POST stream, through its :class:`Journal`."""

    __slots__ = ("_primed", "journal")

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._primed = False  # opened with a priming event: close_stream() may end it

    async def prime(self) -> bytes | None:
        event_id = await self.journal.prime()
        retry_ms = self.journal.retry_ms
        if event_id is None or retry_ms is None:
            return None
        self._primed = True
        return priming(event_id, retry_ms)

    async def name(self, message: Any, *, final: bool) -> str | None:
        return await self.journal.record(message, final=final)

    def closes(self, event: Event) -> bool:
        return event is CLOSE_STREAM and self._primed

    def unfinished(self, *, cancelled: bool) -> None:
        if not self.journal.done:
            self.journal.closed(cancelled=cancelled)

    def follow(self, relay: Relay, hub: ShutdownHub) -> None:
        """Log the rest of a Call whose stream was closed for polling, in a task of its own."""
        task = asyncio.get_running_loop().create_task(_log_rest(relay, self.journal, hub))
        _following.add(task)
        task.add_done_callback(_following.discard)


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

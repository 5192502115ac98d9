"""The Outbox: the ordered events of one request, fed from any thread, drained by one reader.

A call (``genmcp.call.Call``) makes one per request; its Channel puts progress, logs,
notifications and server requests on it, the Call puts the answer, and the transport drains
it. Puts are safe from any thread (a plain ``def`` tool runs in a worker thread).

Bound: a call holds at most :data:`OUTBOX_CAPACITY` notifications its reader has not taken
yet. Past it, a notification (progress, log, change) is dropped, its put returns False and
the first drop of the call is logged at warning level; the response, a stream end and a
server request (an input round) are never dropped. A reader that stops reading is detected
by the transport (``send_timeout_s``) and disconnects the call.

Imports asyncio and genmcp's events only; never a web framework.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Final

from genmcp.events import Event, Interim

__all__ = ["OUTBOX_CAPACITY", "Outbox"]

log = logging.getLogger("genmcp")

OUTBOX_CAPACITY: Final = 10_000
"""Most notifications one call queues for its reader; past it they are dropped."""

_FOREIGN: Final = threading.Lock()
"""Guards every Outbox's count of events in flight from other threads: one lock for all, as
only tool code running in threads takes it, and a lock per call would be made on every call."""


class Outbox:
    """The ordered events of one request, fed from any thread, drained by one reader.

    A deque plus a future made only while the reader waits: lighter than an
    ``asyncio.Queue``, which matters because every call has one. Bounded for notifications
    (``capacity``, see the module docstring); ``dropped`` counts those it refused.
    """

    __slots__ = (
        "_events",
        "_foreign",
        "_loop",
        "_taps",
        "_thread",
        "_waiter",
        "_woken",
        "capacity",
        "dropped",
    )

    def __init__(
        self, loop: asyncio.AbstractEventLoop | None = None, capacity: int | None = None
    ) -> None:
        self._loop = loop or asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._events: deque[Event] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._foreign = 0  # events handed over from other threads, not appended yet
        self.capacity = OUTBOX_CAPACITY if capacity is None else capacity
        self.dropped = 0
        self._taps: tuple[Callable[[Event], None], ...] = ()
        self._woken = False

    def tap(self, seen: Callable[[Event], None]) -> None:
        """Show ``seen`` every event, on the loop: those waiting now, then each one put."""
        for event in self._events:
            seen(event)
        self._taps = (*self._taps, seen)

    def __len__(self) -> int:
        """Events waiting for the reader (handed over from threads included)."""
        return len(self._events) + self._foreign

    def put(self, event: Event) -> bool:
        """Append an event (from a foreign thread it is handed to the loop); False when a
        notification was dropped because the reader is ``capacity`` events behind."""
        if (
            type(event) is Interim  # a notification (a server request has an id): droppable
            and "id" not in event.message
            and len(self._events) + self._foreign >= self.capacity
        ):
            self._drop()
            return False
        if threading.get_ident() == self._thread:  # _append inline: no frames (the hot path)
            self._events.append(event)
            for seen in self._taps:  # middleware and telemetry watching the call
                seen(event)
            waiter = self._waiter
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
        else:
            with _FOREIGN:
                self._foreign += 1
            self._loop.call_soon_threadsafe(self._append_foreign, event)
        return True

    def _drop(self) -> None:
        self.dropped += 1
        if self.dropped == 1:
            log.warning(
                "a call's reader is %d events behind: notifications dropped from now on",
                self.capacity,
            )

    def _append_foreign(self, event: Event) -> None:
        with _FOREIGN:
            self._foreign -= 1
        self._append(event)

    def _append(self, event: Event) -> None:
        self._events.append(event)
        for seen in self._taps:  # middleware and telemetry watching the call
            seen(event)
        self._rouse()

    async def get(self) -> Event:
        """Wait for the next event (one reader at a time)."""
        while not self._events:
            await self._sleep()
        return self._events.popleft()

    async def get_or_wake(self) -> Event | None:
        """The next event, or None once ``wake`` was called (on the loop) meanwhile."""
        while not self._events:
            if self._woken:
                self._woken = False
                return None
            waiter = self._waiter = self._loop.create_future()  # _sleep inline: no coroutine
            try:
                await waiter
            finally:
                self._waiter = None
        return self._events.popleft()

    def wake(self) -> None:
        """Make the reader's ``get_or_wake`` return (None when no event is waiting)."""
        self._woken = True
        self._rouse()

    async def _sleep(self) -> None:
        """Wait until ``_rouse`` (an event appended, or ``wake``); the future exists only now."""
        self._waiter = self._loop.create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None

    def _rouse(self) -> None:
        """End the reader's ``_sleep``, if it sleeps."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def get_nowait(self) -> Event | None:
        """The next event if one is ready, else None."""
        return self._events.popleft() if self._events else None

    def clear(self) -> None:
        """Drop what the reader will never take (the reader is gone)."""
        self._events.clear()

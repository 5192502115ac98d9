"""``KeepaliveWheel``: one timer per event loop that tells its SSE streams a keepalive is due.

Each stream used to re-arm a ``loop.call_later`` of its own after every ping: at 10,000 open
streams and the default 15 s, 667 timer handles a second, each (with its bound method and
context) alive for 15 s, promoted, and walked by the young and full collections (issue 50:
120 µs of server CPU per delivered notification against 77 µs with keepalives off). Here a
stream is an entry in a bucket of due times and the loop has one timer, for the earliest
bucket; re-arming a stream moves it between two sets and allocates nothing that lives on.

Due times are rounded up to a grid of ``min(TICK_S, keepalive_s / 8)``: a ping is never
early, and late by less than one grid step (1 s at the default 15 s; 1/8 of the interval
below 8 s) plus the time the loop takes to reach it; past ``WAKE_CHUNK`` streams due at once,
the loop runs between chunks (the woken streams write their pings before the next chunk
wakes, as ``storage.fanout`` does for notifications). A stream forgotten (it closed) leaves
its bucket at once; with no stream left the timer is cancelled. One wheel per running loop
(``keepalive_wheel``), shared by every endpoint on it; a loop's wheel goes with the loop.
"""

from __future__ import annotations

import asyncio
import heapq
import math
import weakref
from typing import Final, Protocol

__all__ = ["TICK_S", "WAKE_CHUNK", "KeepaliveWheel", "Pinged", "keepalive_wheel"]

TICK_S: Final = 1.0
"""The coarsest grid step of due times (seconds): the bound on a ping's lateness."""
WAKE_CHUNK: Final = 64
"""Streams woken in one loop turn; more due ones are woken in the next turns."""


class Pinged(Protocol):
    """A stream on the wheel: told (on its loop) that its next keepalive is due."""

    def keepalive_due(self) -> None: ...


class KeepaliveWheel:
    """One loop's streams by due time, and the one timer for the earliest (see the module)."""

    __slots__ = ("_armed_at", "_due", "_heap", "_timer", "_where")

    def __init__(self) -> None:
        self._due: dict[float, set[Pinged]] = {}  # due time -> its streams (maybe none left)
        self._heap: list[float] = []  # the keys of _due, each once
        self._where: dict[Pinged, float] = {}  # stream -> its due time
        self._timer: asyncio.Handle | None = None
        self._armed_at = 0.0  # what the timer was set for: buckets due up to it are due

    def __len__(self) -> int:
        """Streams waiting for a keepalive (not those told and not yet back)."""
        return len(self._where)

    @property
    def armed(self) -> bool:
        """Whether the wheel's timer is set (it is iff a stream waits)."""
        return self._timer is not None

    def due(self, stream: Pinged) -> float | None:
        """When ``stream`` is told next (loop time), None when it is not waiting."""
        return self._where.get(stream)

    def schedule(self, stream: Pinged, after_s: float, since: float | None = None) -> None:
        """Tell ``stream`` once ``after_s`` seconds have passed since ``since`` (loop time;
        now when None), on the grid ``after_s`` gives; its previous turn dropped."""
        loop = asyncio.get_running_loop()
        step = TICK_S if after_s >= 8 * TICK_S else after_s / 8
        due = math.ceil(((loop.time() if since is None else since) + after_s) / step) * step
        where = self._where
        previous = where.get(stream)
        if previous is not None:
            self._due[previous].discard(stream)
        where[stream] = due
        bucket = self._due.get(due)
        if bucket is not None:
            bucket.add(stream)
            return
        self._due[due] = {stream}
        heapq.heappush(self._heap, due)
        timer = self._timer
        if timer is None or due < self._armed_at:
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(due, self._fire)
            self._armed_at = due

    def forget(self, stream: Pinged) -> None:
        """Drop ``stream`` (it closed); the timer stops with the last one."""
        due = self._where.pop(stream, None)
        if due is None:
            return
        self._due[due].discard(stream)
        if not self._where:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._due.clear()
            self._heap.clear()

    def _fire(self) -> None:
        """The timer: tell up to ``WAKE_CHUNK`` due streams, then set it again (after: what
        they woke runs before the next chunk is told)."""
        self._timer = None
        loop = asyncio.get_running_loop()
        limit = max(loop.time(), self._armed_at)  # a timer may fire a hair early
        heap, buckets, where = self._heap, self._due, self._where
        woken: list[Pinged] = []
        while heap and heap[0] <= limit:
            bucket = buckets[heap[0]]
            while bucket and len(woken) < WAKE_CHUNK:
                stream = bucket.pop()
                del where[stream]
                woken.append(stream)
            if bucket:
                break  # the chunk is full
            del buckets[heapq.heappop(heap)]
        try:
            for stream in woken:
                stream.keepalive_due()
        finally:  # even past a stream's error: the others keep their keepalives
            self._rearm(loop, limit)

    def _rearm(self, loop: asyncio.AbstractEventLoop, limit: float) -> None:
        heap = self._heap
        if not self._where:  # all told: what is left are buckets their streams moved out of
            heap.clear()
            self._due.clear()
            return
        first = heap[0]
        when = limit if first <= limit else first
        if self._timer is not None:  # a stream told was scheduled again at once
            if self._armed_at <= when:
                return
            self._timer.cancel()
        if first <= limit:
            self._timer = loop.call_soon(self._fire)  # the rest of what is due, next turn
        else:
            self._timer = loop.call_at(first, self._fire)
        self._armed_at = when


_WHEELS: Final[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, KeepaliveWheel]] = (
    weakref.WeakKeyDictionary()
)


def keepalive_wheel() -> KeepaliveWheel:
    """The running loop's wheel (made on first need)."""
    loop = asyncio.get_running_loop()
    wheel = _WHEELS.get(loop)
    if wheel is None:
        wheel = _WHEELS[loop] = KeepaliveWheel()
    return wheel

"""Fail fast, fail closed: every shared-storage operation has a deadline and a breaker.

A request that needs shared storage (a legacy session lookup, a post to a worker in another
process) must not hang when the store is down or hung, and must not pretend it succeeded.
:class:`Breaker` runs one storage operation under a deadline (a hung server costs at most
``deadline_s`` of an idle event loop) and turns any failure of the store into
:class:`StorageUnavailable`, an ``MCPError`` with reason ``storage_unavailable`` (HTTP 503
with ``Retry-After`` at the edge, ``data.reason`` naming the store). After a failure the
breaker stays open for ``cooldown_s``: calls fail at once, without touching the store, then
the next call probes it again. Recovery is automatic: the first success closes it.

The deadline is counted in time the event loop was free to read the reply: a loop that is
late (CPU starved under load) has the delay it lost added back (:class:`LagClock`, a tick
every 50 ms), so an overloaded process with a healthy store is slow, not failing. The
clients' own socket timeouts are longer than the deadline: the breaker is the one bound.
With ``concurrency`` (the client's pool size), at most that many operations are in flight
and the rest wait their turn before their deadline starts: a burst of a thousand
operations from one process queues behind the pool, and a wait in that queue is this
process's backlog, not the store failing (a hung store trips the breaker on the ones in
flight; those queued then fail at once).

Knows no store: the caller says which exceptions mean "the store failed".
Imports asyncio and genmcp's errors.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

from genmcp.errors import MCPError

__all__ = ["DEADLINE_S", "Breaker", "LagClock", "StorageUnavailable", "StoreFailure"]

log = logging.getLogger("genmcp")

T = TypeVar("T")

DEADLINE_S: Final = 0.8
"""Default hard bound on one storage operation (below the 1 s a client should wait)."""
COOLDOWN_S: Final = 0.5
"""Default time a breaker stays open after a failure."""


class StorageUnavailable(MCPError):
    """Shared storage is down, hung or refusing: retry after a pause (HTTP 503).

    ``data`` is ``{"reason": "storage_unavailable", "store": <name>}``.
    """

    def __init__(self, store: str, cause: str) -> None:
        super().__init__(
            "storage_unavailable",
            f"Service unavailable: {store} is unreachable ({cause}); retry shortly",
            {"reason": "storage_unavailable", "store": store},
        )
        self.store = store


class StoreFailure(Exception):
    """Base of a store's own failures that name their cause: a :class:`Breaker` given one
    among its ``failures`` says ``cause`` in its ``StorageUnavailable`` (any other failure:
    its class name)."""

    cause: str = ""
    """A few words on what failed (``"refusing: OOM"``); empty: the class name is used."""


class LagClock:
    """How late one event loop has run its callbacks, summed (seconds), ticking every 50 ms."""

    TICK_S: Final = 0.05
    _clocks: Final[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LagClock]] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.lag = 0.0
        self._loop = loop
        self._due = loop.time() + self.TICK_S
        loop.call_at(self._due, self._tick)

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> LagClock:
        """The clock of ``loop`` (started on first use; it ends with the loop)."""
        clock = cls._clocks.get(loop)
        if clock is None:
            clock = cls._clocks[loop] = cls(loop)
        return clock

    def _tick(self) -> None:
        now = self._loop.time()
        self.lag += max(now - self._due, 0.0)
        self._due = now + self.TICK_S
        self._loop.call_at(self._due, self._tick)


class Breaker:
    """Runs storage operations under a deadline; fails fast while the store is failing.

    Args:
        store: the store's name in errors and logs (``"redis"``).
        failures: the exceptions that mean the store failed (a timeout always does).
        deadline_s: hard bound on one operation.
        cooldown_s: how long to fail at once after a failure.
        concurrency: most operations in flight at once (None: no bound); the others wait
            for a turn, outside their deadline.
    """

    __slots__ = (
        "_failing_since",
        "_gate",
        "_open_until",
        "concurrency",
        "cooldown_s",
        "deadline_s",
        "failures",
        "store",
    )

    def __init__(
        self,
        store: str,
        failures: tuple[type[BaseException], ...],
        *,
        deadline_s: float = DEADLINE_S,
        cooldown_s: float = COOLDOWN_S,
        concurrency: int | None = None,
    ) -> None:
        if deadline_s <= 0 or cooldown_s < 0:
            raise ValueError("deadline_s must be > 0 and cooldown_s >= 0")
        if concurrency is not None and concurrency < 1:
            raise ValueError("concurrency must be >= 1 (or None)")
        self.store = store
        self.concurrency = concurrency
        self._gate: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None  # per loop
        self.failures: tuple[type[BaseException], ...] = (*failures, TimeoutError, OSError)
        self.deadline_s, self.cooldown_s = deadline_s, cooldown_s
        self._open_until = 0.0
        self._failing_since: float | None = None

    @property
    def open(self) -> bool:
        """Whether calls fail at once right now."""
        return time.monotonic() < self._open_until

    async def run(self, operation: Callable[[], Awaitable[T]]) -> T:
        """``await operation()`` under the deadline; ``StorageUnavailable`` when it fails."""
        if self.open:
            raise StorageUnavailable(self.store, "failing; not retried yet")
        if self.concurrency is None:
            return await self._guarded(operation)
        loop = asyncio.get_running_loop()
        if self._gate is None or self._gate[0] is not loop:
            self._gate = (loop, asyncio.Semaphore(self.concurrency))
        async with self._gate[1]:  # a turn first: the deadline bounds the store, not our queue
            if self.open:  # it failed while this one waited
                raise StorageUnavailable(self.store, "failing; not retried yet")
            return await self._guarded(operation)

    async def _guarded(self, operation: Callable[[], Awaitable[T]]) -> T:
        try:
            result = await self._within_deadline(operation)
        except self.failures as exc:
            self._trip(exc)
            cause = (
                "no answer in time"
                if isinstance(exc, TimeoutError)
                else (exc.cause if isinstance(exc, StoreFailure) else "") or type(exc).__name__
            )
            raise StorageUnavailable(self.store, cause) from None
        if self._failing_since is not None:
            log.warning(
                "%s is back after %.2f s", self.store, time.monotonic() - self._failing_since
            )
            self._failing_since = None
        return result

    async def _within_deadline(self, operation: Callable[[], Awaitable[T]]) -> T:
        """``operation()``, cancelled once it took ``deadline_s`` of loop time not lost to lag."""
        loop = asyncio.get_running_loop()
        clock = LagClock.of(loop)
        started, lag_before = loop.time(), clock.lag
        task = asyncio.ensure_future(operation())
        try:
            while True:
                spent = loop.time() - started - (clock.lag - lag_before)
                if spent >= self.deadline_s:
                    raise TimeoutError
                await asyncio.wait([task], timeout=self.deadline_s - spent)
                if task.done():
                    return task.result()
        finally:
            if not task.done():
                task.cancel()

    def _trip(self, exc: BaseException) -> None:
        now = time.monotonic()
        self._open_until = now + self.cooldown_s
        if self._failing_since is None:
            self._failing_since = now
            log.warning("%s failed (%r): failing fast for %g s", self.store, exc, self.cooldown_s)

"""Token buckets: what a rate limit or a quota takes from (``Buckets``), and the in-process one.

A bucket holds at most ``burst`` tokens and gains ``rate`` tokens per second; taking
``cost`` tokens either succeeds at once or says how long until they are there. A bucket
nobody touched is full. :class:`Buckets` is the interface (``RateLimit`` takes from one);
:class:`MemoryBuckets` keeps them in this process, the default (one process: one budget).
``genmcp.storage.redis.buckets.RedisBuckets`` keeps them in Redis, so that every process of
an app takes from the same bucket. ``MemoryTaskStore`` counts ``TaskQuota``'s creations per
owner with the same arithmetic (:func:`refill`); ``RedisTaskStore`` with the same Lua.

Pure arithmetic and a dict; imports nothing from genmcp.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Final, NamedTuple, Protocol, runtime_checkable

__all__ = ["MAX_KEYS", "Buckets", "MemoryBuckets", "Taken", "refill"]

MAX_KEYS: Final = 10_000
"""How many buckets ``MemoryBuckets`` keeps by default (the least recently used forgotten)."""


class Taken(NamedTuple):
    """What taking from a bucket did.

    Attributes:
        wait_s: 0 when the tokens were taken; else the seconds until they are there (nothing
            was taken).
        tokens: the tokens left in the bucket now (after taking).
    """

    wait_s: float
    tokens: float

    @property
    def ok(self) -> bool:
        """Whether the tokens were taken."""
        return self.wait_s <= 0


@runtime_checkable
class Buckets(Protocol):
    """Token buckets by key; a key's first take finds its bucket full."""

    async def take(self, key: str, rate: float, burst: int, cost: int = 1) -> Taken:
        """Take ``cost`` tokens from the bucket ``key`` of ``burst`` tokens refilled at
        ``rate`` per second (atomically: two takers never share a token)."""
        ...


def refill(tokens: float, elapsed_s: float, rate: float, burst: int) -> float:
    """The tokens of a bucket that held ``tokens`` ``elapsed_s`` seconds ago."""
    return min(float(burst), tokens + max(elapsed_s, 0.0) * rate)


class _Bucket:
    __slots__ = ("stamp", "tokens")

    def __init__(self, tokens: float, stamp: float) -> None:
        self.tokens, self.stamp = tokens, stamp


class MemoryBuckets:
    """``Buckets`` in this process: at most ``max_keys`` of them, the least recently used
    forgotten first (a forgotten bucket comes back full). Not thread-safe.

    Args:
        max_keys: buckets kept at most.
        clock: seconds, monotonic (default ``time.monotonic``).
    """

    def __init__(
        self, *, max_keys: int = MAX_KEYS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if max_keys < 1:
            raise ValueError("MemoryBuckets needs max_keys >= 1")
        self.max_keys, self.clock = max_keys, clock
        self._buckets: OrderedDict[Hashable, _Bucket] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    async def take(self, key: str, rate: float, burst: int, cost: int = 1) -> Taken:
        return self.take_now(key, rate, burst, cost)

    def take_now(self, key: Hashable, rate: float, burst: int, cost: int = 1) -> Taken:
        """:meth:`take`, synchronously (any hashable key)."""
        now = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(float(burst), now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:  # refill(), inline: this runs on every limited request
            self._buckets.move_to_end(key)
            elapsed = now - bucket.stamp
            if elapsed > 0:
                bucket.tokens = min(float(burst), bucket.tokens + elapsed * rate)
                bucket.stamp = now
        if bucket.tokens >= cost:
            bucket.tokens -= cost
            return Taken(0.0, bucket.tokens)
        return Taken((cost - bucket.tokens) / rate, bucket.tokens)

    def peek(self, key: Hashable, rate: float, burst: int) -> float | None:
        """The tokens of the bucket ``key`` now, taking none (None: it has none yet)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            return None
        return refill(bucket.tokens, self.clock() - bucket.stamp, rate, burst)

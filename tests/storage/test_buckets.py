"""Token buckets (genmcp.storage.buckets): the contract every store keeps, memory and Redis.

A fresh bucket is full; a take beyond it is refused with the wait until a token is back;
tokens come back at the rate, never past the burst; concurrent takers never share a token;
keys are apart. ``MemoryBuckets`` is bounded and forgets the least recently used first.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from genmcp.storage.buckets import Buckets, MemoryBuckets, refill


@pytest.fixture(params=["memory", "redis"])
async def buckets(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    if request.param == "memory":
        yield MemoryBuckets()
        return
    from genmcp.storage.redis.buckets import RedisBuckets

    store = RedisBuckets.from_url(
        request.getfixturevalue("redis_url"), prefix=request.getfixturevalue("redis_prefix")
    )
    try:
        yield store
    finally:
        await store.aclose()


async def test_a_fresh_bucket_is_full_then_refuses_with_the_wait(buckets: Any) -> None:
    assert isinstance(buckets, Buckets)
    takes = [await buckets.take("alice", 10.0, 3) for _ in range(3)]
    assert [t.ok for t in takes] == [True] * 3
    assert [round(t.tokens) for t in takes] == [2, 1, 0]
    refused = await buckets.take("alice", 10.0, 3)
    assert not refused.ok and 0 < refused.wait_s <= 0.1  # a token every 0.1 s
    assert refused.tokens < 1
    other = await buckets.take("bob", 10.0, 3)  # another key, its own full bucket
    assert other.ok and round(other.tokens) == 2
    await asyncio.sleep(refused.wait_s + 0.01)
    again = await buckets.take("alice", 10.0, 3)
    assert again.ok and again.tokens < 1  # (the sleep may overshoot)


async def test_a_take_of_several_tokens_waits_for_them_all(buckets: Any) -> None:
    assert (await buckets.take("k", 10.0, 5, cost=4)).ok
    short = await buckets.take("k", 10.0, 5, cost=4)
    assert not short.ok and 0 < short.wait_s <= 0.3  # 3 more tokens at 10 a second
    assert 0.999 < short.tokens < 4  # nothing was taken


async def test_concurrent_takers_never_share_a_token(buckets: Any) -> None:
    takes = await asyncio.gather(*(buckets.take("crowd", 0.01, 7) for _ in range(40)))
    assert sum(t.ok for t in takes) == 7


def test_memory_buckets_refill_to_the_burst_and_stay_bounded() -> None:
    now = [0.0]
    store = MemoryBuckets(max_keys=2, clock=lambda: now[0])
    assert store.take_now("a", 1.0, 2).ok and store.take_now("a", 1.0, 2).ok
    assert store.take_now("a", 1.0, 2).wait_s == pytest.approx(1.0)
    now[0] += 0.25
    assert store.take_now("a", 1.0, 2).wait_s == pytest.approx(0.75)
    now[0] += 100
    assert store.peek("a", 1.0, 2) == 2  # never past the burst
    store.take_now("b", 1.0, 2)
    store.take_now("c", 1.0, 2)
    assert len(store) == 2 and store.peek("a", 1.0, 2) is None  # the least recent forgotten
    assert refill(0.5, -3.0, 1.0, 2) == 0.5  # a clock going back gives nothing
    with pytest.raises(ValueError, match="max_keys"):
        MemoryBuckets(max_keys=0)

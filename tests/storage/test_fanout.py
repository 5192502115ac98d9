"""The ordered, chunked hand-out both brokers use (``storage.fanout``).

The receivers are real subscriptions of a ``MemoryBroker`` (``QueuedSubscription``); the
brokers' own tests check that they hand out through it (tests/storage/memory/test_broker.py,
tests/storage/redis/test_broker.py).
"""

from __future__ import annotations

import asyncio

import pytest

from genmcp.storage.fanout import FANOUT_CHUNK, Fanout
from genmcp.storage.memory import MemoryBroker
from genmcp.storage.memory.broker import QueuedSubscription

Subscription = QueuedSubscription[MemoryBroker]


def fed(subscriptions: list[Subscription]) -> int:
    """How many of ``subscriptions`` hold a message they have not read."""
    return sum(not s._queue.empty() for s in subscriptions)


async def test_a_small_fan_out_is_handed_out_in_one_go() -> None:
    subscriptions = [MemoryBroker().subscribe("t") for _ in range(FANOUT_CHUNK)]
    fanout = Fanout()
    sending = asyncio.ensure_future(fanout.send("t", "news", subscriptions))
    await asyncio.sleep(0)
    assert sending.done() and fed(subscriptions) == FANOUT_CHUNK
    assert fanout.pending == 0


async def test_a_large_fan_out_is_handed_out_a_chunk_per_loop_turn() -> None:
    broker = MemoryBroker()
    subscriptions = [broker.subscribe("t") for _ in range(FANOUT_CHUNK * 2 + 1)]
    fanout = Fanout()
    sending = asyncio.ensure_future(fanout.send("t", "news", subscriptions))
    seen = []
    while not sending.done():
        await asyncio.sleep(0)
        seen.append(fed(subscriptions))
    assert seen[0] == FANOUT_CHUNK
    assert sorted(set(seen)) == [FANOUT_CHUNK, FANOUT_CHUNK * 2, FANOUT_CHUNK * 2 + 1]
    assert fanout.pending == 0


async def test_sends_during_a_large_fan_out_reach_every_subscriber_in_order() -> None:
    broker = MemoryBroker()
    many = [broker.subscribe("t", "u") for _ in range(FANOUT_CHUNK * 2 + 5)]
    few = [broker.subscribe("u")]
    fanout = Fanout()
    first = asyncio.ensure_future(fanout.send("t", 1, many))
    await asyncio.sleep(0)  # the first chunk is out: the others queue behind it
    await fanout.send("u", 2, [*many, *few])  # returns at once: queued
    await fanout.send("t", 3, many)
    assert fanout.pending == 3 and fed(few) == 0
    await first
    for subscription in many:
        assert [await subscription.receive() for _ in range(3)] == [("t", 1), ("u", 2), ("t", 3)]
    assert await few[0].receive() == ("u", 2)
    await fanout.send("u", 4, few)  # the fan-out over: a small one is handed out at once
    assert few[0]._queue.qsize() == 1 and fanout.pending == 0


async def test_a_fan_out_cancelled_between_chunks_still_reaches_everyone() -> None:
    broker = MemoryBroker()
    subscriptions = [broker.subscribe("t") for _ in range(FANOUT_CHUNK * 4)]
    fanout = Fanout()
    sending = asyncio.ensure_future(fanout.send("t", "news", subscriptions))
    await asyncio.sleep(0)  # the first chunk is handed out; the task waits for the loop
    assert fed(subscriptions) == FANOUT_CHUNK
    await fanout.send("t", "queued", subscriptions[:1])
    sending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sending
    assert all(s._queue.qsize() == 1 for s in subscriptions[1:])
    assert subscriptions[0]._queue.qsize() == 2 and fanout.pending == 0
    await fanout.send("t", "later", subscriptions)  # it hands out again
    assert all(s._queue.qsize() == 2 for s in subscriptions[1:])

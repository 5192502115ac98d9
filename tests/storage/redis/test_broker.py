"""``RedisBroker``: pub/sub between processes, event logs as streams, the catalog's changes.

Two brokers on one real Redis and one key prefix stand for two processes of an app; a broker
on another prefix is another app. Messages travel as JSON on ``<prefix><topic>`` channels;
a subscription is ready once Redis confirmed it; what is not JSON is dropped, not delivered.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator

import pytest
from redis import asyncio as aioredis

from genmcp.storage.fanout import FANOUT_CHUNK
from genmcp.storage.redis import RedisBroker
from genmcp.storage.redis.broker import CATALOG_TTL_MS, RedisSubscription


@pytest.fixture
async def raw(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


@pytest.fixture
async def brokers(redis_url: str, redis_prefix: str) -> AsyncIterator[list[RedisBroker]]:
    made = [RedisBroker.from_url(redis_url, prefix=redis_prefix) for _ in range(2)]
    made.append(RedisBroker.from_url(redis_url, prefix=redis_prefix + "other-app:"))
    yield made
    for broker in made:
        await broker.aclose()


async def test_a_message_published_by_one_process_reaches_the_others_of_its_app_only(
    brokers: list[RedisBroker],
) -> None:
    one, two, other_app = brokers
    here, there, elsewhere = (
        one.subscribe("news"),
        two.subscribe("news"),
        other_app.subscribe("news"),
    )
    for subscription in (here, there, elsewhere):
        await subscription.ready()
    await one.publish("news", {"n": 1, "text": "é"})
    assert await asyncio.wait_for(here.receive(), 2) == ("news", {"n": 1, "text": "é"})
    assert await asyncio.wait_for(there.receive(), 2) == ("news", {"n": 1, "text": "é"})
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(elsewhere.receive(), 0.2)


async def test_messages_keep_their_order_and_closing_forgets_the_topic(
    brokers: list[RedisBroker],
) -> None:
    one, two, _ = brokers
    subscription = two.subscribe("ordered")
    await subscription.ready()
    for n in range(20):
        await one.publish("ordered", n)
    assert [(await asyncio.wait_for(subscription.receive(), 2))[1] for _ in range(20)] == list(
        range(20)
    )
    assert two.topics == 1
    subscription.close()
    assert two.topics == 0


async def test_what_is_not_json_on_a_channel_is_dropped(
    brokers: list[RedisBroker],
    raw: aioredis.Redis,
    redis_prefix: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    subscription = brokers[0].subscribe("t")
    await subscription.ready()
    with caplog.at_level(logging.WARNING, logger="genmcp"):
        await raw.publish(f"{redis_prefix}t", "{not json")
        await raw.publish(f"{redis_prefix}t", json.dumps("after"))
        assert await asyncio.wait_for(subscription.receive(), 2) == ("t", "after")
    assert any("not JSON: dropped" in r.getMessage() for r in caplog.records)


async def test_a_closed_broker_refuses_new_subscriptions(redis_url: str, redis_prefix: str) -> None:
    broker = RedisBroker.from_url(redis_url, prefix=redis_prefix)
    subscription = broker.subscribe("t")
    await subscription.ready()
    await broker.aclose()
    assert subscription.closed
    with pytest.raises(RuntimeError, match="closed"):
        broker.subscribe("t")


async def test_an_event_log_is_a_stream_with_a_ttl(
    brokers: list[RedisBroker], raw: aioredis.Redis, redis_prefix: str
) -> None:
    one, two, _ = brokers
    ids = [await one.append("log:a", {"n": str(n)}, maxlen=100, ttl_s=30) for n in range(3)]
    assert await raw.type(f"{redis_prefix}log:a") == "stream"
    assert 29_000 < await raw.pttl(f"{redis_prefix}log:a") <= 30_000
    assert await two.last("log:a") == ids[-1]  # another process reads the same log
    assert await two.read_after("log:a", ids[0]) == [(ids[1], {"n": "1"}), (ids[2], {"n": "2"})]
    assert await two.read_after("log:a", "0") == [(i, {"n": str(n)}) for n, i in enumerate(ids)]
    assert await two.last("log:none") is None


async def test_catalog_changes_are_versioned_across_processes_and_expire(
    brokers: list[RedisBroker], raw: aioredis.Redis, redis_prefix: str
) -> None:
    one, two, other_app = brokers
    first = await one.record_change("tool:a", {"op": "add"})
    second = await two.record_change("tool:a", {"op": "remove"})
    third = await two.record_change("tool:b", {"op": "add"})
    assert first < second < third
    assert await one.changes() == [
        {"op": "remove", "version": second},
        {"op": "add", "version": third},
    ]
    assert await other_app.changes() == []
    for key in ("catalog:{c}", "catalog:{c}:version"):
        assert 0 < await raw.pttl(f"{redis_prefix}{key}") <= CATALOG_TTL_MS


async def test_a_catalog_version_stays_newer_than_any_before_redis_lost_the_log(
    brokers: list[RedisBroker], raw: aioredis.Redis, redis_prefix: str
) -> None:
    """Redis restarted empty (or a replica promoted before it had the last changes): the
    next version is still above every one given out before, so no process takes the next
    change for an old one (a counter began again at 1: issue 47, item 4)."""
    one, two, _ = brokers
    before = [await one.record_change(f"tool:t{n}", {"op": "add"}) for n in range(3)]
    await raw.delete(f"{redis_prefix}catalog:{{c}}", f"{redis_prefix}catalog:{{c}}:version")
    after = await two.record_change("tool:t0", {"op": "remove"})
    assert after > max(before)
    assert await one.changes() == [{"op": "remove", "version": after}]


# -- the hand-out to many local subscribers (storage.fanout, issue 50) ----------------------


def fed(subscriptions: list[RedisSubscription]) -> int:
    """How many of ``subscriptions`` hold a message they have not read."""
    return sum(not s._queue.empty() for s in subscriptions)


@pytest.mark.parametrize("topic", ["plain", "genmcp.changes"])
async def test_a_large_local_fan_out_lets_woken_readers_run_between_chunks(
    brokers: list[RedisBroker], topic: str
) -> None:
    # Over pub/sub and over the notice stream (a durable topic) alike.
    one, two, _ = brokers
    subscriptions = [two.subscribe(topic) for _ in range(FANOUT_CHUNK * 3 + 1)]
    await subscriptions[0].ready()
    fed_when_read: list[int] = []  # by each reader: how many had the message then

    async def reader(subscription: RedisSubscription) -> None:
        await subscription.receive()
        fed_when_read.append(len(fed_when_read) + fed(subscriptions) + 1)

    readers = [asyncio.ensure_future(reader(s)) for s in subscriptions]
    await one.publish(topic, "news")
    await asyncio.wait_for(asyncio.gather(*readers), 5)
    assert fed_when_read[0] == FANOUT_CHUNK  # not all of them: the loop ran in between
    assert max(fed_when_read) == len(subscriptions)


@pytest.mark.parametrize("topics", [("t", "u"), ("genmcp.changes:t", "genmcp.changes:u")])
async def test_publishes_reach_a_large_local_fan_out_in_order(
    brokers: list[RedisBroker], topics: tuple[str, str]
) -> None:
    one, two, _ = brokers
    t, u = topics
    many = [two.subscribe(t, u) for _ in range(FANOUT_CHUNK * 2 + 5)]
    few = two.subscribe(u)
    for subscription in (many[0], few):
        await subscription.ready()
    for n in range(5):
        await one.publish(t if n % 2 == 0 else u, n)
    expected = [(t if n % 2 == 0 else u, n) for n in range(5)]
    for subscription in many:
        assert [await asyncio.wait_for(subscription.receive(), 5) for _ in range(5)] == expected
    assert [await asyncio.wait_for(few.receive(), 5) for _ in range(2)] == [(u, 1), (u, 3)]


async def test_closing_during_a_large_hand_out_ends_every_task_and_delivers_the_rest(
    redis_url: str, redis_prefix: str
) -> None:
    sender = RedisBroker.from_url(redis_url, prefix=redis_prefix)
    broker = RedisBroker.from_url(redis_url, prefix=redis_prefix)
    try:
        subscriptions = [broker.subscribe("t") for _ in range(FANOUT_CHUNK * 4)]
        await subscriptions[0].ready()
        # Published meanwhile: this test waits, before the message arrives, on a subscriber
        # of the first chunk (the first in the broker's set), and so runs right after it.
        first = next(iter(broker._topics["t"].subscribers))
        publishing = asyncio.ensure_future(sender.publish("t", "news"))
        async with asyncio.timeout(5):
            assert await first.receive() == ("t", "news")
        assert fed(subscriptions) == FANOUT_CHUNK - 1  # the reader waits between chunks
        reader = broker._reader
        assert reader is not None and not reader.done()
        await broker.aclose()
        await publishing
    finally:
        await sender.aclose()
    assert reader.done() and all(s.closed for s in subscriptions)
    assert fed(subscriptions) == len(subscriptions) - 1  # cancelled, it handed out the rest
    assert [t for t in asyncio.all_tasks() if t.get_name().startswith("genmcp:")] == []

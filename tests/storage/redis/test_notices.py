"""Durable topics on ``RedisBroker``: logged in the notice stream, read from where a process
left off, each event handed on once.

Two brokers on one real Redis and one key prefix stand for two processes. A durable topic
(``storage.messaging.durable``) never goes over pub/sub: what is published while a reader's
connection is cut (``CLIENT KILL``, as a failover cuts it) still arrives after it reconnects;
an entry read twice (a publish sent again, a reader rewound after a failure) is handed on
once; a plain topic is still pub/sub.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from genmcp.storage import Subscription
from genmcp.storage.redis import RedisBroker, RedisOptions
from genmcp.storage.redis.notices import MAXLEN, NoticeLog
from support.redis_topology import admins, sync_client

CHANGES = "genmcp.changes"


@pytest.fixture
def raw(redis_url: str) -> Iterator[Any]:
    """A synchronous client that reaches every key (on whatever topology the tests run)."""
    client = sync_client(redis_url)
    yield client
    client.close()


@pytest.fixture
async def brokers(redis_url: str, redis_prefix: str) -> AsyncIterator[list[RedisBroker]]:
    made = [
        RedisBroker.from_url(redis_url, prefix=redis_prefix, client_name=f"{redis_prefix}{n}")
        for n in range(2)
    ]
    yield made
    for broker in made:
        await broker.aclose()


async def drain(subscription: Subscription, count: int) -> list[object]:
    return [(await asyncio.wait_for(subscription.receive(), 10))[1] for _ in range(count)]


async def test_a_durable_message_is_logged_and_reaches_every_process_in_order(
    brokers: list[RedisBroker], raw: Any
) -> None:
    one, two = brokers
    here, there = one.subscribe(CHANGES), two.subscribe(CHANGES)
    await here.ready()
    await there.ready()
    for n in range(20):
        await one.publish(CHANGES, {"n": n})
    assert await drain(here, 20) == [{"n": n} for n in range(20)]
    assert await drain(there, 20) == [{"n": n} for n in range(20)]
    assert raw.xlen(one.notices.key) == 20
    assert 0 < raw.pttl(one.notices.key)


async def test_what_is_published_while_a_reader_is_cut_off_arrives_once_after(
    brokers: list[RedisBroker], redis_url: str, redis_prefix: str
) -> None:
    one, two = brokers
    durable_sub, plain_sub = two.subscribe(CHANGES), two.subscribe("plain")
    await durable_sub.ready()
    await plain_sub.ready()
    await one.publish(CHANGES, {"n": 0})
    assert await drain(durable_sub, 1) == [{"n": 0}]
    # Cut the second process's reading connections (the notice reader's, pub/sub's), then
    # publish before they are back.
    killed = 0
    for node in admins(redis_url):
        for client in node.client_list():
            if client.get("name") == f"{redis_prefix}1" and client.get("cmd") in (
                "xread",
                "subscribe",
                "ssubscribe",
            ):
                killed += node.client_kill_filter(_id=client["id"])
        node.close()
    assert killed == 2
    for n in range(1, 11):
        await one.publish(CHANGES, {"n": n})
    assert await drain(durable_sub, 10) == [{"n": n} for n in range(1, 11)]
    await one.publish(CHANGES, {"n": 11})
    assert await drain(durable_sub, 1) == [{"n": 11}]


async def test_an_entry_read_again_is_handed_on_once(brokers: list[RedisBroker], raw: Any) -> None:
    one, _ = brokers
    subscription = one.subscribe(CHANGES)
    await subscription.ready()
    await one.publish(CHANGES, {"n": 1})
    # The same event logged twice (a publish sent again after a short WAIT): handed on once.
    [(_, fields)] = raw.xrange(one.notices.key)
    raw.xadd(one.notices.key, fields)
    await one.publish(CHANGES, {"n": 2})
    assert await drain(subscription, 2) == [{"n": 1}, {"n": 2}]
    assert one.notices.maxlen == MAXLEN


async def test_a_subscription_ready_gets_what_is_published_after_and_not_before(
    brokers: list[RedisBroker],
) -> None:
    one, two = brokers
    await one.publish(CHANGES, {"n": "before"})
    subscription = two.subscribe(CHANGES)
    await subscription.ready()
    await one.publish(CHANGES, {"n": "after"})
    assert await drain(subscription, 1) == [{"n": "after"}]


async def test_the_reader_ends_at_aclose_even_when_its_cancel_is_swallowed(
    redis_url: str, redis_prefix: str
) -> None:
    # On Python 3.11 redis-py sends each command under asyncio.wait_for, which loses a cancel
    # that lands as the send ends. Forced here: the cancel of aclose reaches the reader in a
    # deliver that swallows it. The reader must stop anyway (it read on, with a new client,
    # and Runner's final cancel could meet the same fate: a server that never stops).
    client = RedisOptions().client(redis_url)
    closing: list[asyncio.Task[None]] = []

    async def deliver(topic: str, message: Any) -> None:
        closing.append(asyncio.ensure_future(notices.aclose()))
        try:
            await asyncio.sleep(30)  # a hang guard: aclose cancels it at once
        except asyncio.CancelledError:
            pass  # what wait_for does on 3.11 when the send it waited on just ended

    notices = NoticeLog(
        client, key=f"{redis_prefix}notices", options=RedisOptions(), deliver=deliver
    )
    notices.start()
    reader = notices._task
    assert reader is not None
    try:
        await asyncio.wait_for(notices.positioned.wait(), 10)
        await notices.publish(CHANGES, {"n": 1})
        await asyncio.wait_for(asyncio.shield(reader), 10)  # a hang guard
        assert reader.done() and not reader.cancelled()  # ended by itself: the cancel was lost
        await asyncio.wait_for(closing[0], 10)
    finally:
        reader.cancel()
        await notices.aclose()
        await client.aclose()

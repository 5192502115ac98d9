"""``storage.messaging`` on every backend: what a ``Broker`` delivers and to whom, a Redis
broker across a lost connection and a Redis that is down, ``Inboxes`` and ``EventLog``; and
which topics are :func:`durable`.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from genmcp.storage import Subscription, durable
from tests.storage.backend_kit import (
    JSON_VALUES,
    QUIET,
    WAIT,
    Backend,
    nothing_arrives,
    receive,
    session,
    subscribed,
)


def test_the_change_and_task_topics_are_durable_and_the_others_are_not() -> None:
    assert durable("genmcp.changes") and durable("genmcp.changes.logged")
    assert durable("genmcp.task/abc") and durable("tenant:t1:genmcp.changes")
    assert not durable("genmcp.catalog") and not durable("legacy/s/get")


@pytest.mark.parametrize("message", JSON_VALUES, ids=repr)
async def test_a_published_message_reaches_a_subscriber_equal(
    backend: Backend, message: Any
) -> None:
    subscription = await subscribed(backend.broker(), "topic")
    await backend.broker().publish("topic", message)
    assert await receive(subscription) == ("topic", message)


async def test_a_subscription_receives_its_topics_in_publish_order(backend: Backend) -> None:
    broker, publisher = backend.broker(), backend.broker()
    subscription = await subscribed(broker, "a", "b")
    for n in range(50):
        await publisher.publish("ab"[n % 2], n)
    await publisher.publish("c", "not subscribed")
    assert [await receive(subscription) for _ in range(50)] == [("ab"[n % 2], n) for n in range(50)]
    await nothing_arrives(subscription)


async def test_every_subscriber_of_a_topic_receives_each_message(backend: Backend) -> None:
    subscriptions = [await subscribed(backend.broker(), "t") for _ in range(3)]
    subscriptions.append(await subscribed(backend.broker(), "t", "u"))
    await backend.broker().publish("t", {"n": 1})
    for subscription in subscriptions:
        assert await receive(subscription) == ("t", {"n": 1})


async def test_a_message_without_subscribers_is_dropped(backend: Backend) -> None:
    broker = backend.broker()
    await broker.publish("early", "nobody listens")
    subscription = await subscribed(broker, "early")
    await broker.publish("early", "late")
    assert await receive(subscription) == ("early", "late")
    await nothing_arrives(subscription)


async def test_a_closed_subscription_receives_nothing_more(backend: Backend) -> None:
    broker = backend.broker()
    closing = await subscribed(broker, "t")
    staying = await subscribed(broker, "t")
    closing.close()
    closing.close()  # idempotent
    await backend.broker().publish("t", "after close")
    assert await receive(staying) == ("t", "after close")  # dispatched...
    await nothing_arrives(closing)  # ...but not to the closed one
    staying.close()
    assert broker.topics == 0
    again = await subscribed(broker, "t")  # the topic can be subscribed again
    await backend.broker().publish("t", "again")
    assert await receive(again) == ("t", "again")
    again.close()
    assert broker.topics == 0


async def test_unsubscribing_and_resubscribing_at_once_loses_no_later_message(
    backend: Backend,
) -> None:
    broker = backend.broker()
    for n in range(5):
        broker.subscribe("flap").close()  # never awaited: SUBSCRIBE and UNSUBSCRIBE queue up
        subscription = await subscribed(broker, "flap")
        await backend.broker().publish("flap", n)
        assert await receive(subscription) == ("flap", n)
        subscription.close()


async def test_concurrent_publishers_reach_concurrent_subscribers(backend: Backend) -> None:
    publishers = [backend.broker() for _ in range(4)]
    subscriptions = await asyncio.gather(
        *(asyncio.wait_for(subscribed(backend.broker(), "load"), WAIT) for _ in range(4))
    )

    async def publish(who: int) -> None:
        for n in range(25):
            await publishers[who].publish("load", [who, n])

    async def collect(subscription: Subscription) -> list[Any]:
        return [(await receive(subscription))[1] for _ in range(100)]

    collected, _ = await asyncio.gather(
        asyncio.gather(*(collect(s) for s in subscriptions)),
        asyncio.gather(*(publish(who) for who in range(4))),
    )
    for messages in collected:
        assert sorted(map(tuple, messages)) == [(w, n) for w in range(4) for n in range(25)]
        for who in range(4):  # each publisher's messages arrive in its order
            assert [n for w, n in messages if w == who] == list(range(25))


async def test_a_redis_broker_resubscribes_after_losing_its_connection(
    redis_url: str, redis_prefix: str
) -> None:
    from genmcp.storage.redis import RedisBroker
    from support.redis_topology import admins

    name = f"genmcp-test-{uuid.uuid4().hex[:12]}"
    broker = RedisBroker.from_url(redis_url, prefix=redis_prefix, client_name=name)
    try:
        subscription = await subscribed(broker, "t")
        killed = []
        for admin in admins(redis_url):  # the node the pub/sub connection is on
            try:
                mine = [c["id"] for c in admin.client_list() if c.get("name") == name]
                for client_id in mine:
                    admin.client_kill_filter(_id=client_id)
                killed += mine
            finally:
                admin.close()
        assert killed
        for n in range(50):  # what is published during the outage is lost; then it flows
            await broker.publish("t", n)
            try:
                topic, _ = await asyncio.wait_for(subscription.receive(), QUIET)
            except TimeoutError:
                continue
            assert topic == "t"
            break
        else:
            pytest.fail("the subscription never received again after the connection was lost")
    finally:
        await broker.aclose()
    assert [t for t in asyncio.all_tasks() if t.get_name().startswith("genmcp:")] == []


async def test_ready_fails_fast_with_storage_unavailable_when_redis_is_unreachable() -> None:
    pytest.importorskip("redis")
    from genmcp.storage.guard import StorageUnavailable
    from genmcp.storage.redis import RedisBroker

    broker = RedisBroker.from_url(
        "redis://127.0.0.1:1/0", ready_timeout_s=60, socket_connect_timeout=0.1
    )  # the 60 s confirmation wait is not what bounds it (WAIT would fail first): the breaker is
    try:
        with pytest.raises(StorageUnavailable, match="redis is unreachable"):
            await asyncio.wait_for(broker.subscribe("t").ready(), WAIT)
        with pytest.raises(StorageUnavailable, match="failing"):  # the breaker is open
            await broker.subscribe("u").ready()
    finally:
        await asyncio.wait_for(broker.aclose(), WAIT)
    assert [t for t in asyncio.all_tasks() if t.get_name().startswith("genmcp:")] == []


async def test_an_inbox_receives_what_is_delivered_to_its_address_only(backend: Backend) -> None:
    from genmcp.storage import Inboxes

    broker = backend.broker()
    assert isinstance(broker, Inboxes)
    address = uuid.uuid4().hex[:12]
    assert await broker.deliver(address, {"n": 0}) is False  # nobody has it open
    assert await broker.is_alive(address) is False
    inbox = broker.open_inbox(address)
    try:
        for _ in range(50):  # Redis: the first heartbeat is a round trip away
            if await broker.is_alive(address):
                break
            await asyncio.sleep(0.02)
        sent = [{"n": n, "text": "é"} for n in range(20)]
        assert [await broker.deliver(address, message) for message in sent] == [True] * 20
        assert [await asyncio.wait_for(inbox.receive(), WAIT) for _ in sent] == sent
    finally:
        inbox.close()
    for _ in range(50):
        if not await broker.is_alive(address):
            break
        await asyncio.sleep(0.02)
    assert await broker.deliver(address, {"n": 99}) is False  # closed: refused at once


async def test_an_event_log_keeps_order_and_its_bound(backend: Backend) -> None:
    from genmcp.storage import EventLog

    broker = backend.broker()
    assert isinstance(broker, EventLog)
    key = f"events:{session()}"
    assert await broker.last(key) is None
    ids = [await broker.append(key, {"m": str(n)}, 5, 10) for n in range(3)]
    assert await broker.last(key) == ids[-1]
    assert [entry["m"] for _, entry in await broker.read_after(key, "0")] == ["0", "1", "2"]
    assert [entry["m"] for _, entry in await broker.read_after(key, ids[0])] == ["1", "2"]
    assert await broker.read_after(key, ids[-1]) == []
    for n in range(3, 200):
        await broker.append(key, {"m": str(n)}, 5, 10)
    kept = await broker.read_after(key, "0")
    assert kept[-1][1] == {"m": "199"} and len(kept) <= 200 - 100  # MAXLEN ~: about 5
    assert await broker.read_after(f"events:{session()}", "0") == []

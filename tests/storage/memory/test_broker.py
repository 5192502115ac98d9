"""The in-process broker (``storage.memory.broker``): its own rules.

The behaviour every broker shares is the contract (tests/storage/test_messaging.py); these
are the memory broker's: bounded subscriber queues and inboxes, topics forgotten with their
last subscriber, the bounded event logs, and the latest catalog change per key.
"""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from genmcp.storage import InboxFull
from genmcp.storage.fanout import FANOUT_CHUNK
from genmcp.storage.memory import INBOX_SIZE, MemoryBroker
from genmcp.storage.memory import QUEUE_SIZE as SUBSCRIPTION_QUEUE
from genmcp.storage.memory.broker import QueuedSubscription


async def test_a_full_subscription_drops_what_it_cannot_hold_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    broker = MemoryBroker()
    subscription = broker.subscribe("t")
    with caplog.at_level(logging.WARNING, logger="genmcp"):
        for n in range(SUBSCRIPTION_QUEUE + 5):
            await broker.publish("t", n)
    received = [await subscription.receive() for _ in range(SUBSCRIPTION_QUEUE)]
    assert received == [("t", n) for n in range(SUBSCRIPTION_QUEUE)]
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(subscription.receive(), 0.05)
    assert sum("message dropped" in r.getMessage() for r in caplog.records) == 5


async def test_topics_are_forgotten_when_their_last_subscriber_closes() -> None:
    broker = MemoryBroker()
    one, two = broker.subscribe("a", "b"), broker.subscribe("b")
    assert broker.topics == 2
    one.close()
    one.close()  # closing twice is harmless
    assert broker.topics == 1
    await broker.publish("a", "nobody listens")
    await broker.aclose()
    assert broker.topics == 0 and two.closed


async def test_inboxes_deliver_to_open_addresses_only_and_refuse_when_full() -> None:
    broker = MemoryBroker()
    assert not await broker.deliver("nowhere", "x")
    inbox = broker.open_inbox("a-1")
    assert await broker.is_alive("a-1")
    for n in range(INBOX_SIZE):
        assert await broker.deliver("a-1", n)
    with pytest.raises(InboxFull, match="a-1"):
        await broker.deliver("a-1", "one too many")
    assert await inbox.receive() == 0
    newer = broker.open_inbox("a-1")
    inbox.close()  # the older inbox of the address no longer owns it
    assert await broker.is_alive("a-1")
    newer.close()
    assert not await broker.is_alive("a-1")


async def test_an_event_log_keeps_its_newest_maxlen_entries() -> None:
    broker = MemoryBroker()
    assert await broker.last("log") is None
    ids = [await broker.append("log", {"n": str(n)}, maxlen=3, ttl_s=60) for n in range(5)]
    assert await broker.last("log") == ids[-1]
    assert await broker.read_after("log", "0-0") == [(ids[n], {"n": str(n)}) for n in (2, 3, 4)]
    assert await broker.read_after("log", ids[3]) == [(ids[4], {"n": "4"})]
    assert await broker.read_after("other", "0-0") == []


async def test_catalog_changes_keep_the_latest_per_key_in_version_order() -> None:
    broker = MemoryBroker()
    assert await broker.record_change("tool:a", {"op": "add"}) == 1
    assert await broker.record_change("tool:b", {"op": "add"}) == 2
    assert await broker.record_change("tool:a", {"op": "remove"}) == 3
    assert await broker.changes() == [
        {"op": "add", "version": 2},
        {"op": "remove", "version": 3},
    ]


def test_a_subscription_is_fed_on_its_own_loop_when_another_loop_publishes() -> None:
    # One app served by two loops of a process (a test kit beside a live server): a change is
    # published on the other thread's loop while this one waits. Put into the queue from that
    # thread, the reader would sleep on until something else woke this loop; asyncio's debug
    # mode makes that certain to show: it refuses a wake-up scheduled from another thread.
    # A loop of the test's own, so that a reader left hanging cannot hang the test's teardown.
    broker, refused = MemoryBroker(), list[BaseException]()

    def other_loop() -> None:
        try:
            asyncio.run(broker.publish("t", "from the other loop"))
        except BaseException as exc:  # reported by the assert below
            refused.append(exc)

    async def listen() -> set[asyncio.Task[tuple[str, object]]]:
        subscription = broker.subscribe("t")
        reader = asyncio.ensure_future(subscription.receive())
        await asyncio.sleep(0)  # the reader waits on the queue
        threading.Thread(target=other_loop).start()
        done, _ = await asyncio.wait({reader}, timeout=5)
        subscription.close()
        return done

    loop = asyncio.new_event_loop()
    loop.set_debug(True)
    try:
        done = loop.run_until_complete(listen())
    finally:
        loop.close()
    assert refused == []
    assert [task.result() for task in done] == [("t", "from the other loop")]


async def test_a_large_fan_out_lets_woken_readers_run_between_chunks() -> None:
    # 10,000 streams woken at once outlived the young collections (issue 50): past
    # FANOUT_CHUNK subscribers, the first chunk's readers run before the next chunk is fed.
    broker = MemoryBroker()
    subscriptions = [broker.subscribe("t") for _ in range(FANOUT_CHUNK * 3 + 1)]
    fed_when_read: list[int] = []  # by each reader: how many had the message then

    async def reader(subscription: QueuedSubscription[MemoryBroker]) -> None:
        await subscription.receive()
        waiting = sum(not s._queue.empty() for s in subscriptions)
        fed_when_read.append(len(fed_when_read) + waiting + 1)

    readers = [asyncio.ensure_future(reader(s)) for s in subscriptions]
    await asyncio.sleep(0)  # each reader waits on its queue
    await broker.publish("t", "news")
    await asyncio.gather(*readers)
    assert fed_when_read[0] == FANOUT_CHUNK  # not all of them: the loop ran in between
    assert max(fed_when_read) == len(subscriptions)

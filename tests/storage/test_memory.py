"""The in-process stores (``storage.memory``): what one process keeps, and how it stays bounded.

The behaviour every store shares is the contract (tests/storage/test_contract.py); these are
the memory stores' own rules: hard caps that drop the oldest entries (hostile clients open
sessions for free), expiry, a per-process epoch, bounded subscriber queues and inboxes, the
bounded event logs, and the task store's cap.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from genmcp.protocol.tasks import iso_now, new_record
from genmcp.storage import InboxFull, TaskEnd, TaskQuotaExceeded
from genmcp.storage.memory import (
    INBOX_SIZE,
    MemoryBroker,
    MemorySessionRegistry,
    MemoryTaskStore,
)
from genmcp.storage.memory import QUEUE_SIZE as SUBSCRIPTION_QUEUE

LOST = {"code": -32603, "message": "lease lost"}


async def test_the_registry_keeps_at_most_max_entries_dropping_the_oldest() -> None:
    registry = MemorySessionRegistry(max_entries=3)
    for n in range(5):
        await registry.put(f"s{n}", "level", n, ttl_s=60)
    assert [await registry.get(f"s{n}", "level") for n in range(5)] == [None, None, 2, 3, 4]


async def test_session_fields_and_end_markers_expire() -> None:
    registry = MemorySessionRegistry()
    await registry.put("s", "level", "debug", ttl_s=0.05)
    await registry.add("s", "uris", "a://1", ttl_s=0.05)
    await registry.end("gone", ttl_s=0.05)
    assert await registry.get("s", "level") == "debug"
    assert await registry.members("s", "uris") == frozenset({"a://1"})
    assert await registry.is_ended("gone")
    await asyncio.sleep(0.1)
    assert await registry.get("s", "level") is None
    assert await registry.members("s", "uris") == frozenset()
    assert not await registry.is_ended("gone")


async def test_each_registry_has_its_own_epoch_so_a_new_process_knows_no_session() -> None:
    first, second = MemorySessionRegistry(), MemorySessionRegistry()
    epoch = await first.epoch(ttl_s=60)
    assert epoch == await first.epoch(ttl_s=60) != await second.epoch(ttl_s=60)
    await first.put("s", "level", "info", ttl_s=60)
    assert await first.lookup("s", epoch, ("level", "other")) == {"level": "info", "other": None}
    assert await first.lookup("s", await second.epoch(ttl_s=60), ("level",)) is None
    await first.end("s", ttl_s=60)
    assert await first.lookup("s", epoch, ("level",)) is None


async def test_discarding_the_last_member_empties_the_set() -> None:
    registry = MemorySessionRegistry()
    await registry.add("s", "uris", "a://1", ttl_s=60)
    await registry.discard("s", "uris", "a://1", ttl_s=60)
    await registry.discard("s", "uris", "never-added", ttl_s=60)
    assert await registry.members("s", "uris") == frozenset()


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


async def test_the_task_store_keeps_at_most_max_tasks_dropping_ended_ones_only() -> None:
    store = MemoryTaskStore(max_tasks=2)
    for n in range(2):
        await store.create(new_record(f"t{n}", None, 60_000, None), lease_ms=60_000, owner="me")
    with pytest.raises(TaskQuotaExceeded) as full:  # both live: none is evicted
        await store.create(new_record("t2", None, 60_000, None), lease_ms=60_000, owner="me")
    assert full.value.limit == "max_tasks" and len(store) == 2
    await store.finish("t1", TaskEnd("completed"), iso_now())
    await store.create(new_record("t2", None, 60_000, None), lease_ms=60_000, owner="me")
    assert len(store) == 2
    assert await store.get("t1", lost=LOST) is None  # the ended one made room
    assert (await store.get("t0", lost=LOST) or {})["status"] == "working"
    assert (await store.get("t2", lost=LOST) or {})["status"] == "working"


async def test_a_task_expires_with_its_ttl_and_a_lapsed_lease_fails_it() -> None:
    store = MemoryTaskStore()
    await store.create(new_record("short", None, 50, None), lease_ms=60_000, owner="me")
    await store.create(new_record("lapsed", None, 60_000, None), lease_ms=-1, owner="me")
    failed = await store.get("lapsed", lost=LOST)
    assert failed is not None and failed["status"] == "failed" and failed["error"] == LOST
    assert await store.finish("lapsed", TaskEnd("completed"), iso_now()) is None  # terminal
    await asyncio.sleep(0.1)
    assert await store.get("short", lost=LOST) is None and await store.owner("short") is None

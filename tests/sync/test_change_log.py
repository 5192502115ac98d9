"""The Suite's change log over both event logs (memory, and a real Redis when one answers):
a new stream starts at an entry (a mark in an empty log), reads back what came after it, and
knows an entry it no longer holds (trimmed past ``maxlen``, or never there)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from genmcp.storage import EventLog
from genmcp.storage.memory import MemoryBroker
from genmcp.sync.change_log import ChangeLog
from support.shared_redis import require_redis

NOTICE = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


@pytest.fixture(params=["memory", "redis"])
async def events(request: pytest.FixtureRequest) -> AsyncIterator[EventLog]:
    if request.param == "memory":
        yield MemoryBroker()
        return
    from genmcp.storage.redis import RedisBroker

    prefix = f"genmcp-test:{uuid.uuid4().hex}:"
    broker = RedisBroker.from_url(require_redis(), prefix=prefix)
    try:
        yield broker  # its one key expires 10 s after the test's last change
    finally:
        await broker.aclose()


async def test_a_stream_starts_at_an_entry_and_reads_what_came_after(events: EventLog) -> None:
    changes = ChangeLog(events, maxlen=5, ttl_s=10)
    start = await changes.tail()  # an empty log gets a mark: the id names an entry
    assert start is not None and await changes.tail() == start
    assert await changes.since(start) == []
    first = await changes.record(NOTICE)
    assert first is not None and await changes.tail() == first
    assert await changes.since(start) == [(first, NOTICE)]
    assert await changes.after(start) == [(first, NOTICE)]
    assert await changes.after(first) == []


async def test_an_entry_the_log_no_longer_holds_is_known_as_lost(events: EventLog) -> None:
    changes = ChangeLog(events, maxlen=5, ttl_s=10)
    start = await changes.tail()
    assert start is not None
    for _ in range(200):
        await changes.record(NOTICE)
    assert await changes.since(start) is None  # trimmed: what came after it may be lost
    assert await changes.since("99999999999999-0") is None  # never there
    assert await changes.since("1-0") is None

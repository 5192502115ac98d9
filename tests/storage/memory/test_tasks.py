"""The in-process task store (``storage.memory.tasks``): its own rules.

The behaviour every task store shares is the contract (tests/storage/test_tasks.py);
these are the memory store's: its cap (ended records go first, never a live one), expiry
with the record's TTL, and a lapsed lease failing the task.
"""

from __future__ import annotations

import asyncio

import pytest

from genmcp.protocol.tasks import iso_now, new_record
from genmcp.storage import Lease, TaskEnd, TaskQuotaExceeded
from genmcp.storage.memory import MemoryTaskStore

LOST = {"code": -32603, "message": "lease lost"}


async def test_the_task_store_keeps_at_most_max_tasks_dropping_ended_ones_only() -> None:
    store = MemoryTaskStore(max_tasks=2)
    for n in range(2):
        await store.create(new_record(f"t{n}", None, 60_000, None), Lease("me", 60_000))
    with pytest.raises(TaskQuotaExceeded) as full:  # both live: none is evicted
        await store.create(new_record("t2", None, 60_000, None), Lease("me", 60_000))
    assert full.value.limit == "max_tasks" and len(store) == 2
    await store.finish("t1", TaskEnd("completed"), iso_now())
    await store.create(new_record("t2", None, 60_000, None), Lease("me", 60_000))
    assert len(store) == 2
    assert await store.get("t1", lost=LOST) is None  # the ended one made room
    assert (await store.get("t0", lost=LOST) or {})["status"] == "working"
    assert (await store.get("t2", lost=LOST) or {})["status"] == "working"


async def test_a_task_expires_with_its_ttl_and_a_lapsed_lease_fails_it() -> None:
    store = MemoryTaskStore()
    await store.create(new_record("short", None, 50, None), Lease("me", 60_000))
    await store.create(new_record("lapsed", None, 60_000, None), Lease("me", -1))
    failed = await store.get("lapsed", lost=LOST)
    assert failed is not None and failed["status"] == "failed" and failed["error"] == LOST
    assert await store.finish("lapsed", TaskEnd("completed"), iso_now()) is None  # terminal
    await asyncio.sleep(0.1)
    assert await store.get("short", lost=LOST) is None and await store.owner("short") is None

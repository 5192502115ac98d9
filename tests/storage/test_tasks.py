"""``storage.tasks``: its values refuse what cannot be, and every ``TaskStore`` counts a
``TaskQuota`` the same way, atomically (memory and Redis).
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

import pytest

from genmcp.storage import Lease, TaskEnd, TaskOptions, TaskQuota, now_ms
from tests.storage.backend_kit import Backend

LOST: Final = {"code": -32603, "message": "lease lost"}


def test_the_values_refuse_what_cannot_be() -> None:
    with pytest.raises(ValueError, match="counts >= 0"):
        TaskQuota(live_per_owner=-1)
    with pytest.raises(ValueError, match="window_s > 0"):
        TaskQuota(window_s=0)
    assert TaskQuota(live_per_owner=0, max_live=0).max_live == 0  # 0: that limit is off
    with pytest.raises(ValueError, match="lease_ms >= 30"):
        TaskOptions(lease_ms=29)
    with pytest.raises(ValueError, match="max_rounds >= 1"):
        TaskOptions(max_rounds=0)
    with pytest.raises(ValueError, match="not 'working'"):
        TaskEnd("working")
    assert TaskEnd("failed", error={"code": 1}).error == {"code": 1}


def test_now_ms_is_the_wall_clock_in_whole_milliseconds() -> None:
    import time

    before = int(time.time() * 1000)
    stamp = now_ms()
    assert isinstance(stamp, int) and before <= stamp <= int(time.time() * 1000)


@pytest.fixture
def task_store(backend: Backend) -> Any:
    return backend.tasks()


async def new_task(store: Any, principal: str | None, quota: Any = None) -> str:
    from genmcp.protocol.tasks import new_record, new_task_id

    record = new_record(new_task_id(), principal, 60_000, 1000)
    await store.create(record, Lease("p", 6_000), quota=quota)
    return str(record["taskId"])


async def refused(store: Any, principal: str | None, quota: Any) -> Any:
    from genmcp.storage import TaskQuotaExceeded

    with pytest.raises(TaskQuotaExceeded) as caught:
        await new_task(store, principal, quota)
    return caught.value


async def test_live_tasks_per_owner_are_capped_and_an_ended_one_frees_its_place(
    task_store: Any,
) -> None:
    from genmcp.storage import TaskEnd, TaskQuota

    quota = TaskQuota(live_per_owner=3, created_per_window=0, max_live=0)
    alice = [await new_task(task_store, "alice", quota) for _ in range(3)]
    assert (await refused(task_store, "alice", quota)).limit == "live_per_owner"
    await new_task(task_store, "bob", quota)  # another owner's count
    await new_task(task_store, None, quota)  # the open server's one owner
    await task_store.finish(alice[0], TaskEnd("completed", result={}), "now")
    await new_task(task_store, "alice", quota)
    for task_id in alice[1:]:  # refusals touched no live task
        assert (await task_store.get(task_id, lost=LOST))["status"] == "working"


async def test_creations_per_window_are_capped_until_the_window_ends(task_store: Any) -> None:
    from genmcp.storage import TaskQuota

    quota = TaskQuota(live_per_owner=0, created_per_window=2, window_s=0.4, max_live=0)
    for _ in range(2):
        await new_task(task_store, "alice", quota)
    refusal = await refused(task_store, "alice", quota)
    assert refusal.limit == "created_per_window" and 0 < refusal.retry_after_s <= 0.4
    await new_task(task_store, "bob", quota)
    await asyncio.sleep(refusal.retry_after_s + 0.05)
    await new_task(task_store, "alice", quota)


async def test_all_owners_live_tasks_are_capped(task_store: Any) -> None:
    from genmcp.storage import TaskEnd, TaskQuota

    quota = TaskQuota(live_per_owner=0, created_per_window=0, max_live=2)
    first = await new_task(task_store, "a", quota)
    await new_task(task_store, "b", quota)
    assert (await refused(task_store, "c", quota)).limit == "max_live"
    await task_store.finish(first, TaskEnd("cancelled"), "now")
    await new_task(task_store, "c", quota)


async def test_filling_max_live_takes_a_thousand_owners_not_63(task_store: Any) -> None:
    """Issue 48, finding 14: owners that each take all they can fill the lower half of
    ``max_live`` at ``live_per_owner`` apiece, then the upper half one apiece
    (``crowded_per_owner``). With the defaults (32 per owner, 2,000 live) filling the cap takes
    31 + 1 + 1,000 owners (before: 63); here the same arithmetic on a tenth of the tasks (8 per
    owner, 200 live: 12 + 1 + 100 owners, before: 25), and until then a newcomer is served."""
    from genmcp.storage import TaskQuota, TaskQuotaExceeded

    quota = TaskQuota(live_per_owner=8, max_live=200)
    held: list[int] = []
    while True:
        owner, count = f"owner-{len(held)}", 0
        try:
            while count < quota.live_per_owner:
                await new_task(task_store, owner, quota)
                count += 1
        except TaskQuotaExceeded as exc:
            assert exc.limit in ("fair_share", "max_live")
            if exc.limit == "max_live":
                held.append(count)
                break
        held.append(count)
    assert sum(held) == quota.max_live
    assert held[:12] == [8] * 12 and held[12] == 100 - 12 * 8
    assert held[13:] == [1] * 100 and len(held) == 113


async def test_a_lost_lease_frees_the_owners_place(task_store: Any) -> None:
    from genmcp.protocol.tasks import new_record, new_task_id
    from genmcp.storage import TaskQuota

    quota = TaskQuota(live_per_owner=1, created_per_window=0, max_live=0)
    record = new_record(new_task_id(), "alice", 60_000, 1000)
    await task_store.create(record, Lease("dead", 30), quota=quota)
    assert (await refused(task_store, "alice", quota)).limit == "live_per_owner"
    await asyncio.sleep(0.06)
    assert (await task_store.get(record["taskId"], lost=LOST))["status"] == "failed"
    await new_task(task_store, "alice", quota)


async def test_a_full_memory_store_evicts_ended_records_never_a_live_task() -> None:
    from genmcp.storage import TaskEnd
    from genmcp.storage.memory import MemoryTaskStore

    store = MemoryTaskStore(max_tasks=200)
    bob = await new_task(store, "bob")  # running, the oldest record of all
    alice = [await new_task(store, "alice") for _ in range(199)]
    assert (await refused(store, "alice", None)).limit == "max_tasks"  # all 200 are live
    assert (await store.get(bob, lost=LOST))["status"] == "working"
    for task_id in alice[:50]:
        await store.finish(task_id, TaskEnd("completed", result={}), "now")
    for _ in range(50):  # room made from ended records, first ended first
        await new_task(store, "alice")
    assert (await store.get(bob, lost=LOST))["status"] == "working"
    assert [await store.get(t, lost=LOST) for t in alice[:50]] == [None] * 50
    assert None not in [await store.get(t, lost=LOST) for t in alice[50:]]
    assert len(store) == 200

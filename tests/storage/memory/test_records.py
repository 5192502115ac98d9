"""The in-process record store (``storage.memory.records``): its own rules.

What every ``RecordStore`` does is tested against both stores in
tests/storage/redis/test_records.py; these are the memory store's bounds: each kind holds
at most ``max_entries`` records, the oldest going first, and so do its spent markers.
"""

from __future__ import annotations

from genmcp.storage.memory import MemoryRecordStore


async def test_each_kind_keeps_at_most_max_entries_dropping_the_oldest() -> None:
    store = MemoryRecordStore(max_entries=2)
    for n in range(3):
        await store.put("code", f"c{n}", n, 60)
    await store.put("consent", "k", "v", 60)  # another kind: its own bound
    assert [await store.get("code", f"c{n}") for n in range(3)] == [None, 1, 2]
    assert await store.get("consent", "k") == "v"


async def test_spent_markers_are_bounded_too() -> None:
    store = MemoryRecordStore(max_entries=2)
    for n in range(3):
        await store.put("code", f"c{n}", n, 60, tag=f"family-{n}")
        assert await store.take("code", f"c{n}", 60) == (n, None)
    taken = [await store.take("code", f"c{n}", 60) for n in range(3)]
    assert taken == [(None, None), (None, "family-1"), (None, "family-2")]

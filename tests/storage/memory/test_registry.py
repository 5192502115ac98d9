"""The in-process session registry (``storage.memory.registry``): its own rules.

The behaviour every registry shares is the contract (tests/storage/test_sessions.py); these
are the memory registry's: a hard cap that drops the oldest entries (hostile clients open
sessions for free), expiry, and a per-process epoch.
"""

from __future__ import annotations

import asyncio

from genmcp.storage.memory import MemorySessionRegistry


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

"""``MemoryStateStore``: a bounded number of owners; a new one is refused while none has
expired (never evicting another's values), and admitted once one has."""

from __future__ import annotations

import asyncio

import pytest

from genmcp.storage.memory import MemoryStateStore


async def test_new_owners_are_refused_when_full_until_one_expires() -> None:
    store = MemoryStateStore(max_owners=2)
    assert await store.put("a", "k", "1", 60, 5)
    assert await store.put("b", "k", "1", 0.1, 5)
    assert not await store.put("c", "k", "1", 60, 5)
    assert await store.get("a", "k") == "1"  # nobody was evicted
    for _ in range(200):  # a hang guard: until b's values expired
        if await store.get("b", "k") is None:
            break
        await asyncio.sleep(0.02)
    assert await store.put("c", "k", "1", 60, 5)
    assert store.owners == 2


def test_max_owners_is_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        MemoryStateStore(max_owners=0)

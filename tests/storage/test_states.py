"""``storage.states`` on both stores, memory and Redis: a ``StateStore`` keeps values per
owner, a bound on names that concurrent writers cannot pass, one expiry per owner renewed by
each write.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from genmcp.storage import StateStore
from genmcp.storage.memory import MemoryStateStore


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[StateStore]:
    if request.param == "memory":
        yield MemoryStateStore()
        return
    url, prefix = request.getfixturevalue("redis_url"), request.getfixturevalue("redis_prefix")
    from genmcp.storage.redis import RedisStateStore

    made = RedisStateStore.from_url(url, prefix=prefix)
    yield made
    await made.aclose()


async def test_values_are_per_owner(store: StateStore) -> None:
    assert isinstance(store, StateStore)
    assert await store.put("o1", "a", '{"x":1}', 60, 10)
    assert await store.put("o2", "a", "2", 60, 10)
    assert (await store.get("o1", "a"), await store.get("o2", "a")) == ('{"x":1}', "2")
    assert await store.get("o3", "a") is None and await store.names("o3") == []
    assert await store.delete("o1", "a") and not await store.delete("o1", "a")
    await store.clear("o2")
    assert await store.names("o2") == []


async def test_concurrent_writers_cannot_pass_the_bound_of_names(store: StateStore) -> None:
    stored = await asyncio.gather(*(store.put("o", f"n{i}", "1", 60, 5) for i in range(40)))
    assert stored.count(True) == 5 and len(await store.names("o")) == 5
    existing = (await store.names("o"))[0]
    assert await store.put("o", existing, "2", 60, 5)  # a name held may still change


async def test_an_owners_values_expire_together(store: StateStore) -> None:
    assert await store.put("o", "a", "1", 0.2, 5)
    assert await store.put("o", "b", "2", 0.2, 5)
    for _ in range(200):  # a hang guard: expiry is the store's clock, not ours
        if await store.names("o") == []:
            break
        await asyncio.sleep(0.05)
    assert await store.get("o", "a") is None and await store.names("o") == []

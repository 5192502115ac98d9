"""``storage.records`` on both stores, memory and Redis: a ``RecordStore`` keeps expiring
records taken once (a spent marker names the replayed grant) and a bounded number of places;
a ``ProofReplays`` says a key is new once per window.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest

from genmcp.storage import ProofReplays, RecordStore
from genmcp.storage.memory import MemoryRecordStore
from tests.storage.backend_kit import Backend


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[RecordStore]:
    if request.param == "memory":
        yield MemoryRecordStore()
        return
    url, prefix = request.getfixturevalue("redis_url"), request.getfixturevalue("redis_prefix")
    from genmcp.storage.redis import RedisRecordStore

    made = RedisRecordStore.from_url(url, prefix=prefix)
    yield made
    await made.aclose()


async def test_records_expire_and_are_taken_once(store: RecordStore) -> None:
    assert isinstance(store, RecordStore)
    await store.put("code", "c1", {"scope": ["a"], "n": 1}, 10, tag="family-1")
    assert await store.get("code", "c1") == {"scope": ["a"], "n": 1}
    assert await store.take("code", "c1", 10) == ({"scope": ["a"], "n": 1}, None)
    assert await store.get("code", "c1") is None
    assert await store.take("code", "c1", 10) == (None, "family-1")  # a replay, and whose
    assert await store.take("code", "never", 10) == (None, None)
    await store.put("consent", "k", "v", 10)
    assert await store.take("consent", "k") == ("v", None)
    assert await store.take("consent", "k") == (None, None)  # no spent marker asked for
    await store.put("code", "short", 1, 0.05)
    await store.put("code", "gone", 1, 0)
    await asyncio.sleep(0.1)
    assert await store.get("code", "short") is None and await store.get("code", "gone") is None
    assert await store.get("other", "c1") is None  # kinds do not mix


async def test_places_are_bounded_and_freed_as_they_expire(store: RecordStore) -> None:
    admitted = [await store.admit("client", f"c{n}", 0.1, 3) for n in range(5)]
    assert admitted == [True, True, True, False, False]
    assert await store.admit("other", "x", 0.1, 3)  # its own bound
    await asyncio.sleep(0.15)
    assert await store.admit("client", "c9", 10, 3)


async def test_takes_race_and_one_wins(store: RecordStore) -> None:
    await store.put("refresh", "r", {"g": 1}, 10, tag="fam")
    taken = await asyncio.gather(*(store.take("refresh", "r", 10) for _ in range(20)))
    assert taken.count(({"g": 1}, None)) == 1 and taken.count((None, "fam")) == 19


async def test_a_key_is_new_once_per_window_in_every_bundle(backend: Backend) -> None:
    replays = [backend.stores().replays for _ in "ab"]  # Redis: two processes' handles
    assert all(isinstance(each, ProofReplays) for each in replays)
    key = f"jti-{uuid.uuid4().hex}"
    # the other key first: the second handle's first command connects (a cluster client
    # learns its nodes then, over 0.2 s under load), and must not fall within key's window
    assert await replays[1].first(f"{key}-other", 0.2)
    assert await replays[0].first(key, 0.2)
    assert not await replays[1].first(key, 0.2)  # seen: by any process sharing the store
    for _ in range(200):  # a hang guard: expiry is the store's clock, not ours
        if await replays[0].first(key, 0.2):
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail("a key seen once was never new again after its window")

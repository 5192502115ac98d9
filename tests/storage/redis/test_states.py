"""``StateStore`` in Redis and in memory: values per owner, a bound on names that concurrent
writers cannot pass, one expiry per owner renewed by each write; in Redis one hash per owner
with the TTL set, and a Redis that is down is ``StorageUnavailable``, never a hang.
"""

from __future__ import annotations

import pytest
from redis import asyncio as aioredis

from genmcp.storage.guard import StorageUnavailable
from genmcp.storage.redis import RedisOptions, RedisStateStore
from support.redis_server import free_port


async def test_redis_keeps_one_hash_per_owner_with_its_ttl(
    redis_url: str, redis_prefix: str
) -> None:
    store = RedisStateStore.from_url(redis_url, prefix=redis_prefix)
    raw = aioredis.Redis.from_url(redis_url)
    try:
        assert await store.put("owner1", "a", "1", 600, 5)
        key = f"{redis_prefix}state:{{owner1}}"
        assert await raw.hgetall(key) == {b"a": b"1"}
        assert 0 < await raw.pttl(key) <= 600_000
    finally:
        await raw.aclose()
        await store.aclose()


async def test_a_redis_that_is_down_is_storage_unavailable() -> None:
    options = RedisOptions(deadline_s=1.0)
    store = RedisStateStore.from_url(f"redis://127.0.0.1:{free_port()}/0", options=options)
    try:
        with pytest.raises(StorageUnavailable):
            await store.put("o", "a", "1", 60, 5)
        with pytest.raises(StorageUnavailable):
            await store.get("o", "a")
    finally:
        await store.aclose()

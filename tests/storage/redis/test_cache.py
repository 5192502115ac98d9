"""``RedisCacheStore``: the response cache's entries and generations in Redis.

Entries expire with their TTL, a bump moves the group's generation, one server's keys share
a Cluster slot (one ``MGET``), and a client whose store is down asks the server instead
(a miss, never a failed request).
"""

from __future__ import annotations

import asyncio

import pytest
from redis import asyncio as aioredis
from redis.crc import key_slot

from genmcp.client.cache import ResponseCache
from genmcp.storage.redis import RedisCacheStore, RedisOptions
from support.redis_server import free_port


async def test_entries_generations_and_one_slot(redis_url: str, redis_prefix: str) -> None:
    store = RedisCacheStore.from_url(redis_url, prefix=redis_prefix)
    try:
        assert await store.lookup("srv", "tools", "public:k", "p1:k") == (0, None, None)
        await store.store("srv", "tools", "public:k", '{"a":1}', 60_000)
        await store.store("srv", "tools", "p1:k", "mine", 1)
        await store.bump("srv", "tools")
        await asyncio.sleep(0.05)  # the 1 ms entry is gone (Redis expires it)
        assert await store.lookup("srv", "tools", "public:k", "p1:k") == (1, '{"a":1}', None)
        raw = aioredis.Redis.from_url(redis_url)
        try:
            keys = [key async for key in raw.scan_iter(match=redis_prefix + "*")]
            assert sorted(keys) == [
                f"{redis_prefix}cache:{{srv}}:tools:gen".encode(),
                f"{redis_prefix}cache:{{srv}}:tools:public:k".encode(),
            ]
            assert len({key_slot(key) for key in keys}) == 1
            assert 0 < await raw.pttl(f"{redis_prefix}cache:{{srv}}:tools:public:k") <= 60_000
        finally:
            await raw.aclose()
    finally:
        await store.aclose()


async def test_a_store_that_is_down_is_a_miss() -> None:
    options = RedisOptions(connect_timeout_s=0.5, deadline_s=0.5, retries=0)
    store = RedisCacheStore.from_url(f"redis://127.0.0.1:{free_port()}/0", options=options)
    cache = ResponseCache(store, "http://example.test/mcp")
    try:
        found = await asyncio.wait_for(cache.get("tools/list", {}), 5)  # a hang guard
        assert found == (None, None)  # no generation: nothing will be stored
        result = {"tools": [], "ttlMs": 1000, "cacheScope": "public"}
        await asyncio.wait_for(cache.put("tools/list", {}, result, 0), 5)
        await asyncio.wait_for(cache.notified({"method": "notifications/tools/list_changed"}), 5)
        assert (cache.hits, cache.misses) == (0, 1)
    finally:
        await store.aclose()


@pytest.mark.parametrize("scope", ["public", "private"])
async def test_private_entries_need_the_principal(
    redis_url: str, redis_prefix: str, scope: str
) -> None:
    store = RedisCacheStore.from_url(redis_url, prefix=redis_prefix)
    alice = ResponseCache(store, "http://s/mcp", principal="alice")
    bob = ResponseCache(store, "http://s/mcp", principal="bob")
    other_server = ResponseCache(store, "http://t/mcp", principal="alice")
    result = {"tools": [{"name": "x"}], "ttlMs": 60_000, "cacheScope": scope}
    try:
        _, generation = await alice.get("tools/list", {})
        assert generation is not None
        await alice.put("tools/list", {}, result, generation)
        assert (await alice.get("tools/list", {}))[0] == result
        assert (await bob.get("tools/list", {}))[0] == (result if scope == "public" else None)
        assert (await other_server.get("tools/list", {}))[0] is None
        assert (await alice.get("tools/list", {"cursor": "c"}))[0] is None
    finally:
        await store.aclose()

"""``RedisSessionRegistry``: legacy session state in Redis, keyed the way its docstring says.

A real Redis (tests/conftest.py: ``redis_url``, and a key prefix of the test's own). The
behaviour it shares with the memory registry is the contract (tests/storage/test_sessions.py);
these check the Redis side: one hash per session that expires with it, one field per set
member, an end marker with a TTL, one epoch per prefix that every process shares, copied
into each hash-tag bucket (a Redis Cluster slot), and a bucket that lost its copy.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from redis import asyncio as aioredis
from redis.crc import key_slot

from genmcp.storage.redis import RedisSessionRegistry
from genmcp.storage.redis.registry import BUCKETS, bucket, encode, ttl_ms

S1 = bucket("s1")


@pytest.fixture
async def raw(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


@pytest.fixture
async def registry(redis_url: str, redis_prefix: str) -> AsyncIterator[RedisSessionRegistry]:
    made = RedisSessionRegistry.from_url(redis_url, prefix=redis_prefix)
    yield made
    await made.aclose()


async def test_a_session_is_one_hash_that_expires_with_it(
    registry: RedisSessionRegistry, raw: aioredis.Redis, redis_prefix: str
) -> None:
    await registry.put("s1", "level", {"at": "debug"}, ttl_s=30)
    await registry.add("s1", "uris", "file:///a", ttl_s=30)
    key = f"{redis_prefix}session:{S1}:s1"
    fields = await raw.hgetall(key)
    assert json.loads(fields["v:level"]) == {"at": "debug"}
    assert [json.loads(f[2:]) for f in fields if f.startswith("s:")] == [["uris", "file:///a"]]
    assert 29_000 < await raw.pttl(key) <= 30_000
    await registry.discard("s1", "uris", "file:///a", ttl_s=30)
    assert await raw.hkeys(key) == ["v:level"]


async def test_a_zero_ttl_write_drops_the_whole_session(
    registry: RedisSessionRegistry, raw: aioredis.Redis, redis_prefix: str
) -> None:
    await registry.put("s1", "level", "info", ttl_s=30)
    await registry.put("s1", "other", "x", ttl_s=0)
    assert await raw.exists(f"{redis_prefix}session:{S1}:s1") == 0
    assert await registry.get("s1", "level") is None


async def test_ending_a_session_leaves_a_marker_with_a_ttl_and_no_fields(
    registry: RedisSessionRegistry, raw: aioredis.Redis, redis_prefix: str
) -> None:
    epoch = await registry.epoch(ttl_s=60)
    await registry.put("s1", "level", "info", ttl_s=30)
    assert await registry.lookup("s1", epoch, ("level",)) == {"level": "info"}
    await registry.end("s1", ttl_s=20)
    assert 19_000 < await raw.pttl(f"{redis_prefix}ended:{S1}:s1") <= 20_000
    assert await raw.exists(f"{redis_prefix}session:{S1}:s1") == 0
    assert await registry.is_ended("s1")
    assert await registry.lookup("s1", epoch, ("level",)) is None


async def test_processes_on_one_prefix_share_one_epoch_and_a_lost_epoch_forgets_sessions(
    redis_url: str, redis_prefix: str, raw: aioredis.Redis
) -> None:
    one = RedisSessionRegistry.from_url(redis_url, prefix=redis_prefix)
    two = RedisSessionRegistry.from_url(redis_url, prefix=redis_prefix)
    other = RedisSessionRegistry.from_url(redis_url, prefix=redis_prefix + "other:")
    try:
        epoch = await one.epoch(ttl_s=60)
        assert await two.epoch(ttl_s=60) == epoch != await other.epoch(ttl_s=60)
        assert 59_000 < await raw.pttl(f"{redis_prefix}epoch") <= 60_000
        await one.epoch(ttl_s=120)  # a longer need extends it
        assert await raw.pttl(f"{redis_prefix}epoch") > 60_000
        await one.put("s1", "level", "info", ttl_s=30)
        await raw.delete(f"{redis_prefix}epoch")  # Redis lost its data (a flush, a failover)
        fresh = await two.epoch(ttl_s=60)
        assert fresh != epoch
        assert await two.lookup("s1", epoch, ("level",)) is None  # ids of the old epoch fail
    finally:
        for each in (one, two, other):
            await each.aclose()


async def test_concurrent_lookups_each_get_their_own_answer(
    registry: RedisSessionRegistry,
) -> None:
    epoch = await registry.epoch(ttl_s=60)
    for n in range(20):
        await registry.put(f"s{n}", "n", n, ttl_s=30)
    found = await asyncio.gather(*(registry.lookup(f"s{n}", epoch, ("n",)) for n in range(20)))
    assert found == [{"n": n} for n in range(20)]


def test_ttls_round_up_to_whole_milliseconds_and_values_are_compact_ascii_json() -> None:
    assert (ttl_ms(0.0001), ttl_ms(1.5), ttl_ms(0), ttl_ms(-3)) == (1, 1500, 0, 0)
    assert encode({"a": [1, "é\ud800"]}) == '{"a":[1,"\\u00e9\\ud800"]}'


async def test_the_keys_of_a_session_share_one_slot_with_their_buckets_epoch(
    registry: RedisSessionRegistry, raw: aioredis.Redis, redis_prefix: str
) -> None:
    epoch = await registry.epoch(ttl_s=60)
    copies = await raw.keys(f"{redis_prefix}epoch:*")
    assert len(copies) == BUCKETS
    assert set(await raw.mget(copies)) == {epoch}
    assert await raw.get(f"{redis_prefix}epoch") == epoch  # copied everywhere: ready
    for session in ("s1", "s2", "a-much-longer-session-id"):
        tag = bucket(session)
        keys = [f"{redis_prefix}{name}:{tag}:{session}" for name in ("session", "ended")]
        assert {key_slot(k.encode()) for k in [*keys, f"{redis_prefix}epoch:{tag}"]} == {
            key_slot(tag[1:-1].encode())
        }
    assert len({key_slot(bucket(f"s{n}")[1:-1].encode()) for n in range(5000)}) > BUCKETS - 10


async def test_a_bucket_that_lost_its_epoch_refuses_its_sessions_and_a_new_epoch_follows(
    redis_url: str, redis_prefix: str, raw: aioredis.Redis
) -> None:
    one = RedisSessionRegistry.from_url(redis_url, prefix=redis_prefix)
    two = RedisSessionRegistry.from_url(redis_url, prefix=redis_prefix)
    try:
        epoch = await one.epoch(ttl_s=60)
        await one.put("s1", "level", "info", ttl_s=30)
        await one.put("s2", "level", "info", ttl_s=30)
        assert bucket("s1") != bucket("s2")
        # The node of s1's bucket restarted empty: its end-marker, fields and copy are gone.
        await raw.delete(f"{redis_prefix}epoch:{S1}", f"{redis_prefix}session:{S1}:s1")
        assert await two.lookup("s1", epoch, ("level",)) is None
        assert await two.lookup("s2", epoch, ("level",)) == {"level": "info"}
        fresh = await two.epoch(ttl_s=60)  # two saw the lost copy: a new epoch for all
        assert fresh != epoch
        assert await one.epoch(ttl_s=60) == fresh
        assert await one.lookup("s2", epoch, ("level",)) is None
        assert await one.lookup("s2", fresh, ("level",)) == {"level": "info"}
        assert await one.lookup("s1", fresh, ()) == {}
    finally:
        for each in (one, two):
            await each.aclose()

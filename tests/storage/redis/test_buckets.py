"""RedisBuckets (genmcp.storage.redis.buckets) on a redis-server of the test's own.

One take is one EVALSHA (``INFO commandstats``: nothing else reaches Redis) on one declared,
hash-tagged key that expires once the bucket is full again; a Redis that is down is
``StorageUnavailable`` at once (a hung one within the deadline:
tests/middleware/test_ratelimit.py), and the first take after it came back works.
"""

from __future__ import annotations

import asyncio

import pytest
import redis

from genmcp.storage.guard import StorageUnavailable
from genmcp.storage.redis import RedisOptions
from genmcp.storage.redis.buckets import RedisBuckets, bucket_tag
from support.redis_server import OwnRedis


async def test_one_take_is_one_evalsha_on_one_declared_key(own_redis: OwnRedis) -> None:
    store = RedisBuckets.from_url(own_redis.url, prefix="rl:")
    try:
        await store.take("warm", 1.0, 5)  # loads the script (NOSCRIPT once, then SCRIPT LOAD)
        before = own_redis.command_counts()
        for _ in range(20):
            await store.take("alice", 1.0, 5)
        takes = await asyncio.gather(*(store.take("bob", 1.0, 5) for _ in range(20)))
        after = own_redis.command_counts()
    finally:
        await store.aclose()
    assert sum(t.ok for t in takes) == 5
    spent = {name: after[name] - before.get(name, 0) for name in after}
    spent = {name: n for name, n in spent.items() if n and name not in ("info", "hello")}
    # from the client one EVALSHA per take, nothing else; the rest ran inside the script
    assert spent == {"evalsha": 40, "time": 40, "hmget": 40, "hset": 40, "pexpire": 40}
    client = redis.Redis(port=own_redis.port)
    try:
        keys = sorted(k.decode() for k in client.scan_iter("rl:*"))
        assert keys == sorted(f"rl:bucket:{bucket_tag(k)}" for k in ("warm", "alice", "bob"))
        assert all(k.count("{") == 1 and k.endswith("}") for k in keys)  # one hash slot each
        alice = f"rl:bucket:{bucket_tag('alice')}"
        assert set(client.hgetall(alice)) == {b"tokens", b"at"}
        assert 0 < client.pttl(alice) <= 5_001  # gone once full again: 5 tokens at 1 a second
    finally:
        client.close()


async def test_a_down_redis_fails_the_take_at_once_and_an_emptied_one_starts_full(
    own_redis: OwnRedis,
) -> None:
    options = RedisOptions(cooldown_s=0.1)
    store = RedisBuckets.from_url(own_redis.url, prefix="rl:", options=options)
    try:
        for _ in range(3):
            assert (await store.take("alice", 0.01, 5)).ok
        own_redis.stop()
        causes = []
        for _ in range(2):  # the probe, then the open breaker (or a probe again: 0.1 s)
            with pytest.raises(StorageUnavailable) as caught:
                await asyncio.wait_for(store.take("alice", 0.01, 5), 10)  # a hang guard
            causes.append(str(caught.value).split("(", 1)[1].rsplit(")", 1)[0])
        assert causes[0] == "ConnectionError", causes  # refused: at once, no timeout waited
        assert causes[1] in ("failing; not retried yet", "ConnectionError"), causes
        own_redis.start(empty=True)  # back, with nothing: the budget starts full again
        await asyncio.sleep(0.12)
        taken = await store.take("alice", 0.01, 5)
        assert taken.ok and round(taken.tokens) == 4
    finally:
        await store.aclose()

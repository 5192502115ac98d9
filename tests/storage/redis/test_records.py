"""``RecordStore`` in Redis and in memory: expiring records, taken once with a spent marker
that names the replayed grant, a bounded number of places; the Redis keys as the docstring
says (each script's keys in ``KEYS``, on one Cluster slot); a Redis that is down is
``StorageUnavailable`` at once, never a hang.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from redis import asyncio as aioredis
from redis.crc import key_slot

from genmcp.storage.guard import StorageUnavailable
from genmcp.storage.redis import RedisOptions, RedisRecordStore
from genmcp.storage.redis.records import _ADMIT, _TAKE
from support.redis_server import free_port


async def test_the_keys_share_a_slot_and_every_script_key_is_declared(
    redis_url: str, redis_prefix: str
) -> None:
    store = RedisRecordStore.from_url(redis_url, prefix=redis_prefix)
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        await store.put("code", "abc", {"x": 1}, 10, tag="fam")
        assert await raw.get(f"{redis_prefix}oauth:code:{{abc}}") == 'fam\n{"x":1}'
        assert 9_000 < await raw.pttl(f"{redis_prefix}oauth:code:{{abc}}") <= 10_000
        await store.take("code", "abc", 5)
        assert await raw.get(f"{redis_prefix}oauth:code:spent:{{abc}}") == "fam"
        await store.admit("client", "c1", 10, 5)
        assert await raw.zcard(f"{redis_prefix}oauth:client:admitted") == 1
        pair = (f"{redis_prefix}oauth:code:{{abc}}", f"{redis_prefix}oauth:code:spent:{{abc}}")
        assert len({key_slot(key.encode()) for key in pair}) == 1  # one Cluster slot
    finally:
        await raw.aclose()
        await store.aclose()
    for script in (_TAKE, _ADMIT):  # no key is built inside a script: KEYS[n] only
        assert "redis.call('GET', '" not in script and ".. " not in script
    with pytest.raises(ValueError, match="one line"):
        await store.put("code", "k", 1, 10, tag="a\nb")


async def test_a_redis_that_is_down_fails_fast() -> None:
    options = RedisOptions(connect_timeout_s=0.5, deadline_s=0.5, retries=0)
    store = RedisRecordStore.from_url(f"redis://127.0.0.1:{free_port()}/0", options=options)
    calls: list[Any] = [store.get("client", "c"), store.put("code", "c", 1, 10),
                        store.take("code", "c", 10), store.admit("client", "c", 10, 3)]  # fmt: skip
    causes = []
    for call in calls:
        with pytest.raises(StorageUnavailable) as caught:
            await asyncio.wait_for(call, 5)  # a hang guard: the deadline is 0.5 s
        causes.append(str(caught.value).split("(")[1].split(")")[0])
    assert causes == ["ConnectionError"] + ["failing; not retried yet"] * 3  # then not tried
    await store.aclose()

"""``RedisProofReplays``: a key is new once across every handle on one Redis (the processes of
an app), until it expires; concurrent first sightings elect exactly one; the key is under the
prefix; a Redis that is down is ``StorageUnavailable`` (a proof never passes unchecked).
"""

from __future__ import annotations

import asyncio

import pytest
from redis import asyncio as aioredis

from genmcp.storage import ProofReplays
from genmcp.storage.guard import StorageUnavailable
from genmcp.storage.redis import RedisOptions, RedisProofReplays, RedisStores
from support.redis_server import free_port


async def test_a_key_is_first_once_across_handles_until_it_expires(
    redis_url: str, redis_prefix: str
) -> None:
    handles = [RedisProofReplays.from_url(redis_url, prefix=redis_prefix) for _ in range(3)]
    try:
        assert all(isinstance(handle, ProofReplays) for handle in handles)
        answers = await asyncio.gather(*(h.first("jti-1", 30) for h in handles for _ in range(4)))
        assert sorted(answers) == [False] * 11 + [True]
        assert await handles[1].first("jti-2", 30) is True
        raw = aioredis.from_url(redis_url)
        try:
            assert await raw.exists(f"{redis_prefix}dpop:seen:jti-1") == 1
            assert 0 < await raw.pttl(f"{redis_prefix}dpop:seen:jti-1") <= 30_000
            await raw.delete(f"{redis_prefix}dpop:seen:jti-1")  # as Redis does when it expires
        finally:
            await raw.aclose()
        assert await handles[2].first("jti-1", 30) is True
    finally:
        for handle in handles:
            await handle.aclose()


async def test_the_bundle_carries_one_on_its_client(redis_url: str, redis_prefix: str) -> None:
    stores = RedisStores.from_url(redis_url, prefix=redis_prefix)
    other = RedisStores.from_url(redis_url, prefix=redis_prefix)
    try:
        assert await stores.replays.first("k", 10) is True
        assert await other.replays.first("k", 10) is False
    finally:
        await stores.aclose()
        await other.aclose()


async def test_a_redis_that_is_down_fails_fast() -> None:
    options = RedisOptions(connect_timeout_s=0.5, deadline_s=0.5, retries=0)
    replays = RedisProofReplays.from_url(f"redis://127.0.0.1:{free_port()}/0", options=options)
    try:
        with pytest.raises(StorageUnavailable):
            await asyncio.wait_for(replays.first("k", 10), 5)  # a hang guard
    finally:
        await replays.aclose()

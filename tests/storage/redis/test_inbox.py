"""``RedisInboxes``: one Redis list per address, alive while its owner's heartbeat is.

A real Redis and a key prefix of the test's own. Delivery needs a live owner (a heartbeat
key with a TTL); a full inbox refuses; what arrives is read in order, in bursts; closing an
inbox kills its address at once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from redis import asyncio as aioredis

from genmcp.storage import InboxFull
from genmcp.storage.redis import RedisOptions
from genmcp.storage.redis.inbox import RedisInboxes


@pytest.fixture
async def raw(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


@pytest.fixture
async def inboxes(redis_url: str, redis_prefix: str) -> AsyncIterator[RedisInboxes]:
    options = RedisOptions(block_s=0.2)
    client = options.client(redis_url)
    made = RedisInboxes(client, prefix=redis_prefix, options=options, max_messages=5)
    yield made
    await made.aclose()
    await client.aclose()


async def eventually_alive(raw: aioredis.Redis, key: str) -> None:
    for _ in range(100):
        if await raw.exists(key):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{key} never set")


async def test_an_address_without_a_live_owner_takes_nothing(
    inboxes: RedisInboxes, raw: aioredis.Redis
) -> None:
    assert not await inboxes.deliver("nobody-1", {"hello": 1})
    assert await raw.exists(inboxes.inbox_key("nobody-1")) == 0


async def test_what_is_delivered_arrives_in_order_and_the_heartbeat_has_a_ttl(
    inboxes: RedisInboxes, raw: aioredis.Redis
) -> None:
    inbox = inboxes.open_inbox("a-1")
    await eventually_alive(raw, inboxes.alive_key("a-1"))
    assert 0 < await raw.pttl(inboxes.alive_key("a-1")) <= inboxes.heartbeat_ttl_s * 1000
    for n in range(3):
        assert await inboxes.deliver("a-1", {"n": n, "text": "é"})
    assert [await asyncio.wait_for(inbox.receive(), 2) for _ in range(3)] == [
        {"n": n, "text": "é"} for n in range(3)
    ]


async def test_a_full_inbox_refuses_and_a_closed_one_is_dead_at_once(
    inboxes: RedisInboxes, raw: aioredis.Redis
) -> None:
    await raw.set(inboxes.alive_key("full-1"), "1", px=5_000)  # an owner that never reads
    for n in range(5):
        assert await inboxes.deliver("full-1", n)
    with pytest.raises(InboxFull, match="5 messages"):
        await inboxes.deliver("full-1", "one too many")
    assert [json.loads(m) for m in await raw.lrange(inboxes.inbox_key("full-1"), 0, -1)] == [
        0,
        1,
        2,
        3,
        4,
    ]
    inbox = inboxes.open_inbox("b-1")
    await eventually_alive(raw, inboxes.alive_key("b-1"))
    inbox.close()
    for _ in range(100):
        if not await raw.exists(inboxes.alive_key("b-1")):
            break
        await asyncio.sleep(0.01)
    assert not await inboxes.deliver("b-1", "too late")


def test_a_heartbeat_must_beat_within_its_ttl() -> None:
    with pytest.raises(ValueError, match="heartbeat_ttl_s"):
        RedisInboxes(
            aioredis.Redis(),  # never connects: refused before any command
            prefix="p:",
            options=RedisOptions(),
            heartbeat_s=5,
            heartbeat_ttl_s=5,
        )

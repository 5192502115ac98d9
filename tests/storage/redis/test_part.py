"""``RedisPart`` (``storage.redis.part``): every Redis store borrows a client or owns its own.

Each of the five stores, on a real Redis: one made by ``from_url`` closes its own client in
``aclose`` (its connections leave the server), one built on a client leaves that client
open for its maker; ``RedisBroker.from_url`` keeps its own setting too.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Final

import pytest

from genmcp.storage.redis import (
    RedisBroker,
    RedisBuckets,
    RedisOptions,
    RedisRecordStore,
    RedisSessionRegistry,
    RedisTaskStore,
)
from genmcp.storage.redis.part import RedisPart
from support.redis_topology import connections_named as connections

USE: Final[dict[type[RedisPart], Callable[[Any], Awaitable[object]]]] = {
    RedisBroker: lambda part: part.publish("t", 1),
    RedisSessionRegistry: lambda part: part.get("s", "f"),
    RedisTaskStore: lambda part: part.owner("x"),
    RedisBuckets: lambda part: part.take("k", 1.0, 1),
    RedisRecordStore: lambda part: part.get("kind", "k"),
}


@pytest.mark.parametrize("kind", list(USE), ids=lambda kind: kind.__name__)
async def test_a_store_from_a_url_closes_its_own_client(
    kind: type[RedisPart], redis_url: str, redis_prefix: str
) -> None:
    name = f"genmcp-test-{uuid.uuid4().hex[:12]}"
    part = kind.from_url(redis_url, prefix=redis_prefix, client_name=name)
    await USE[kind](part)
    assert connections(redis_url, name) >= 1
    await part.aclose()
    assert connections(redis_url, name) == 0


@pytest.mark.parametrize("kind", list(USE), ids=lambda kind: kind.__name__)
async def test_a_store_on_a_given_client_leaves_it_open(
    kind: type[RedisPart], redis_url: str, redis_prefix: str
) -> None:
    client = RedisOptions().client(redis_url)
    try:
        with pytest.raises(TypeError, match="'prefx'"):  # a misspelt prefix is no default
            kind(client, prefx=redis_prefix)  # type: ignore[call-arg]
        part = kind(client, prefix=redis_prefix)
        await USE[kind](part)
        await part.aclose()
        assert await client.ping()
    finally:
        await client.aclose()


async def test_the_brokers_from_url_keeps_its_ready_timeout(redis_url: str) -> None:
    broker = RedisBroker.from_url(redis_url, ready_timeout_s=0.25, options=RedisOptions(retries=0))
    try:
        assert broker._ready_timeout_s == 0.25 and broker.options.retries == 0
    finally:
        await broker.aclose()

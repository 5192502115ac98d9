"""``ScriptBatch``: the calls of one loop turn go to Redis as one pipeline on one connection.

A redis-server of the test's own (its counters are then the test's alone): 50 concurrent
calls cost 50 ``EVALSHA`` and one connection; a script the server does not know is loaded
and the batch sent again; an unreachable server fails every waiter within the deadline.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Iterator

import pytest
from redis import asyncio as aioredis
from redis.exceptions import RedisError

from genmcp.storage.guard import Breaker, StorageUnavailable
from genmcp.storage.redis import RedisOptions
from genmcp.storage.redis.batch import ScriptBatch
from support.redis_server import OwnRedis, free_port, require_redis_server

ECHO = "return {KEYS[1], ARGV[1]}"


@pytest.fixture(scope="module")
def own_redis() -> Iterator[OwnRedis]:
    server = OwnRedis(require_redis_server())
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def client(own_redis: OwnRedis) -> AsyncIterator[aioredis.Redis]:
    made = RedisOptions().client(own_redis.url)
    yield made
    await made.aclose()


async def stats(client: aioredis.Redis) -> tuple[int, int]:
    """(EVALSHA calls, connections received) of the server so far."""
    commands = await client.info("commandstats")
    evalsha = commands.get("cmdstat_evalsha", {}).get("calls", 0)
    received = (await client.info("stats"))["total_connections_received"]
    return int(evalsha), int(received)


async def test_one_loop_turn_of_calls_is_one_pipeline_on_one_connection(
    client: aioredis.Redis,
) -> None:
    script = f"{ECHO} -- {secrets.token_hex(4)}"
    await client.script_load(script)
    batch = ScriptBatch(client, script, Breaker("redis", (RedisError,)))
    await batch(["warm"], ["up"])  # the pool opens its connection
    evalsha, received = await stats(client)
    replies = await asyncio.gather(*(batch([f"k{n}"], [str(n)]) for n in range(50)))
    assert replies == [[f"k{n}".encode(), str(n).encode()] for n in range(50)]
    after = await stats(client)
    assert after[0] - evalsha == 50  # one command per call...
    assert after[1] - received <= 1  # ...on at most one new connection (stats may open one)


async def test_a_script_the_server_does_not_know_is_loaded_and_the_batch_resent(
    client: aioredis.Redis,
) -> None:
    script = f"{ECHO} -- {secrets.token_hex(4)}"  # never loaded on this server
    batch = ScriptBatch(client, script, Breaker("redis", (RedisError,)))
    replies = await asyncio.gather(batch(["a"], ["1"]), batch(["b"], ["2"]))
    assert replies == [[b"a", b"1"], [b"b", b"2"]]


async def test_an_unreachable_server_fails_every_waiter_within_the_deadline() -> None:
    options = RedisOptions(deadline_s=0.3, connect_timeout_s=0.2, retries=0)
    client = options.client(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    batch = ScriptBatch(client, ECHO, options.breaker())
    try:
        results = await asyncio.wait_for(  # a hang guard: the deadline is 0.3 s
            asyncio.gather(*(batch(["k"], [str(n)]) for n in range(5)), return_exceptions=True),
            5,
        )
    finally:
        await client.aclose()
    assert all(isinstance(r, StorageUnavailable) for r in results), results

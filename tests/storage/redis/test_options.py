"""``RedisOptions``: every Redis client genmcp makes, with explicit settings (never redis-py's).

Checked on the clients it builds (their pools' settings) and against a real Redis (they
connect, and the blocking-read client reaches the same server with the same credentials).
"""

from __future__ import annotations

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from genmcp.storage.guard import StorageUnavailable
from genmcp.storage.redis import RedisOptions


@pytest.mark.parametrize(
    "bad",
    [
        {"connect_timeout_s": 0},
        {"socket_timeout_s": -1},
        {"deadline_s": 0},
        {"block_s": 0},
        {"retries": -1},
        {"max_connections": 1},
    ],
)
def test_settings_that_cannot_work_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="RedisOptions"):
        RedisOptions(**bad)


async def test_the_request_client_is_a_bounded_pool_with_the_documented_timeouts(
    redis_url: str,
) -> None:
    options = RedisOptions(max_connections=7, socket_timeout_s=3.0, connect_timeout_s=1.5)
    client = options.client(redis_url, client_name="genmcp-test-options")
    try:
        pool = client.connection_pool
        assert pool.max_connections == 7
        assert pool.connection_kwargs["socket_timeout"] == 3.0
        assert pool.connection_kwargs["socket_connect_timeout"] == 1.5
        assert await client.ping()
        assert await client.client_getname() == "genmcp-test-options"
    finally:
        await client.aclose()


async def test_the_blocking_reader_reaches_the_same_server_and_outwaits_its_reads(
    redis_url: str,
) -> None:
    options = RedisOptions(block_s=0.5)
    client = options.client(redis_url.rsplit("/", 1)[0] + "/3", client_name="genmcp-reader")
    reader = options.blocking_from(client)
    try:
        kwargs = reader.connection_pool.connection_kwargs
        assert kwargs["socket_timeout"] == 2.5  # block_s + 2: a blocking read never times out
        assert kwargs["db"] == 3 and kwargs["client_name"] == "genmcp-reader"
        assert reader.connection_pool.max_connections == 2
        assert await reader.blpop(["genmcp-test:never-filled"], timeout=0.2) is None
    finally:
        await reader.aclose()
        await client.aclose()


async def test_the_breaker_has_the_options_deadline_and_fails_on_redis_errors() -> None:
    options = RedisOptions(deadline_s=0.3, cooldown_s=0.2)
    breaker = options.breaker("sessions")
    assert (breaker.store, breaker.deadline_s, breaker.cooldown_s) == ("sessions", 0.3, 0.2)

    async def refused() -> None:
        raise RedisConnectionError("refused")

    with pytest.raises(StorageUnavailable, match="sessions is unreachable"):
        await breaker.run(refused)

"""storage.redis.eviction: a Redis that evicts keys is refused when the Suite starts.

On a redis-server of the test's own: under ``allkeys-lru`` or ``volatile-ttl`` a Suite on it
does not start (``EvictionRefused`` names the policy and the fix) unless
``RedisOptions(allow_eviction=True)``; ``noeviction`` starts. A user that may not run
``CONFIG`` is checked through ``INFO memory``; one that may run neither gets one warning and
the Suite starts.
"""

from __future__ import annotations

import logging

import pytest

from genmcp import Suite
from genmcp.storage.redis import RedisBroker, RedisOptions
from genmcp.storage.redis.eviction import EvictionRefused
from support.redis_server import OwnRedis


async def starts(url: str, options: RedisOptions | None = None) -> bool | str:
    """True once a Suite on ``url`` started; else the refusal's message."""
    broker = RedisBroker.from_url(url, prefix="eviction:", options=options)
    suite = Suite(server_name="eviction", server_version="1", broker=broker)
    try:
        await suite.start()
        return True
    except EvictionRefused as exc:
        return str(exc)
    finally:
        await suite.aclose()
        await broker.aclose()


@pytest.mark.parametrize("policy", ["allkeys-lru", "volatile-ttl"])
async def test_an_evicting_redis_is_refused_at_start_unless_allowed(
    own_redis: OwnRedis, policy: str
) -> None:
    assert await starts(own_redis.url) is True  # noeviction
    with own_redis.admin() as client:
        client.config_set("maxmemory-policy", policy)
    refused = await starts(own_redis.url)
    assert isinstance(refused, str)
    assert f"maxmemory-policy is {policy}" in refused and "noeviction" in refused
    assert "RedisOptions(allow_eviction=True)" in refused
    assert await starts(own_redis.url, RedisOptions(allow_eviction=True)) is True


async def test_without_config_the_policy_is_read_from_info_and_without_both_one_warning(
    own_redis: OwnRedis, caplog: pytest.LogCaptureFixture
) -> None:
    with own_redis.admin() as client:
        client.config_set("maxmemory-policy", "allkeys-lfu")
        client.acl_setuser("noconfig", enabled=True, passwords=["+pw"], keys=["~*"],
                           channels=["&*"], commands=["+@all", "-config"])  # fmt: skip
        client.acl_setuser("blind", enabled=True, passwords=["+pw"], keys=["~*"],
                           channels=["&*"], commands=["+@all", "-config", "-info"])  # fmt: skip
    base = f"127.0.0.1:{own_redis.port}/0"
    refused = await starts(f"redis://noconfig:pw@{base}")
    assert isinstance(refused, str) and "allkeys-lfu" in refused  # read through INFO
    with caplog.at_level(logging.WARNING, logger="genmcp"):
        assert await starts(f"redis://blind:pw@{base}") is True
        assert await starts(f"redis://blind:pw@{base}") is True
    warned = [r for r in caplog.records if "cannot read maxmemory-policy" in r.getMessage()]
    assert len(warned) == 1

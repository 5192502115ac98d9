"""``Stores`` (``storage.bundle``): each backend's bundle holds the contracts' parts, its
buckets are one budget, ``aclose`` releases it all; Redis prefixes keep two apps apart, and
the Redis bundle without the redis package says what to install. The optional parts
(``WithReplays``, ``WithCache``) are protocols of their own: a bundle without them is still
a ``Stores``.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from dataclasses import dataclass

import pytest

from genmcp.storage import (
    Broker,
    ProofReplays,
    SessionRegistry,
    Stores,
    Subscription,
    TaskStore,
    WithCache,
    WithReplays,
)
from genmcp.storage.buckets import Buckets, MemoryBuckets
from genmcp.storage.memory import MemoryBroker, MemorySessionRegistry, MemoryTaskStore
from tests.storage.backend_kit import Backend, nothing_arrives, receive, session, subscribed


async def test_implementations_satisfy_the_protocols(backend: Backend) -> None:
    stores = backend.stores()
    assert isinstance(stores, Stores)
    assert isinstance(stores.registry, SessionRegistry)
    assert isinstance(stores.tasks, TaskStore)
    assert isinstance(stores.buckets, Buckets)
    assert isinstance(stores.broker, Broker)
    assert isinstance(await subscribed(stores.broker, "t"), Subscription)


async def test_each_bundle_carries_its_replays_and_redis_its_cache(backend: Backend) -> None:
    stores = backend.stores()
    assert isinstance(stores, WithReplays) and isinstance(stores.replays, ProofReplays)
    if backend.name == "redis":
        from genmcp.storage.redis import RedisCacheStore

        assert isinstance(stores, WithCache) and isinstance(stores.cache, RedisCacheStore)
    else:
        assert not isinstance(stores, WithCache)


@dataclass
class FourParts:
    """A backend's own bundle as the Stores docstring says to write it: the four parts and
    ``aclose``, nothing optional."""

    broker: MemoryBroker
    registry: MemorySessionRegistry
    tasks: MemoryTaskStore
    buckets: MemoryBuckets

    async def aclose(self) -> None:
        await self.broker.aclose()


def test_a_bundle_without_the_optional_parts_is_still_a_stores() -> None:
    bundle = FourParts(MemoryBroker(), MemorySessionRegistry(), MemoryTaskStore(), MemoryBuckets())
    assert isinstance(bundle, Stores)
    assert not isinstance(bundle, WithReplays) and not isinstance(bundle, WithCache)


async def test_the_buckets_of_every_bundle_are_one_budget(backend: Backend) -> None:
    handles, key = [backend.stores().buckets for _ in range(3)], f"rl-{session()}"
    taken = [await handles[n % 3].take(key, 0.001, 4) for n in range(6)]
    assert [each.ok for each in taken] == [True] * 4 + [False] * 2
    assert (await handles[0].take(f"rl-{session()}", 0.001, 4)).ok  # another key: full


async def test_aclose_closes_subscriptions_ends_tasks_and_connections(backend: Backend) -> None:
    stores = backend.stores()
    broker = stores.broker
    subscriptions = [await subscribed(broker, "t", f"u{n}") for n in range(3)]
    await broker.publish("t", 1)
    assert all([await receive(s) == ("t", 1) for s in subscriptions])
    await broker.aclose()
    await broker.aclose()  # idempotent
    assert broker.topics == 0
    left = [t.get_name() for t in asyncio.all_tasks() if t.get_name().startswith("genmcp:")]
    assert left in ([], ["genmcp:sentinel-switch"])  # the shared client's, under Sentinel
    if backend.name == "redis":
        with pytest.raises(RuntimeError, match="closed"):
            broker.subscribe("t")
    await stores.aclose()  # the bundle: its parts, then the client they share
    assert [t for t in asyncio.all_tasks() if t.get_name().startswith("genmcp:")] == []
    if backend.name == "redis":
        assert connected_clients(backend, backend.client_names[0]) == 0


def connected_clients(backend: Backend, name: str) -> int:
    from support.redis_topology import connections_named

    return connections_named(backend.url or "", name)  # on every master of a cluster


async def test_redis_prefixes_keep_apps_apart(redis_url: str, redis_prefix: str) -> None:
    from genmcp.storage.redis import RedisBroker, RedisSessionRegistry

    mine, theirs = redis_prefix, f"{redis_prefix}other:"
    brokers = [RedisBroker.from_url(redis_url, prefix=p) for p in (mine, theirs)]
    registries = [RedisSessionRegistry.from_url(redis_url, prefix=p) for p in (mine, theirs)]
    try:
        listening = [await subscribed(broker, "t") for broker in brokers]
        await brokers[0].publish("t", "mine")
        assert await receive(listening[0]) == ("t", "mine")
        await nothing_arrives(listening[1])
        key = session()
        await registries[0].put(key, "log_level", "info", 10)
        await registries[0].add(key, "resources", "test://a", 10)
        await registries[0].end(session(), 10)
        assert await registries[1].get(key, "log_level") is None
        assert await registries[1].members(key, "resources") == frozenset()
        await registries[0].end(key, 10)
        assert not await registries[1].is_ended(key)
    finally:
        for handle in [*brokers, *registries]:
            await handle.aclose()


def test_importing_the_redis_module_without_redis_says_what_to_install() -> None:
    code = "import sys; sys.modules['redis'] = None; import genmcp.storage.redis"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode != 0
    assert "ImportError: genmcp.storage.redis needs the redis package: " in run.stderr
    assert "pip install 'genmcp[redis]'" in run.stderr

"""``RedisStores`` (``storage.redis.stores``): the Redis parts of a process on one client.

On a real Redis: the parts share the bundle's one client (one connection name on the
server), take the bundle's ``RedisOptions`` (the task store's breaker too), and ``aclose``
ends the broker's tasks and closes that client. The response cache (``cache``) is one of
them, under the bundle's prefix.
"""

from __future__ import annotations

import asyncio
import uuid

from redis import asyncio as aioredis

from genmcp.storage import Stores
from genmcp.storage.redis import RedisOptions, RedisStores
from support.redis_topology import connections_named as names_connected


async def test_the_parts_share_one_client_and_its_options(
    redis_url: str, redis_prefix: str
) -> None:
    name = f"genmcp-test-{uuid.uuid4().hex[:12]}"
    options = RedisOptions(deadline_s=0.3, cooldown_s=0.2)
    stores = RedisStores.from_url(redis_url, prefix=redis_prefix, options=options, client_name=name)
    assert isinstance(stores, Stores)
    assert stores.cache is not None
    parts = (stores.broker, stores.registry, stores.tasks, stores.buckets, stores.cache)
    assert [part.breaker.deadline_s for part in parts] == [0.3] * 5
    assert [part.breaker.cooldown_s for part in parts] == [0.2] * 5
    subscription = stores.broker.subscribe("t")
    await asyncio.wait_for(subscription.ready(), 5)
    await stores.registry.put("s", "level", "info", 10)
    assert await stores.tasks.owner("none") is None
    assert (await stores.buckets.take("k", 1.0, 2)).ok
    await stores.cache.store("srv", "tools", "public:k", "{}", 60_000)
    assert await stores.cache.lookup("srv", "tools", "public:k", "p:k") == (0, "{}", None)
    raw = aioredis.Redis.from_url(redis_url)
    try:
        assert await raw.exists(f"{redis_prefix}cache:{{srv}}:tools:public:k") == 1
    finally:
        await raw.aclose()
    assert names_connected(redis_url, name) >= 2  # the request path and the pub/sub one
    await stores.aclose()
    assert stores.broker.topics == 0 and subscription.closed
    assert names_connected(redis_url, name) == 0

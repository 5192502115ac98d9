"""``RedisStores`` (``storage.redis.stores``): the Redis parts of a process on one client.

On a real Redis: the four parts share the bundle's one client (one connection name on the
server), take the bundle's ``RedisOptions`` (the task store's breaker too), and ``aclose``
ends the broker's tasks and closes that client.
"""

from __future__ import annotations

import asyncio
import uuid

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
    parts = (stores.broker, stores.registry, stores.tasks, stores.buckets)
    assert [part.breaker.deadline_s for part in parts] == [0.3] * 4
    assert [part.breaker.cooldown_s for part in parts] == [0.2] * 4
    subscription = stores.broker.subscribe("t")
    await asyncio.wait_for(subscription.ready(), 5)
    await stores.registry.put("s", "level", "info", 10)
    assert await stores.tasks.owner("none") is None
    assert (await stores.buckets.take("k", 1.0, 2)).ok
    assert names_connected(redis_url, name) >= 2  # the request path and the pub/sub one
    await stores.aclose()
    assert stores.broker.topics == 0 and subscription.closed
    assert names_connected(redis_url, name) == 0

"""``RedisStores``: the Redis parts of one process as one ``Stores`` bundle, on one client.

``RedisStores.from_url(url, prefix=...)`` makes one request-path client with
``RedisOptions`` (never redis-py's defaults) and the ``RedisBroker`` (pub/sub, worker mail,
the shared catalog), the ``RedisSessionRegistry`` (2025 sessions), the ``RedisTaskStore``
(Tasks), the ``RedisBuckets`` (rate limits: one budget for all the processes) and the
``RedisProofReplays`` (DPoP proofs seen by any process) on it, all under one key prefix,
and the ``RedisCacheStore`` (the response cache of the process's clients: a gateway's
upstream answers, shared by its processes). The parts borrow the client; ``aclose`` ends
the broker's tasks, then closes it.
``mcp_router(redis_url=...)`` is ``mcp_router(stores=RedisStores.from_url(...))`` with the
router closing the bundle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self, Unpack

from genmcp.storage.redis.broker import RedisBroker
from genmcp.storage.redis.buckets import RedisBuckets
from genmcp.storage.redis.cache import RedisCacheStore
from genmcp.storage.redis.part import OnRedis, PartOptions, close_client
from genmcp.storage.redis.registry import RedisSessionRegistry
from genmcp.storage.redis.replays import RedisProofReplays
from genmcp.storage.redis.states import RedisStateStore
from genmcp.storage.redis.tasks import RedisTaskStore
from genmcp.storage.redis.topology import Client

__all__ = ["RedisStores"]


@dataclass(slots=True)
class RedisStores(OnRedis):
    """The Redis ``Stores`` of one process: one client, a broker, a session registry, a task
    store, the rate limits' buckets and the DPoP proofs seen on it. ``from_url`` makes them
    (``OnRedis``): the parts for ``url`` on one client, each under the same prefix."""

    client: Client
    broker: RedisBroker
    registry: RedisSessionRegistry
    tasks: RedisTaskStore
    buckets: RedisBuckets
    replays: RedisProofReplays
    states: RedisStateStore | None = None
    """Per-user state (``genmcp.UserStates``) on the same client and prefix (``from_url``
    makes it); not one of the parts a router wires in."""
    cache: RedisCacheStore | None = None
    """The response cache on the same client and prefix (``from_url`` makes it): what a
    router's remote mounts left at their default cache share (``mcp_router(proxy=URL,
    redis_url=...)``: one gateway's processes ask their upstream once)."""

    @classmethod
    def _owning(cls, client: Client, **part: Unpack[PartOptions]) -> Self:
        """Every part on ``client`` (``from_url``'s), each with the same ``part`` options."""
        return cls(
            client,
            RedisBroker(client, **part),
            RedisSessionRegistry(client, **part),
            RedisTaskStore(client, **part),
            RedisBuckets(client, **part),
            RedisProofReplays(client, **part),
            RedisStateStore(client, **part),
            RedisCacheStore(client, **part),
        )

    async def aclose(self) -> None:
        """End the broker's tasks, then close the client (the parts borrow it)."""
        try:
            parts = (self.broker, self.registry, self.tasks, self.buckets, self.replays)
            for part in (*parts, self.states, self.cache):
                if part is not None:
                    await part.aclose()
        finally:
            await close_client(self.client)

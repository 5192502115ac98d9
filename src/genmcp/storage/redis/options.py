"""How genmcp talks to Redis: explicit client settings, never redis-py's defaults.

redis-py's defaults (5 s socket timeouts, 10 retries with backoff) turn a Redis outage into
a stall of several seconds per request, and a blocking read into a minute-long hang. Every
Redis client genmcp makes comes from :class:`RedisOptions`, whose fields are the documented
defaults (docs/guides/scaling-out.md):

=========================  =======  ==========================================================
field                      default  what it bounds
=========================  =======  ==========================================================
``connect_timeout_s``      2.0      opening a TCP connection (a refused one fails at once)
``socket_timeout_s``       5.0      waiting for one reply: a safety net; ``deadline_s`` is
                                    the bound a request sees
``retries``                1        retries of a failed command (backoff 20 ms, at most 200 ms)
``max_connections``        64       connections of the request-path pool (a blocking pool:
                                    the 65th concurrent command waits, it never fails)
``pool_timeout_s``         5.0      waiting for a free connection of that pool (lookups share
                                    one pipeline per loop turn: the pool stays small)
``health_check_s``         1.0      pings an idle connection before reuse, and the pub/sub one
``deadline_s``             0.8      bound on one storage operation, in loop time not lost to
                                    CPU starvation (``guard.Breaker``)
``cooldown_s``             0.5      failing fast after a failure before probing again
``block_s``                1.0      one blocking read of an inbox (its client waits 2 s more)
``replicas``               None     replicas a durable write waits for (``WAIT``): None is 1
                                    under Sentinel, on a cluster 1 where the key's master
                                    has a replica, 0 (no ``WAIT``) on one server
``replica_timeout_s``      0.3      how long ``WAIT`` waits for them (then 503, not acked)
``allow_eviction``         False    start on a Redis whose ``maxmemory-policy`` evicts keys
                                    (``storage.redis.eviction``: refused at start otherwise)
``notice_retry_s``         10.0     how long a durable notification's publish is sent again
                                    (a failover's window; ``storage.redis.notices``)
=========================  =======  ==========================================================

A process uses three clients: the request path (``client``), one pub/sub connection (taken
from the same pool and held), and the inbox reader (``blocking_from``: one connection,
whose socket timeout exceeds its blocking reads). Requires the ``redis`` package.

``client(url)`` reads three kinds of URL (``storage.redis.topology``): ``redis://`` (and
``rediss://``, ``unix://``) for one server, ``redis+cluster://h1:p1,h2:p2`` for a Redis Cluster
(a ``RedisCluster`` from any reachable node of the list; MOVED/ASK followed by the client), and
``redis+sentinel://h1:p1,h2:p2/<service>/<db>`` for a master that Sentinel names (asked again
after a failover, at once: ``storage.redis.failover`` follows ``+switch-master``). The same
settings apply to all three; the breaker bounds every operation.
On a cluster ``max_connections`` is the most commands in flight at once (redis-py's cluster
pools raise past it instead of waiting: genmcp's client waits at a gate of that size).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from redis import asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import ExponentialBackoff
from redis.exceptions import RedisClusterException, RedisError

from genmcp.storage.guard import Breaker
from genmcp.storage.redis.failover import Acknowledged, SentinelPool, replicas_wanted
from genmcp.storage.redis.topology import NODE_OPTIONS, Client, Topology, parse_url

__all__ = ["RedisOptions"]


@dataclass(frozen=True, slots=True)
class RedisOptions:
    """Client settings for every Redis connection of a process (see the module table)."""

    connect_timeout_s: float = 2.0
    socket_timeout_s: float = 5.0
    retries: int = 1
    max_connections: int = 64
    pool_timeout_s: float = 5.0
    health_check_s: float = 1.0
    deadline_s: float = 0.8
    cooldown_s: float = 0.5
    block_s: float = 1.0
    replicas: int | None = None
    replica_timeout_s: float = 0.3
    allow_eviction: bool = False
    notice_retry_s: float = 10.0

    def __post_init__(self) -> None:
        timeouts = (self.connect_timeout_s, self.socket_timeout_s, self.deadline_s, self.block_s)
        if min(*timeouts, self.replica_timeout_s, self.notice_retry_s) <= 0:
            raise ValueError("RedisOptions timeouts must be > 0")
        if self.replicas is not None and self.replicas < 0:
            raise ValueError("RedisOptions: replicas >= 0 (or None)")
        if self.retries < 0 or self.max_connections < 2:
            raise ValueError("RedisOptions: retries >= 0 and max_connections >= 2")

    def _common(self) -> dict[str, Any]:
        return {
            "socket_connect_timeout": self.connect_timeout_s,
            "retry": Retry(ExponentialBackoff(cap=0.2, base=0.02), self.retries),
            "health_check_interval": self.health_check_s,
        }

    def client(self, url: str, **connection: Any) -> Client:
        """The request-path client for ``url``: a blocking pool of ``max_connections`` (a
        ``RedisCluster`` for a cluster URL: that many connections per node).

        ``connection`` adds connection options (``client_name``, ``password``, ...).
        """
        topology = parse_url(url)
        if topology is not None:
            return self._topology_client(topology, self.socket_timeout_s, connection)
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=self.max_connections,
            timeout=self.pool_timeout_s,
            socket_timeout=self.socket_timeout_s,
            **{**self._common(), **connection},
        )
        return aioredis.Redis.from_pool(pool)  # closed with the client

    def _topology_client(
        self, topology: Topology, socket_timeout_s: float, connection: dict[str, Any]
    ) -> Client:
        """A cluster or Sentinel client for ``topology`` with these settings."""
        options = {**topology.connection, **self._common(), **connection}
        options["socket_timeout"] = socket_timeout_s
        if topology.kind == "cluster":
            nodes = [ClusterNode(host, port) for host, port in topology.nodes]
            options.pop("retry")  # the cluster client retries by node, below
            return _GatedCluster(
                gate=self.max_connections,
                startup_nodes=nodes,
                max_connections=self.max_connections,
                retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), self.retries),
                **options,
            )
        asked = {"socket_connect_timeout": self.connect_timeout_s}
        sentinel = Sentinel(  # type: ignore[no-untyped-call, unused-ignore]  # typed from redis 8.2
            topology.nodes, sentinel_kwargs={**asked, "socket_timeout": 1.0}
        )
        master: aioredis.Redis = sentinel.master_for(
            topology.service,
            redis_class=_SentinelMaster,
            connection_pool_class=SentinelPool,
            max_connections=self.max_connections,
            timeout=self.pool_timeout_s,
            **options,
        )
        return master

    def blocking_from(self, client: Client) -> Client:
        """A blocking-read client to the server ``client`` talks to (same credentials)."""
        timeout = self.block_s + 2.0
        if isinstance(client, RedisCluster):
            given = client.nodes_manager.connection_kwargs
            kwargs = {name: given[name] for name in NODE_OPTIONS if name in given}
            known = client.get_primaries() or list(client.nodes_manager.startup_nodes.values())
            nodes = [(n.host, int(n.port)) for n in known]
            return self._topology_client(Topology("cluster", nodes, "", kwargs), timeout, {})
        pool = client.connection_pool
        if isinstance(pool, SentinelConnectionPool):
            given = pool.connection_kwargs
            kwargs = {name: given[name] for name in (*NODE_OPTIONS, "db") if name in given}
            sentinels = [
                (
                    s.connection_pool.connection_kwargs["host"],
                    s.connection_pool.connection_kwargs["port"],
                )
                for s in pool.sentinel_manager.sentinels
            ]
            topology = Topology("sentinel", sentinels, pool.service_name, kwargs)
            reader = self._topology_client(topology, timeout, {})
            reader.connection_pool.max_connections = 2  # type: ignore[union-attr]
            return reader
        connection = dict(client.connection_pool.connection_kwargs)
        connection.update(
            socket_timeout=self.block_s + 2.0, socket_connect_timeout=self.connect_timeout_s
        )
        pool = aioredis.BlockingConnectionPool(
            max_connections=2,
            timeout=self.pool_timeout_s,
            connection_class=client.connection_pool.connection_class,
            **connection,
        )
        return aioredis.Redis.from_pool(pool)

    def acknowledged(self, client: Client) -> Acknowledged:
        """Durable writes on ``client``: acknowledged once ``replicas`` replicas have them."""
        timeout_ms = max(1, round(self.replica_timeout_s * 1000))
        return Acknowledged(client, replicas_wanted(client, self.replicas), timeout_ms)

    def breaker(self, store: str = "redis") -> Breaker:
        """A breaker with these options' deadline and cooldown, for Redis failures; at most
        ``max_connections`` of its operations in flight (the rest wait outside the deadline:
        the pool's queue is not Redis failing)."""
        failures = (RedisError, RedisClusterException)
        return Breaker(
            store,
            failures,
            deadline_s=self.deadline_s,
            cooldown_s=self.cooldown_s,
            concurrency=self.max_connections,
        )


class _GatedCluster(RedisCluster):
    """A cluster client whose commands wait for a connection, as a blocking pool does.

    redis-py's cluster pools raise ``MaxConnectionsError`` past ``max_connections`` per node;
    at most ``gate`` commands (or pipelines, one connection per node each) are in flight at
    once, so a burst waits (within the breaker's deadline) instead of failing.

    A new client learns the cluster's nodes before its first command goes out: redis-py picks
    a command's node before it initializes, so the first commands of a burst on a new client
    went to startup nodes whose connections the initialization then closed (5 of 20 failed,
    "Connection closed by server").
    """

    def __init__(self, *args: Any, gate: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._gate = asyncio.Semaphore(gate)

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        async with self._gate:
            if self._initialize:
                await self.initialize()  # once, under redis-py's lock, before a node is picked
            return await super().execute_command(*args, **kwargs)

    def pipeline(self, transaction: Any | None = None, shard_hint: Any | None = None) -> Any:
        pipe = super().pipeline(transaction, shard_hint)
        execute = pipe.execute

        async def gated(*args: Any, **kwargs: Any) -> Any:
            async with self._gate:
                if self._initialize:
                    await self.initialize()
                return await execute(*args, **kwargs)

        pipe.execute = gated  # type: ignore[method-assign]
        return pipe


class _SentinelMaster(aioredis.Redis):
    """The client of a Sentinel-named master: closing it closes its Sentinel connections."""

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        await super().aclose(close_connection_pool)
        pool = self.connection_pool
        if isinstance(pool, SentinelPool):
            await pool.stop()
        if isinstance(pool, SentinelConnectionPool):
            for sentinel in pool.sentinel_manager.sentinels:
                await sentinel.aclose()

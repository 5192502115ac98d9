"""A Redis failover followed at once, and a write acknowledged only once a replica has it.

Two measured losses (issue 47) came from the same window: Sentinel promotes a replica, and the
old master keeps accepting writes (for seconds, until Sentinel turns it into a replica and it
flushes them). Two parts close it:

- :class:`SentinelPool` follows the master as Sentinel announces it: it subscribes to
  ``+switch-master`` on every Sentinel and, on the announcement for its service, points new
  connections at the new master and drops every connection it holds (in flight ones too: a
  command there is retried on the new master, or is ``StorageUnavailable``). Without the
  announcement (a Sentinel unreachable) redis-py's own checks remain: a ``READONLY`` answer
  drops the connection, and a new one asks Sentinel again.
- :class:`Acknowledged` sends a write Lua script (or a few commands: ``pipeline``) and
  ``WAIT <replicas> <timeout>`` in one pipeline on one connection: the reply counts only
  once a replica has the write. A short ``WAIT`` is :class:`NotReplicated` (a connection
  error: the breaker answers 503 with ``Retry-After`` and the task runner retries), unless
  the server written to is alone: the master of the newest configuration the Sentinels
  report (a Sentinel that missed a failover still names the old master, which keeps
  writing until it is demoted, then flushes), no failover under way, and no Sentinel sees
  a healthy replica of it (a deployment running on its master alone, after a ``kill -9``).
  Then the write is kept and no ``WAIT`` is sent for a second on connections to that
  server, and to it alone (a write that reached another one, or moved on a reconnect,
  waits as any other). On a Redis Cluster the
  ``WAIT`` goes to the master of the write's key, on the connection that wrote (and a master
  that reports no replica is written to without it). On by default under Sentinel and on a
  cluster whose masters have replicas; ``RedisOptions.replicas`` sets it.

Imports redis; knows no store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from redis import asyncio as aioredis
from redis.asyncio.sentinel import SentinelConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ReadOnlyError, RedisError

from genmcp.storage.redis.topology import Client

__all__ = ["Acknowledged", "NotReplicated", "SentinelPool"]

log = logging.getLogger("genmcp")

SWITCH: Final = "+switch-master"
"""Sentinel's channel naming a new master: ``<service> <old ip> <port> <new ip> <port>``."""
_RELISTEN_S: Final = 0.5
_DEGRADED_S: Final = 1.0
"""How long a master found without a healthy replica is written to without ``WAIT``."""
_RECHECK_S: Final = 5.0
"""How long whether a cluster master has a replica is taken as known."""


class NotReplicated(RedisConnectionError):
    """A write no replica acknowledged in time: it may be lost, so it is not acknowledged."""


class SentinelPool(SentinelConnectionPool, aioredis.BlockingConnectionPool):
    """Sentinel's master lookup on a blocking pool (the 65th concurrent command waits) that
    follows ``+switch-master`` as soon as a Sentinel publishes it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[no-untyped-call]
        self._watcher: asyncio.Task[None] | None = None
        self.switches = 0
        """How many ``+switch-master`` announcements for this service were followed."""

    async def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        if self._watcher is None:
            self._watcher = asyncio.get_running_loop().create_task(
                self._follow(), name="genmcp:sentinel-switch"
            )
        return await super().get_connection(*args, **kwargs)  # type: ignore[no-untyped-call]

    async def _follow(self) -> None:
        await asyncio.gather(*(self._listen(s) for s in self.sentinel_manager.sentinels))

    async def _listen(self, sentinel: aioredis.Redis) -> None:
        """One Sentinel's announcements, subscribed again after any failure."""
        while True:
            pubsub = sentinel.pubsub()
            try:
                await pubsub.subscribe(SWITCH)
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.5)
                    if message is not None:
                        await self._announced(message.get("data"))
            except (RedisError, OSError):
                await asyncio.sleep(_RELISTEN_S)
            finally:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()

    async def _announced(self, data: Any) -> None:
        text = data.decode() if isinstance(data, bytes) else str(data)
        fields = text.split()
        if len(fields) != 5 or fields[0] != self.service_name or not fields[4].isdigit():
            return
        address = (fields[3], int(fields[4]))
        if self.master_address == address:
            return  # already followed (another Sentinel said it first)
        self.switches += 1
        log.warning("redis: Sentinel moved %s to %s:%s", self.service_name, *address)
        self.master_address = address
        await self.disconnect(inuse_connections=True)  # nothing more goes to the old master

    async def stop(self) -> None:
        """Stop following the Sentinels."""
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(BaseException):
                await self._watcher
            self._watcher = None


def replicas_wanted(client: Client, replicas: int | None) -> int | None:
    """How many replicas a write waits for: ``replicas`` when set; else 1 under Sentinel, 0
    on one server, None on a cluster (1 once its client sees a replica: ``Acknowledged``)."""
    if replicas is not None:
        return replicas
    if isinstance(client, aioredis.RedisCluster):
        return None
    pool = getattr(client, "connection_pool", None)
    return 1 if isinstance(pool, SentinelConnectionPool) else 0


class Acknowledged:
    """Runs writes (scripts, or a few commands) whose reply says the write is on
    ``replicas`` replicas too.

    Args:
        client: the request-path client (one server, Sentinel or a cluster).
        replicas: how many replicas acknowledge a write (0: no ``WAIT``; None on a cluster:
            1 on a master that has a replica, 0 on one that has none, as its ``INFO``
            says, asked again every few seconds).
        timeout_ms: how long ``WAIT`` waits for them.

    On a cluster the ``WAIT`` goes to the master of the write's key, in the same pipeline on
    the same connection (redis-py sends a node's commands of a pipeline together, in order);
    a key whose master changed meanwhile (a ``MOVED`` followed) is not known to be
    replicated: :class:`NotReplicated`. A ``READONLY`` answer (a master just demoted) makes
    the client learn the cluster's nodes again before its next command.
    """

    __slots__ = ("_client", "_degraded", "_has_replica", "replicas", "timeout_ms", "waits")

    def __init__(self, client: Client, replicas: int | None, timeout_ms: int) -> None:
        self._client = client
        self.replicas = replicas
        self.timeout_ms = timeout_ms
        self._degraded: dict[object, float] = {}  # cluster node, or address: no WAIT until
        self._has_replica: dict[str, tuple[bool, float]] = {}  # cluster node: known until
        self.waits = 0
        """How many writes were sent with a ``WAIT``."""

    async def eval(self, script: Any, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        """``script(keys, args)``, acknowledged once ``replicas`` replicas have it."""
        node = await self._waiting(keys[0] if keys else None)
        if node is None:
            return await script(keys=keys, args=args)
        for attempt in (1, 2):
            try:
                replies = await self._acked(
                    lambda pipe: pipe.evalsha(script.sha, len(keys), *keys, *args),
                    keys[0],
                    node,
                )
            except NoScriptError:
                if attempt == 2:
                    raise
                await self._client.script_load(script.script)
                continue
            return replies[0]
        raise AssertionError("unreachable")

    async def pipeline(self, build: Callable[[Any], object], key: str | None = None) -> list[Any]:
        """The replies of the commands ``build(pipe)`` queues (one pipeline, one round trip),
        acknowledged once ``replicas`` replicas have them (a ``WAIT`` queued after them). On a
        cluster, ``key`` names the master they go to (None: no ``WAIT`` there)."""
        node = await self._waiting(key)
        if node is not None:
            return await self._acked(build, key, node)
        async with self._client.pipeline(transaction=False) as pipe:
            build(pipe)
            replies: list[Any] = await pipe.execute(raise_on_error=False)
        self._raise_first(replies)
        return replies

    async def _waiting(self, key: str | None) -> str | None:
        """The node a ``WAIT`` for a write of ``key`` goes to ("" off a cluster), or None
        when the write waits for no replica."""
        client = self._client
        if isinstance(client, aioredis.RedisCluster):
            if key is None:
                return None
            await client.initialize()  # at once when the client knows the nodes already
            node = client.get_node_from_key(key)
            if node is None:
                return None
            name = str(node.name)
            if self.replicas is None and not await self._replicated(client, name):
                return None
            if time.monotonic() < self._degraded.get(name, 0.0):
                return None
            return name
        return "" if self.replicas else None  # the connection's server decides (_acked)

    async def _replicated(self, client: aioredis.RedisCluster, name: str) -> bool:
        """Whether the cluster master ``name`` has a replica (its ``INFO``, kept a while)."""
        known = self._has_replica.get(name)
        now = time.monotonic()
        if known is not None and now < known[1]:
            return known[0]
        try:
            info = await _replication(client, name)
        except (RedisError, OSError):
            return True  # unknown: wait (a short WAIT then asks again)
        has = int(info.get("connected_slaves", 0)) > 0
        self._has_replica[name] = (has, now + _RECHECK_S)
        return has

    async def _acked(self, build: Callable[[Any], object], key: Any, node: str) -> list[Any]:
        client, replicas = self._client, self.replicas or 1
        if not isinstance(client, aioredis.RedisCluster):
            return await self._acked_on_connection(client, build)
        self.waits += 1
        target = client.get_node(node_name=node)
        pipe = client.pipeline()
        build(pipe)
        pipe.execute_command("WAIT", replicas, self.timeout_ms, target_nodes=target)
        replies: list[Any] = await pipe.execute(raise_on_error=False)
        self._raise_first(replies)
        acked = replies.pop()
        now = client.get_node_from_key(key)
        if now is None or now.name != node:
            raise NotReplicated("the key's master changed while it was written")
        if int(acked) < replicas and not await self._cluster_alone(node):
            raise NotReplicated(f"{acked} of {replicas} replicas acknowledged a write")
        return replies

    async def _acked_on_connection(
        self, client: aioredis.Redis, build: Callable[[Any], object]
    ) -> list[Any]:
        """``build``'s commands and a ``WAIT`` on one connection of the pool, judged by the
        server that connection reached: without the ``WAIT`` only on one found alone."""
        replicas = self.replicas or 1
        async with client.pipeline(transaction=False) as plain:
            pool = client.connection_pool
            connection = await pool.get_connection()  # type: ignore[no-untyped-call, unused-ignore]
            plain.connection = connection  # released by the pipeline (redis-py's reset())
            server = _address(connection)
            alone = time.monotonic() < self._degraded.get(server, 0.0)
            build(plain)
            if not alone:
                self.waits += 1
                plain.wait(replicas, self.timeout_ms)
            replies: list[Any] = await plain.execute(raise_on_error=False)
        if _address(connection) != server:  # reconnected elsewhere (a retry)
            raise NotReplicated("the write's connection moved to another server")
        self._raise_first(replies)
        if alone:
            return replies
        acked = replies.pop()
        if int(acked) < replicas and not await self._sentinel_alone(server):
            raise NotReplicated(f"{acked} of {replicas} replicas acknowledged a write")
        return replies

    def _raise_first(self, replies: list[Any]) -> None:
        for reply in replies:
            if isinstance(reply, ReadOnlyError) and isinstance(self._client, aioredis.RedisCluster):
                self._client._initialize = True  # learn the nodes again: a master was demoted
            if isinstance(reply, Exception):
                raise reply

    async def _cluster_alone(self, node: str) -> bool:
        """Whether the cluster master written to is still a master and has no replica (the
        write is kept then); False when it is no longer the master, or a replica lags."""
        client = self._client
        assert isinstance(client, aioredis.RedisCluster)
        try:
            info = await _replication(client, node)
        except (RedisError, OSError):
            return False
        self._has_replica.pop(node, None)
        if info.get("role") != "master" or int(info.get("connected_slaves", 1)) > 0:
            return False
        self._degraded[node] = time.monotonic() + _DEGRADED_S
        log.warning("redis: cluster master %s has no replica; writes are not replicated", node)
        return True

    async def _sentinel_alone(self, server: object) -> bool:
        """Whether ``server``, written to, is the master of the newest configuration a
        majority of the Sentinels report, with no failover under way and no healthy replica
        any of them sees (the write is kept then). False otherwise: it is being failed over
        from, a Sentinel names a newer master (the pool moves there), or a replica lags."""
        pool = getattr(self._client, "connection_pool", None)
        if not isinstance(pool, SentinelConnectionPool):
            return False
        service = pool.service_name
        views = await _views(pool.sentinel_manager.sentinels, service)
        if 2 * len(views) <= len(pool.sentinel_manager.sentinels):
            return False  # a minority cannot say the others did not fail it over
        newest = max(views, key=lambda view: view.epoch)
        if pool.master_address != newest.master:  # a failover no announcement reached us for
            pool.master_address = newest.master
            await pool.disconnect(inuse_connections=True)
        if server != newest.master or any(view.failing_over or view.replica for view in views):
            return False
        self._degraded[server] = time.monotonic() + _DEGRADED_S
        log.warning("redis: %s has no healthy replica; writes are not replicated", service)
        return True


async def _replication(client: aioredis.RedisCluster, name: str) -> dict[str, Any]:
    """``INFO replication`` of the cluster node ``name``."""
    info: Any = await client.info("replication", target_nodes=client.get_node(node_name=name))
    if "role" not in info and info:  # by node name, on some versions
        info = next(iter(info.values()))
    return dict(info)


def _address(connection: Any) -> object:
    """The server a connection talks to (its host and port, or its socket path)."""
    path = getattr(connection, "path", None)
    return getattr(connection, "host", None), getattr(connection, "port", path)


class _View:
    """One Sentinel's view of a service: its master, config epoch, whether it is failing it
    over, whether it sees a healthy replica of it."""

    __slots__ = ("epoch", "failing_over", "master", "replica")

    def __init__(self, state: dict[str, Any], replicas: list[dict[str, Any]]) -> None:
        self.master = (state["ip"], int(state["port"]))
        self.epoch = int(state.get("config-epoch", 0))
        flags = state["flags"]
        flags = flags if isinstance(flags, set) else set(str(flags).split(","))
        self.failing_over = bool(flags & {"failover_in_progress", "s_down", "o_down"})
        self.replica = any(_healthy(r) for r in replicas)


async def _views(sentinels: Sequence[aioredis.Redis], service: str) -> list[_View]:
    """The views of ``service`` of every Sentinel that answers."""

    async def view(sentinel: aioredis.Redis) -> _View | None:
        try:
            state: Any = await sentinel.sentinel_master(service)
            replicas: Any = await sentinel.sentinel_slaves(service)
        except (RedisError, OSError):
            return None
        return _View(state, replicas)

    return [v for v in await asyncio.gather(*(view(s) for s in sentinels)) if v is not None]


def _healthy(replica: dict[str, Any]) -> bool:
    flags = str(replica.get("flags", ""))
    down = ("s_down", "o_down", "disconnected")
    return not any(flag in flags for flag in down) and replica.get("master-link-status") == "ok"

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
  Sentinel says the node written to is still the master and it has no healthy replica (a
  deployment running on its master alone, after a ``kill -9``): then the write is kept and
  no ``WAIT`` is sent for a second, when Sentinel is asked again. On by default under
  Sentinel; ``RedisOptions.replicas`` sets it.

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
from redis.exceptions import NoScriptError, RedisError

from genmcp.storage.redis.topology import Client

__all__ = ["Acknowledged", "NotReplicated", "SentinelPool"]

log = logging.getLogger("genmcp")

SWITCH: Final = "+switch-master"
"""Sentinel's channel naming a new master: ``<service> <old ip> <port> <new ip> <port>``."""
_RELISTEN_S: Final = 0.5
_DEGRADED_S: Final = 1.0
"""How long a master found without a healthy replica is written to without ``WAIT``."""


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


def replicas_wanted(client: Client, replicas: int | None) -> int:
    """How many replicas a write waits for: ``replicas`` when set; else 1 under Sentinel."""
    if replicas is not None:
        return replicas
    pool = getattr(client, "connection_pool", None)
    return 1 if isinstance(pool, SentinelConnectionPool) else 0


class Acknowledged:
    """Runs write scripts whose reply says the write is on ``replicas`` replicas too.

    Args:
        client: the request-path client (one server or Sentinel: a cluster client waits for
            no replica yet).
        replicas: how many replicas acknowledge a write (0: no ``WAIT``, one command).
        timeout_ms: how long ``WAIT`` waits for them.
    """

    __slots__ = ("_client", "_degraded_until", "replicas", "timeout_ms", "waits")

    def __init__(self, client: Client, replicas: int, timeout_ms: int) -> None:
        self._client = client
        self.replicas = 0 if isinstance(client, aioredis.RedisCluster) else replicas
        self.timeout_ms = timeout_ms
        self._degraded_until = 0.0
        self.waits = 0
        """How many writes were sent with a ``WAIT``."""

    async def eval(self, script: Any, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        """``script(keys, args)``, acknowledged once ``replicas`` replicas have it."""
        if not self.replicas or time.monotonic() < self._degraded_until:
            return await script(keys=keys, args=args)
        self.waits += 1
        for attempt in (1, 2):
            async with self._client.pipeline(transaction=False) as pipe:
                pipe.evalsha(script.sha, len(keys), *keys, *args)
                pipe.wait(self.replicas, self.timeout_ms)
                reply, acked = await pipe.execute(raise_on_error=False)
            if isinstance(reply, NoScriptError) and attempt == 1:
                await self._client.script_load(script.script)
                continue
            if isinstance(reply, Exception):
                raise reply
            if isinstance(acked, Exception):
                raise acked
            if int(acked) < self.replicas and not await self._alone():
                raise NotReplicated(f"{acked} of {self.replicas} replicas acknowledged a write")
            return reply
        raise AssertionError("unreachable")

    async def pipeline(self, build: Callable[[Any], object]) -> list[Any]:
        """The replies of the commands ``build(pipe)`` queues (one pipeline, one round trip),
        acknowledged once ``replicas`` replicas have them (a ``WAIT`` queued after them)."""
        waiting = bool(self.replicas) and time.monotonic() >= self._degraded_until
        async with self._client.pipeline(transaction=False) as pipe:
            build(pipe)
            if waiting:
                self.waits += 1
                pipe.wait(self.replicas, self.timeout_ms)
            replies: list[Any] = await pipe.execute(raise_on_error=False)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        if waiting:
            acked = replies.pop()
            if int(acked) < self.replicas and not await self._alone():
                raise NotReplicated(f"{acked} of {self.replicas} replicas acknowledged a write")
        return replies

    async def _alone(self) -> bool:
        """Whether the master written to is still Sentinel's and has no healthy replica (the
        write is kept then); False when it is no longer the master, or a replica lags."""
        pool = getattr(self._client, "connection_pool", None)
        if not isinstance(pool, SentinelConnectionPool):
            return False
        manager, service = pool.sentinel_manager, pool.service_name
        address = await manager.discover_master(service)
        if pool.master_address is not None and address != pool.master_address:
            await pool.disconnect(inuse_connections=True)  # a failover Sentinel did not say
            pool.master_address = address
            return False
        for sentinel in manager.sentinels:
            try:
                replicas = await sentinel.sentinel_slaves(service)
            except (RedisError, OSError):
                continue
            healthy = [r for r in replicas if _healthy(r)]
            if healthy:
                return False
            self._degraded_until = time.monotonic() + _DEGRADED_S
            log.warning("redis: %s has no healthy replica; writes are not replicated", service)
            return True
        return False


def _healthy(replica: dict[str, Any]) -> bool:
    flags = str(replica.get("flags", ""))
    down = ("s_down", "o_down", "disconnected")
    return not any(flag in flags for flag in down) and replica.get("master-link-status") == "ok"

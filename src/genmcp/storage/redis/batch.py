"""Coalesce the session lookups of one event-loop turn into one Redis pipeline.

Under load many legacy requests look their session up at once. One connection per lookup
would need a pool as large as the concurrency (and exhaust it: ``MaxConnectionsError``);
:class:`ScriptBatch` instead queues every call of one script made during a loop turn and
sends them as one pipeline of ``EVALSHA`` on one pooled connection: each request still costs
one command, and a batch costs one round trip. On a Redis Cluster (whose client pipelines no
script) the calls of a batch are sent at once instead, each to its slot's master (still one
command per request). A script the server does not know (Redis
restarted) is loaded and the batch sent again. The whole batch runs under the breaker: when
Redis is down or hung every waiter gets ``StorageUnavailable`` within the deadline.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from typing import Any, final

from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError

from genmcp.storage.guard import Breaker
from genmcp.storage.redis.topology import Client

__all__ = ["ScriptBatch"]

_CLUSTER_CALLS = 32
"""Most calls of one script in flight on a cluster (below a node pool's 64 connections)."""
_Call = tuple[Sequence[str], Sequence[Any], "asyncio.Future[Any]"]


@final
class ScriptBatch:
    """Runs one Lua script for many callers, a pipeline per loop turn."""

    __slots__ = ("_breaker", "_calls", "_client", "_pending", "_script", "_sha", "_tasks")

    def __init__(self, client: Client, script: str, breaker: Breaker) -> None:
        self._client, self._script, self._breaker = client, script, breaker
        self._sha = hashlib.sha1(script.encode()).hexdigest()
        self._pending: list[_Call] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._calls = asyncio.Semaphore(_CLUSTER_CALLS)

    async def __call__(self, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """The script's reply for ``keys`` and ``args`` (``StorageUnavailable`` on failure)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._flush)
        self._pending.append((keys, args, future))
        return await future

    async def _one(self, client: RedisCluster, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """One call on a cluster, at most ``_CLUSTER_CALLS`` at once (its pools never wait)."""
        async with self._calls:
            return await client.evalsha(self._sha, len(keys), *keys, *args)

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        task = asyncio.get_running_loop().create_task(self._send(batch), name="genmcp:redis-batch")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, batch: list[_Call]) -> None:
        try:
            replies = await self._breaker.run(lambda: self._execute(batch))
        except BaseException as exc:  # StorageUnavailable, or cancelled at shutdown
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        for (_, _, future), reply in zip(batch, replies, strict=True):
            if not future.done():
                future.set_result(reply)

    async def _execute(self, batch: list[_Call]) -> list[Any]:
        for attempt in (1, 2):
            replies: list[Any]
            client = self._client
            if isinstance(client, RedisCluster):
                replies = await asyncio.gather(
                    *(self._one(client, keys, args) for keys, args, _ in batch),
                    return_exceptions=True,
                )
            else:
                async with client.pipeline(transaction=False) as pipe:
                    for keys, args, _ in batch:
                        pipe.evalsha(self._sha, len(keys), *keys, *args)
                    replies = await pipe.execute(raise_on_error=False)
            if attempt == 1 and any(isinstance(r, NoScriptError) for r in replies):
                await self._client.script_load(self._script)
                continue
            for reply in replies:
                if isinstance(reply, Exception):
                    raise reply
            return replies
        raise AssertionError("unreachable")

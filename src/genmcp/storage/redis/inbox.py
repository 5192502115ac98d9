"""``RedisInboxes``: one Redis list per address (a Suite in a process), with a heartbeat.

An open inbox keeps ``<prefix>alive:{<address>}`` set (``PX heartbeat_ttl_s``, refreshed every
``heartbeat_s``) and reads ``<prefix>inbox:{<address>}`` with ``BLPOP`` on a connection of its
own (both keys hash-tagged by the address: one Redis Cluster slot for the script that reads
both) (then ``LPOP`` of up to 256 more: one round trip drains a burst). ``deliver`` is one Lua
script, atomic: refused (False) when the address has no heartbeat (never opened, closed, or
its process died: the key expires ``heartbeat_ttl_s`` after the last beat), ``InboxFull``
past ``max_messages``, else ``RPUSH`` and a TTL on the list (every key expires). A message
stays in the list until its owner pops it, across reconnects and Redis hiccups: nothing is
dropped while the owner lives. Deliveries run under the breaker (``StorageUnavailable``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Final

from redis.exceptions import RedisError

from genmcp.storage import InboxFull
from genmcp.storage.memory.broker import INBOX_SIZE
from genmcp.storage.redis.options import RedisOptions
from genmcp.storage.redis.registry import encode, ttl_ms
from genmcp.storage.redis.topology import Client

__all__ = ["RedisInbox", "RedisInboxes"]

log = logging.getLogger("genmcp")

_DELIVER: Final = """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[2]) then return -1 end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""
_BURST: Final = 256


class RedisInbox:
    """One open address: its heartbeat and its reader (two tasks, ended by ``close``)."""

    def __init__(self, owner: RedisInboxes, address: str) -> None:
        self._owner, self.address = owner, address
        self._queue: asyncio.Queue[Any] = asyncio.Queue()  # bounded by the Redis list
        self._closed = False  # the loops stop on it too: a cancel may be lost (notices.py)
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._beat(), name="genmcp:inbox-heartbeat"),
            loop.create_task(self._read(), name="genmcp:inbox-reader"),
        ]

    async def receive(self) -> Any:
        return await self._queue.get()

    def close(self) -> None:
        self._closed = True
        for task in self._tasks:
            task.cancel()
        self._owner._closed(self)

    async def _beat(self) -> None:
        owner = self._owner
        alive, inbox = owner.alive_key(self.address), owner.inbox_key(self.address)
        while not self._closed:
            try:
                async with owner.client.pipeline(transaction=False) as pipe:
                    pipe.set(alive, b"1", px=ttl_ms(owner.heartbeat_ttl_s))
                    pipe.pexpire(inbox, ttl_ms(owner.inbox_ttl_s))
                    await pipe.execute()
            except (RedisError, OSError) as exc:
                log.warning("inbox %s: heartbeat failed (%s)", self.address, exc)
            await asyncio.sleep(owner.heartbeat_s)

    async def _read(self) -> None:
        owner, key, delay = self._owner, self._owner.inbox_key(self.address), 0.05
        block_s = owner.options.block_s
        while not self._closed:
            try:
                popped = await owner.reader.blpop([key], timeout=block_s)
                if popped is None:
                    continue
                raws = [popped[1]]
                more = await owner.reader.lpop(key, _BURST)
                if isinstance(more, list):
                    raws.extend(more)
            except (RedisError, OSError) as exc:
                log.warning(
                    "inbox %s: read failed (%s); retrying in %g s", self.address, exc, delay
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            delay = 0.05
            for raw in raws:
                try:
                    self._queue.put_nowait(json.loads(raw))
                except ValueError:
                    log.warning("inbox %s: a message that is not JSON: dropped", self.address)


class RedisInboxes:
    """``Inboxes`` on Redis (``RedisBroker`` offers it: ``broker.open_inbox``, ``deliver``).

    Args:
        client: the request-path client (deliveries, heartbeats).
        prefix: prefix of every key.
        options: timeouts and breaker; ``block_s`` is one blocking read.
        max_messages: most undelivered messages per inbox.
        heartbeat_s: how often an open inbox says it is alive.
        heartbeat_ttl_s: how long after its last beat an address counts as dead.
    """

    def __init__(
        self,
        client: Client,
        *,
        prefix: str,
        options: RedisOptions,
        max_messages: int = INBOX_SIZE,
        heartbeat_s: float = 3.0,
        heartbeat_ttl_s: float = 10.0,
    ) -> None:
        if heartbeat_ttl_s <= heartbeat_s:
            raise ValueError("heartbeat_ttl_s must exceed heartbeat_s")
        self.client, self.prefix, self.options = client, prefix, options
        self.max_messages = max_messages
        self.heartbeat_s, self.heartbeat_ttl_s = heartbeat_s, heartbeat_ttl_s
        self.inbox_ttl_s = heartbeat_ttl_s * 6
        self.breaker = options.breaker()
        self._deliver = client.register_script(_DELIVER)
        self._ack = options.acknowledged(client)  # mail is acknowledged once replicated
        self._reader: Client | None = None
        self._open: dict[str, RedisInbox] = {}
        self._forgetting: set[asyncio.Task[None]] = set()

    @property
    def reader(self) -> Client:
        """The blocking-read client (one connection; made on first use)."""
        if self._reader is None:
            self._reader = self.options.blocking_from(self.client)
        return self._reader

    def alive_key(self, address: str) -> str:
        return f"{self.prefix}alive:{{{address}}}"

    def inbox_key(self, address: str) -> str:
        return f"{self.prefix}inbox:{{{address}}}"

    def open_inbox(self, address: str) -> RedisInbox:
        inbox = self._open[address] = RedisInbox(self, address)
        return inbox

    async def deliver(self, address: str, message: Any) -> bool:
        keys = [self.inbox_key(address), self.alive_key(address)]
        args: list[str | int] = [encode(message), self.max_messages, ttl_ms(self.inbox_ttl_s)]
        outcome = await self.breaker.run(lambda: self._ack.eval(self._deliver, keys, args))
        if outcome == -1:
            raise InboxFull(f"inbox {address} is full ({self.max_messages} messages)")
        return bool(outcome == 1)

    def _closed(self, inbox: RedisInbox) -> None:
        if self._open.get(inbox.address) is inbox:
            del self._open[inbox.address]
            try:  # the address dies at once: posts to it are refused from now on
                task = asyncio.get_running_loop().create_task(
                    self._forget(inbox.address), name="genmcp:inbox-forget"
                )
            except RuntimeError:  # no loop any more: the key expires by itself
                return
            self._forgetting.add(task)
            task.add_done_callback(self._forgetting.discard)

    async def _forget(self, address: str) -> None:
        try:
            await self.client.delete(self.alive_key(address))
        except (RedisError, OSError):
            pass  # it expires by itself

    async def aclose(self) -> None:
        """Close every open inbox and the reader client."""
        for inbox in list(self._open.values()):
            inbox.close()
        if self._forgetting:
            await asyncio.wait(self._forgetting, timeout=1.0)
        if self._reader is not None:
            await self._reader.aclose()
            self._reader = None

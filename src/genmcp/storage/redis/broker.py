"""Redis implementations of ``genmcp.storage``: what several processes of one app share.

``RedisBroker`` also offers ``Inboxes`` (``storage.redis.inbox``): targeted, bounded,
lossless mail to one Suite's address. ``RedisSessionRegistry`` (``storage.redis.registry``)
keeps each legacy session's state in
Redis, one round trip per request. ``RedisBroker`` carries messages over Redis pub/sub: one
connection per broker, whatever the number of local subscriptions (every waiter of the
process is multiplexed on it); a topic is subscribed in Redis while at least one local
subscription wants it. Messages travel as JSON. Publishing runs under the broker's breaker
(``guard.Breaker``): a down or hung Redis is ``StorageUnavailable`` within ``deadline_s``.

Every key and channel starts with ``prefix`` (``"genmcp:"`` by default): apps that share a
Redis give each its own (without braces: a ``{`` in it would hash-tag every key into one
cluster slot). Processes of one app share the prefix and the secret key.

On a Redis Cluster pub/sub is sharded (``SPUBLISH``/``SSUBSCRIBE``, Redis 7): every channel of
the app is hash-tagged into one slot (``<prefix>{p}<topic>``), so a message goes to that
slot's master only (no broadcast over the cluster bus) and one publisher's messages keep
their order across topics; the pub/sub connection is one plain connection to that master.
When it fails (a failover) or the server drops the subscriptions (the slot moved), the
broker asks the cluster for the slot's master again and subscribes there to every topic.
Under Sentinel the connection is asked again for the master at each reconnection, and
redis-py subscribes again (what is published in between is lost: pub/sub is at most once).
A durable topic (``storage.messaging.durable``: change notifications, task status changes) does not
use pub/sub: it is logged in the app's notice stream and read from there by every process
(``storage.redis.notices``), so that what was published during a failover still arrives.

Both run on the server's event loop (create them anywhere, use and close them there).
A client given to them stays the caller's to close; one made by ``from_url`` is theirs.
Clients made by genmcp use ``RedisOptions`` (``storage.redis.options``), never redis-py's
defaults. Requires the ``redis`` package (``pip install 'genmcp[redis]'``).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import Iterable
from typing import Any, Final, Self, Unpack

try:
    from redis import asyncio as aioredis
    from redis.asyncio.client import PubSub
    from redis.asyncio.cluster import RedisCluster
    from redis.asyncio.sentinel import SentinelConnectionPool
    from redis.exceptions import RedisClusterException, RedisError
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "genmcp.storage.redis needs the redis package: pip install 'genmcp[redis]'"
    ) from exc

from genmcp.storage import durable
from genmcp.storage.fanout import Fanout
from genmcp.storage.memory.broker import QueuedSubscription
from genmcp.storage.redis.eviction import check_eviction
from genmcp.storage.redis.inbox import RedisInbox, RedisInboxes
from genmcp.storage.redis.notices import NoticeLog
from genmcp.storage.redis.options import RedisOptions
from genmcp.storage.redis.part import DEFAULT_PREFIX, PartOptions, RedisPart, close_client
from genmcp.storage.redis.refusals import refusing
from genmcp.storage.redis.registry import encode, ttl_ms
from genmcp.storage.redis.topology import NODE_OPTIONS, Client

__all__ = ["RedisBroker", "RedisSubscription"]

log = logging.getLogger("genmcp")

_MAX_BACKOFF_S: Final = 2.0
_FAILURES: Final = (RedisError, RedisClusterException, OSError)
CATALOG_TTL_MS: Final = 86_400_000
"""How long the catalog log outlives its last change (refreshed by every change)."""
# KEYS: version counter, log hash. ARGV: entry, event JSON, TTL ms.
# The version: one more than the last, and at least the Redis clock in microseconds (below
# 2**53: exact in Lua's doubles). A counter counted from 0 began again at 1 once Redis lost
# it (a restart empty, a failover before the replica had it): every process then ignored the
# changes numbered below the last one it applied before, and the catalogs drifted apart.
_RECORD: Final = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local version = math.max(tonumber(redis.call('GET', KEYS[1]) or '0') + 1, now)
redis.call('SET', KEYS[1], string.format('%.0f', version), 'PX', ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], string.format('%.0f', version) .. ' ' .. ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return version
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisSubscription(QueuedSubscription["RedisBroker"]):
    """Messages published to the topics one subscriber asked for, in order."""

    __slots__ = ()

    async def ready(self) -> None:
        await self._broker._ready(self._topics)


class _Topic:
    """The local subscribers of one topic, and whether Redis confirmed the subscription."""

    __slots__ = ("confirmed", "subscribers")

    def __init__(self) -> None:
        self.subscribers: set[RedisSubscription] = set()
        self.confirmed = asyncio.Event()


class RedisBroker(RedisPart):
    """``Broker`` over Redis pub/sub.

    Args:
        client: a ``redis.asyncio.Redis`` (left open by ``aclose``).
        prefix: prefix of every channel.
        ready_timeout_s: how long ``Subscription.ready`` waits for Redis to confirm (once Redis
            answered a ``PING`` under the breaker: a down or hung one fails it at once).
        options: deadline and breaker settings for ``publish`` (``RedisOptions`` defaults).

    Two tasks run once something subscribed: one sends ``SUBSCRIBE``/``UNSUBSCRIBE`` in
    order (retrying while Redis is unreachable), one reads the connection and hands each
    message to the local subscriptions of its topic. ``aclose`` ends both.
    Both readers (pub/sub and the notice stream) hand out through one ``storage.fanout``:
    past ``FANOUT_CHUNK`` local subscribers a chunk at a time, in the order read.
    """

    def __init__(
        self, client: Client, *, ready_timeout_s: float = 5.0, **part: Unpack[PartOptions]
    ) -> None:
        super().__init__(client, **part)
        self._node_client: aioredis.Redis | None = None
        self._ready_timeout_s = ready_timeout_s
        self._pubsub = self._new_pubsub()
        self._topics: dict[str, _Topic] = {}
        self._unconfirmed: dict[str, int] = {}  # SUBSCRIBE sent per channel, not yet confirmed
        self._commands: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._closed = False
        self._fanout = Fanout()  # read, not yet handed to every local subscriber
        self.inboxes = RedisInboxes(client, prefix=self._prefix, options=self.options)
        self._record = client.register_script(_RECORD)
        self._ack = self.options.acknowledged(client)  # logs and catalog changes: replicated
        self._catalog = self._prefix + "catalog:{c}"  # and its version: one hash tag, one slot
        # On a cluster every channel of the app is in one slot: one shard, publish order kept.
        self._channels = self._prefix + ("{p}" if isinstance(client, RedisCluster) else "")
        self._moving = False  # the server unsubscribed us: move to the slot's owner
        self.notices = NoticeLog(
            client,
            key=self._channels + "notices",
            options=self.options,
            deliver=self._hand_on,
        )
        """The durable topics' log (``storage.redis.notices``)."""

    def _new_pubsub(self) -> PubSub:
        """The pub/sub connection: the client's own; on a cluster, made by ``_pubsub_node``."""
        client = self._client
        if not isinstance(client, RedisCluster):
            return client.pubsub()
        self._node_client = None
        return PubSub(aioredis.ConnectionPool())  # not connected: replaced before use

    async def _pubsub_node(self) -> None:
        """On a cluster: the pub/sub connection goes to the master of the channels' slot."""
        client = self._client
        if not isinstance(client, RedisCluster) or self._node_client is not None:
            return
        await client.initialize()
        node = client.get_node_from_key(self._channels + "x")
        if node is None:
            raise RedisClusterException("no master serves the pub/sub slot")
        kwargs = client.nodes_manager.connection_kwargs
        options = {name: kwargs[name] for name in NODE_OPTIONS if name in kwargs}
        self._node_client = aioredis.Redis(
            host=node.host,
            port=int(node.port),
            socket_connect_timeout=self.options.connect_timeout_s,
            health_check_interval=self.options.health_check_s,  # type: ignore[arg-type]
            **options,
        )
        self._pubsub = self._node_client.pubsub()

    async def _next_node(self) -> None:
        """After a pub/sub failure on a cluster or under Sentinel: subscribe again to every
        topic, on the master now (of the channels' slot; the one Sentinel names)."""
        client = self._client
        if isinstance(client, RedisCluster):
            try:  # learn the slot's master now (a replica promoted)
                await client.nodes_manager.initialize()
            except _FAILURES as exc:
                log.warning("Redis cluster: no node answers (%s)", exc)
        elif not isinstance(client.connection_pool, SentinelConnectionPool):
            return  # redis-py reconnects to the one server and subscribes again
        # A new connection (Sentinel: to the master it names now), every topic again.
        old, old_client = self._pubsub, self._node_client
        self._pubsub, self._node_client, self._moving = self._new_pubsub(), None, False
        for closing in (old, old_client):
            if closing is not None:
                try:
                    await close_client(closing)
                except _FAILURES:
                    pass
        for topic in self._topics:
            if durable(topic):
                continue  # read from the notice stream, not pub/sub
            channel = self._channels + topic
            self._unconfirmed[channel] = self._unconfirmed.get(channel, 0) + 1
            self._commands.put_nowait(("subscribe", channel))

    def open_inbox(self, address: str) -> RedisInbox:
        """Start receiving what is delivered to ``address`` (``Inboxes``)."""
        return self.inboxes.open_inbox(address)

    async def deliver(self, address: str, message: Any) -> bool:
        """Queue ``message`` for ``address``; False when it has no live owner (``Inboxes``)."""
        return await self.inboxes.deliver(address, message)

    async def is_alive(self, address: str) -> bool:
        """Whether ``address`` has a fresh heartbeat (``Inboxes``)."""
        key = self.inboxes.alive_key(address)
        return bool(await self.breaker.run(lambda: self._client.exists(key)))

    async def append(self, key: str, entry: dict[str, str], maxlen: int, ttl_s: float) -> str:
        """``XADD`` ``entry`` to the stream ``prefix + key`` (``MAXLEN ~``) and set its TTL;
        acknowledged once replicated (``RedisOptions.replicas``)."""
        name, millis = self._prefix + key, ttl_ms(ttl_s)

        def append(pipe: Any) -> None:
            pipe.xadd(name, entry, maxlen=maxlen, approximate=True)
            pipe.pexpire(name, millis)

        replies = await self.breaker.run(lambda: refusing(lambda: self._ack.pipeline(append, name)))
        return _text(replies[0])

    async def read_after(self, key: str, after: str) -> list[tuple[str, dict[str, str]]]:
        """``XRANGE (after +`` of the stream ``prefix + key`` (``EventLog``)."""
        start = "-" if after == "0" else f"({after}"
        raw: Any = await self.breaker.run(
            lambda: self._client.xrange(self._prefix + key, start, "+")
        )
        return [
            (_text(entry_id), {_text(k): _text(v) for k, v in (fields or {}).items()})
            for entry_id, fields in raw or ()
        ]

    async def last(self, key: str) -> str | None:
        """``XREVRANGE + - COUNT 1`` of the stream ``prefix + key`` (``EventLog``)."""
        raw: Any = await self.breaker.run(
            lambda: self._client.xrevrange(self._prefix + key, "+", "-", count=1)
        )
        return _text(raw[0][0]) if raw else None

    async def record_change(self, key: str, event: Any) -> int:
        """Keep ``event`` as the latest catalog change of ``key``; its version (``CatalogLog``)."""
        keys = [self._prefix + "catalog:{c}:version", self._catalog]
        args: list[str | int] = [key, encode(event), CATALOG_TTL_MS]
        version = await self.breaker.run(
            lambda: refusing(lambda: self._ack.eval(self._record, keys, args))
        )
        return int(version)

    async def changes(self) -> list[Any]:
        """The latest catalog change of every entry, with its version (``CatalogLog``)."""
        raw = await self.breaker.run(lambda: self._client.hgetall(self._catalog))
        events = []
        for value in raw.values():
            version, _, text = _text(value).partition(" ")
            event = json.loads(text)
            event["version"] = int(version)
            events.append(event)
        return sorted(events, key=lambda event: int(event["version"]))

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        ready_timeout_s: float = 5.0,
        options: RedisOptions | None = None,
        **connection: Any,
    ) -> Self:
        """A broker on its own client for ``url`` (``RedisPart.from_url``)."""
        broker = super().from_url(url, prefix=prefix, options=options, **connection)
        broker._ready_timeout_s = ready_timeout_s
        return broker

    @property
    def topics(self) -> int:
        """How many topics have local subscribers (tests check it returns to zero)."""
        return len(self._topics)

    def subscribe(self, *topics: str) -> RedisSubscription:
        if self._closed:
            raise RuntimeError("RedisBroker is closed")
        subscription = RedisSubscription(self, topics)
        for topic in topics:
            entry = self._topics.get(topic)
            if entry is None:
                entry = self._topics[topic] = _Topic()
                if durable(topic):
                    self.notices.start()
                else:
                    channel = self._channels + topic
                    self._unconfirmed[channel] = self._unconfirmed.get(channel, 0) + 1
                    self._commands.put_nowait(("subscribe", channel))
            entry.subscribers.add(subscription)
        if self._writer is None and not self._commands.empty():
            self._writer = asyncio.get_running_loop().create_task(
                self._write_commands(), name="genmcp:redis-broker:writer"
            )
        return subscription

    async def start(self) -> None:
        """At server start (``Suite.start``): refuse a Redis that evicts keys, unless
        ``RedisOptions.allow_eviction`` (``storage.redis.eviction``)."""
        await check_eviction(self._client, allow=self.options.allow_eviction)

    async def publish(self, topic: str, message: Any) -> None:
        if durable(topic):  # logged and replicated before this returns
            await self.notices.publish(topic, message)
            return
        data = encode(message)
        channel = self._channels + topic
        if isinstance(self._client, RedisCluster):
            await self.breaker.run(lambda: self._client.spublish(channel, data))
        else:
            await self.breaker.run(lambda: self._client.publish(channel, data))

    async def aclose(self) -> None:
        """Close every subscription, end both tasks, release the connection(s)."""
        if self._closed:
            return
        self._closed = True
        for entry in list(self._topics.values()):
            for subscription in list(entry.subscribers):
                subscription.close()
        tasks = {task for task in (self._writer, self._reader) if task is not None}
        for task in tasks:
            task.cancel()
        # redis-py may swallow a cancellation mid-command: the loops also stop on _closed,
        # and closing the pub/sub connection fails a read that is still waiting.
        pending = (await asyncio.wait(tasks, timeout=1.0))[1] if tasks else set()
        await self.inboxes.aclose()
        await self.notices.aclose()
        await close_client(self._pubsub)
        if self._node_client is not None:
            await close_client(self._node_client)
        if pending and (await asyncio.wait(pending, timeout=1.0))[1]:
            log.warning("RedisBroker: a pub/sub task did not end at aclose")
        await super().aclose()  # the client, if from_url made it

    # -- local bookkeeping ------------------------------------------------------------

    def _drop(self, subscription: RedisSubscription, topics: Iterable[str]) -> None:
        for topic in topics:
            entry = self._topics.get(topic)
            if entry is None:
                continue
            entry.subscribers.discard(subscription)
            if not entry.subscribers:
                del self._topics[topic]
                if not self._closed and not durable(topic):
                    self._commands.put_nowait(("unsubscribe", self._channels + topic))

    async def _ready(self, topics: Iterable[str]) -> None:
        """Wait for Redis to confirm ``topics``, and to answer a ``PING``, under the breaker.

        A down or hung Redis is ``StorageUnavailable`` within ``deadline_s`` (at once while the
        breaker is open), not a wait of ``ready_timeout_s``: a topic confirmed long ago says
        nothing of the server now. A Redis that answers but has not confirmed within
        ``ready_timeout_s`` (a slow pub/sub connection) is logged, and the caller goes on.
        """
        topics = list(topics)
        events = [
            entry.confirmed
            for t in topics
            if (entry := self._topics.get(t)) is not None and not durable(t)
        ]
        if any(durable(t) for t in topics):
            events.append(self.notices.positioned)
        await self.breaker.run(self._client.ping)
        try:
            async with asyncio.timeout(self._ready_timeout_s):
                for event in events:
                    await event.wait()
        except TimeoutError:
            log.warning(
                "Redis did not confirm a subscription within %g s; going on without it",
                self._ready_timeout_s,
            )

    # -- the two tasks ----------------------------------------------------------------

    async def _write_commands(self) -> None:
        """Send the queued (un)subscriptions in order, batching runs of one kind."""
        while not self._closed:
            batch = [await self._commands.get()]
            while not self._commands.empty():
                batch.append(self._commands.get_nowait())
            for action, run in itertools.groupby(batch, key=lambda command: command[0]):
                await self._send(action, [channel for _, channel in run])
            if self._reader is None and not self._closed:  # a connection exists from now
                self._reader = asyncio.get_running_loop().create_task(
                    self._read(), name="genmcp:redis-broker:reader"
                )

    async def _send(self, action: str, channels: list[str]) -> None:
        delay = 0.05
        while not self._closed:
            try:
                sharded = isinstance(self._client, RedisCluster)
                if action == "subscribe":
                    if sharded:
                        await self._pubsub_node()
                        await self._pubsub.ssubscribe(*channels)
                    else:
                        await self._pubsub.subscribe(*channels)
                elif sharded:
                    if self._node_client is not None:  # else: not subscribed on this node
                        await self._pubsub.sunsubscribe(*channels)
                else:
                    await self._pubsub.unsubscribe(*channels)
                return
            except _FAILURES as exc:
                log.warning("Redis %s failed (%s); retrying in %g s", action, exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, _MAX_BACKOFF_S)
                if isinstance(self._client, RedisCluster) and action == "subscribe":
                    await self._next_node()
                    return  # every topic is queued again, on the next node

    async def _read(self) -> None:
        """Hand every message to the local subscribers of its topic."""
        delay = 0.05
        while not self._closed:
            if self._moving:
                await self._next_node()
            if self._pubsub.connection is None:  # a new node's: not subscribed yet
                await asyncio.sleep(0.02)
                continue
            try:
                message = await self._pubsub.get_message(timeout=None)
            except _FAILURES as exc:
                log.warning("Redis pub/sub read failed (%s); retrying in %g s", exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, _MAX_BACKOFF_S)
                await self._next_node()
                continue
            delay = 0.05
            if message is not None:
                await self._dispatch(message)

    async def _hand_on(self, topic: str, message: Any) -> None:
        """A durable topic's message, read from the notice stream: to its local subscribers."""
        entry = self._topics.get(topic)
        if entry is not None:
            await self._fanout.send(topic, message, tuple(entry.subscribers))

    async def _dispatch(self, message: dict[str, Any]) -> None:
        kind, channel = message.get("type"), _text(message.get("channel") or b"")
        if not channel.startswith(self._channels):
            return
        topic = channel[len(self._channels) :]
        entry = self._topics.get(topic)
        if kind == "sunsubscribe" and entry is not None and channel not in self._unconfirmed:
            # The server dropped a subscription we still want (its slot moved): follow it.
            self._moving = True
            return
        if kind in ("subscribe", "ssubscribe"):
            # Confirmed once every SUBSCRIBE sent for it is (an unsubscribe may be between).
            pending = self._unconfirmed.pop(channel, 0) - 1
            if pending > 0:
                self._unconfirmed[channel] = pending
            elif entry is not None:
                entry.confirmed.set()
            return
        if kind not in ("message", "smessage") or entry is None:  # None: unsubscribed meanwhile
            return
        try:
            payload = json.loads(message["data"])
        except (TypeError, ValueError):
            log.warning("Redis channel %s carried a message that is not JSON: dropped", channel)
            return
        await self._fanout.send(topic, payload, tuple(entry.subscribers))

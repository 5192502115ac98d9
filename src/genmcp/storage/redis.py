"""Redis implementations of ``genmcp.storage``: what several processes of one app share.

``RedisSessionRegistry`` keeps each legacy session's fields in one Redis hash that expires
with the session (value fields as JSON under ``v:<name>``, set members one hash field each,
so adding or removing one is a single atomic ``HSET``/``HDEL``), an ended session as a
key with a TTL, and a reserved name (a request id in flight) as a ``SET NX PX`` key.
``RedisBroker`` carries messages over Redis pub/sub: one connection per broker, whatever
the number of local subscriptions; a topic is subscribed in Redis while at least one local
subscription wants it. Messages travel as JSON.

Every key and channel starts with ``prefix`` (``"genmcp:"`` by default): apps that share a
Redis give each its own. Processes of one app share the prefix and the secret key.

Both run on the server's event loop (create them anywhere, use and close them there).
A client given to them stays the caller's to close; one made by ``from_url`` is theirs.
Requires the ``redis`` package (``pip install 'genmcp[redis]'``).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import math
from collections.abc import Iterable
from typing import Any, Final

try:
    from redis import asyncio as aioredis
    from redis.exceptions import RedisError
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "genmcp.storage.redis needs the redis package: pip install 'genmcp[redis]'"
    ) from exc

from genmcp.storage.memory import QueuedSubscription

__all__ = ["DEFAULT_PREFIX", "RedisBroker", "RedisSessionRegistry", "RedisSubscription"]

log = logging.getLogger("genmcp")

DEFAULT_PREFIX: Final = "genmcp:"
"""Prefix of every key and channel unless told otherwise."""
_VALUE: Final = "v:"
_MEMBER: Final = "s:"
_MAX_BACKOFF_S: Final = 2.0


def _ttl_ms(ttl_s: float) -> int:
    """A TTL in whole milliseconds, rounded up (0 or less: already expired)."""
    return math.ceil(ttl_s * 1000) if ttl_s > 0 else 0


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _encode(value: Any) -> str:
    # ASCII escapes: a lone surrogate (valid in JSON text) cannot be encoded as UTF-8.
    return json.dumps(value, separators=(",", ":"))


async def _aclose(closeable: Any) -> None:
    """``aclose()`` a client or pub/sub object (redis 5.0.0 only has ``close()``)."""
    await (getattr(closeable, "aclose", None) or closeable.close)()


class RedisSessionRegistry:
    """``SessionRegistry`` in Redis.

    Args:
        client: a ``redis.asyncio.Redis`` (left open by ``aclose``).
        prefix: prefix of every key.
    """

    def __init__(self, client: aioredis.Redis, *, prefix: str = DEFAULT_PREFIX) -> None:
        self._client = client
        self._prefix = prefix
        self._owns_client = False

    @classmethod
    def from_url(
        cls, url: str, *, prefix: str = DEFAULT_PREFIX, **options: Any
    ) -> RedisSessionRegistry:
        """A registry on its own client for ``url`` (``options`` go to ``Redis.from_url``)."""
        registry = cls(aioredis.Redis.from_url(url, **options), prefix=prefix)
        registry._owns_client = True
        return registry

    async def aclose(self) -> None:
        """Close the client if ``from_url`` made it."""
        if self._owns_client:
            await _aclose(self._client)

    def _fields(self, session: str) -> str:
        return f"{self._prefix}session:{session}"

    def _ended(self, session: str) -> str:
        return f"{self._prefix}ended:{session}"

    async def end(self, session: str, ttl_s: float) -> None:
        ttl_ms = _ttl_ms(ttl_s)
        async with self._client.pipeline(transaction=True) as pipe:
            if ttl_ms:
                pipe.set(self._ended(session), b"1", px=ttl_ms)
            else:
                pipe.delete(self._ended(session))
            pipe.delete(self._fields(session))
            await pipe.execute()

    async def is_ended(self, session: str) -> bool:
        return bool(await self._client.exists(self._ended(session)))

    async def put(self, session: str, name: str, value: Any, ttl_s: float) -> None:
        await self._write(session, ttl_s, set_field=(_VALUE + name, _encode(value)))

    async def get(self, session: str, name: str) -> Any:
        raw = await self._client.hget(self._fields(session), _VALUE + name)
        return None if raw is None else json.loads(raw)

    async def add(self, session: str, name: str, member: str, ttl_s: float) -> None:
        await self._write(session, ttl_s, set_field=(_member_field(name, member), "1"))

    async def discard(self, session: str, name: str, member: str, ttl_s: float) -> None:
        await self._write(session, ttl_s, drop_field=_member_field(name, member))

    async def members(self, session: str, name: str) -> frozenset[str]:
        fields = await self._client.hkeys(self._fields(session))
        members = set()
        for field in map(_text, fields):
            if field.startswith(_MEMBER):
                owner, member = json.loads(field[len(_MEMBER) :])
                if owner == name:
                    members.add(member)
        return frozenset(members)

    def _held(self, session: str, name: str) -> str:
        return f"{self._prefix}held:{session}:{name}"

    async def reserve(self, session: str, name: str, ttl_s: float) -> bool:
        ttl_ms = _ttl_ms(ttl_s)
        if not ttl_ms:
            return True  # held for no time: nothing to record
        return bool(await self._client.set(self._held(session, name), b"1", nx=True, px=ttl_ms))

    async def release(self, session: str, name: str) -> None:
        await self._client.delete(self._held(session, name))

    async def _write(
        self,
        session: str,
        ttl_s: float,
        *,
        set_field: tuple[str, str] | None = None,
        drop_field: str | None = None,
    ) -> None:
        """Change one field and set the expiry of them all, in one transaction."""
        key, ttl_ms = self._fields(session), _ttl_ms(ttl_s)
        if not ttl_ms:  # expires at once, with every other field (as in memory)
            await self._client.delete(key)
            return
        async with self._client.pipeline(transaction=True) as pipe:
            if set_field is not None:
                pipe.hset(key, *set_field)
            if drop_field is not None:
                pipe.hdel(key, drop_field)
            pipe.pexpire(key, ttl_ms)
            await pipe.execute()


def _member_field(name: str, member: str) -> str:
    return _MEMBER + _encode([name, member])


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


class RedisBroker:
    """``Broker`` over Redis pub/sub.

    Args:
        client: a ``redis.asyncio.Redis`` (left open by ``aclose``).
        prefix: prefix of every channel.
        ready_timeout_s: how long ``Subscription.ready`` waits for Redis to confirm.

    Two tasks run once something subscribed: one sends ``SUBSCRIBE``/``UNSUBSCRIBE`` in
    order (retrying while Redis is unreachable), one reads the connection and hands each
    message to the local subscriptions of its topic. ``aclose`` ends both.
    """

    def __init__(
        self,
        client: aioredis.Redis,
        *,
        prefix: str = DEFAULT_PREFIX,
        ready_timeout_s: float = 5.0,
    ) -> None:
        self._client = client
        self._prefix = prefix
        self._ready_timeout_s = ready_timeout_s
        self._owns_client = False
        self._pubsub = client.pubsub()
        self._topics: dict[str, _Topic] = {}
        self._unconfirmed: dict[str, int] = {}  # SUBSCRIBE sent per channel, not yet confirmed
        self._commands: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._closed = False

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        ready_timeout_s: float = 5.0,
        **options: Any,
    ) -> RedisBroker:
        """A broker on its own client for ``url`` (``options`` go to ``Redis.from_url``)."""
        client = aioredis.Redis.from_url(url, **options)
        broker = cls(client, prefix=prefix, ready_timeout_s=ready_timeout_s)
        broker._owns_client = True
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
                channel = self._prefix + topic
                self._unconfirmed[channel] = self._unconfirmed.get(channel, 0) + 1
                self._commands.put_nowait(("subscribe", channel))
            entry.subscribers.add(subscription)
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(
                self._write_commands(), name="genmcp:redis-broker:writer"
            )
        return subscription

    async def publish(self, topic: str, message: Any) -> None:
        await self._client.publish(self._prefix + topic, _encode(message))

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
        await _aclose(self._pubsub)
        if pending and (await asyncio.wait(pending, timeout=1.0))[1]:
            log.warning("RedisBroker: a pub/sub task did not end at aclose")
        if self._owns_client:
            await _aclose(self._client)

    # -- local bookkeeping ------------------------------------------------------------

    def _drop(self, subscription: RedisSubscription, topics: Iterable[str]) -> None:
        for topic in topics:
            entry = self._topics.get(topic)
            if entry is None:
                continue
            entry.subscribers.discard(subscription)
            if not entry.subscribers:
                del self._topics[topic]
                if not self._closed:
                    self._commands.put_nowait(("unsubscribe", self._prefix + topic))

    async def _ready(self, topics: Iterable[str]) -> None:
        events = [entry.confirmed for t in topics if (entry := self._topics.get(t))]
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
                if action == "subscribe":
                    await self._pubsub.subscribe(*channels)
                else:
                    await self._pubsub.unsubscribe(*channels)
                return
            except (RedisError, OSError) as exc:
                log.warning("Redis %s failed (%s); retrying in %g s", action, exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, _MAX_BACKOFF_S)

    async def _read(self) -> None:
        """Hand every message to the local subscribers of its topic."""
        delay = 0.05
        while not self._closed:
            try:
                message = await self._pubsub.get_message(timeout=None)
            except (RedisError, OSError) as exc:
                log.warning("Redis pub/sub read failed (%s); retrying in %g s", exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, _MAX_BACKOFF_S)
                continue
            delay = 0.05
            if message is not None:
                self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind, channel = message.get("type"), _text(message.get("channel") or b"")
        if not channel.startswith(self._prefix):
            return
        topic = channel[len(self._prefix) :]
        entry = self._topics.get(topic)
        if kind == "subscribe":
            # Confirmed once every SUBSCRIBE sent for it is (an unsubscribe may be between).
            pending = self._unconfirmed.pop(channel, 0) - 1
            if pending > 0:
                self._unconfirmed[channel] = pending
            elif entry is not None:
                entry.confirmed.set()
            return
        if kind != "message" or entry is None:  # entry None: unsubscribed meanwhile
            return
        try:
            payload = json.loads(message["data"])
        except (TypeError, ValueError):
            log.warning("Redis channel %s carried a message that is not JSON: dropped", channel)
            return
        for subscription in tuple(entry.subscribers):
            subscription._deliver(topic, payload)

"""Durable notifications: what every open stream gets at least once, across a failover.

Pub/sub is at most once: what is published while a process's pub/sub connection is down (a
master killed, a planned failover) never reaches it, and nothing says so (issue 47: 10 of 97
``resources/updated`` lost per stream). A durable topic (``storage.messaging.durable``: change
notifications, task status changes) goes instead into one bounded stream per app,
``<prefix>notices`` (``<prefix>{p}notices`` on a cluster: the pub/sub channels' slot):

- **Publish**: ``XADD MAXLEN ~`` with a TTL, and ``WAIT`` for the replicas in the same
  pipeline (``failover.Acknowledged``): ``publish`` returns once the notification would
  survive a failover. One that fails (a refusal, a short ``WAIT``, no master) is sent again,
  with the same event id, until ``RedisOptions.notice_retry_s`` has passed; then it is
  ``StorageUnavailable``.
- **Read**: each process reads the stream on a blocking connection of its own (``XREAD BLOCK``
  from the last id it read) and hands each entry to its local subscriptions of that topic.
  After a read fails (a failover, a restart) it reads again from :data:`REWIND_MS` before the
  newest id it handed on (a new master's clock may be behind the old one's, and a retried
  publish lands after it) and drops the entries whose event id it has handed on already (the
  last ``maxlen`` + :data:`SEEN_MARGIN` ids): each notification reaches a subscription once.

A subscription counts from ``ready``: the reader knows its starting id by then (the stream's
newest, read once at its start). What a stream that far behind lost to ``MAXLEN`` is gone
(logged). Requires the ``redis`` package.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Final

from redis.exceptions import RedisClusterException, RedisError

from genmcp.storage.guard import StorageUnavailable
from genmcp.storage.redis.options import RedisOptions
from genmcp.storage.redis.refusals import refusing
from genmcp.storage.redis.registry import encode, ttl_ms
from genmcp.storage.redis.topology import Client

__all__ = ["NoticeLog"]

log = logging.getLogger("genmcp")

MAXLEN: Final = 10_000
"""Entries the stream keeps (about: ``MAXLEN ~``); a reader further behind loses the rest."""
TTL_S: Final = 86_400.0
"""How long the stream outlives its last notification."""
REWIND_MS: Final = 5_000
"""How far before its newest id a reader reads again after a failed read."""
SEEN_MARGIN: Final = 1_000
_BATCH: Final = 1_000
_FAILURES: Final = (RedisError, RedisClusterException, OSError)

Deliver = Callable[[str, Any], Awaitable[None]]
"""``await deliver(topic, message)``: hand one notification to the local subscriptions."""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _key(entry: str) -> tuple[int, int]:
    ms, _, seq = entry.partition("-")
    return int(ms), int(seq or 0)


class NoticeLog:
    """The app's stream of durable notifications: publishing, and this process's reader.

    Args:
        client: the request-path client (publishes; left open).
        key: the stream's key.
        options: the breaker, ``WAIT`` and retry settings; the reader's blocking client.
        deliver: where each notification read goes (the broker's local subscriptions).
        maxlen: entries kept (about).
    """

    def __init__(
        self,
        client: Client,
        *,
        key: str,
        options: RedisOptions,
        deliver: Deliver,
        maxlen: int = MAXLEN,
    ) -> None:
        self._client, self.key, self.options = client, key, options
        self._deliver, self.maxlen = deliver, maxlen
        self.breaker = options.breaker()
        self._ack = options.acknowledged(client)
        self._reader: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._closed = False  # the reader stops on it too: a cancel may be swallowed
        self._last: str | None = None  # where the next read starts
        self._newest = "0-0"  # the newest id handed on
        self._seen: dict[str, None] = {}  # event ids handed on, oldest first
        self.positioned = asyncio.Event()
        """Set once the reader knows where it starts: later notifications reach it."""
        self.rewinds = 0
        """How many times the reader read again after a failure (tests read it)."""

    # -- publishing ---------------------------------------------------------------------

    async def publish(self, topic: str, message: Any) -> None:
        """Log ``message`` on ``topic``; returns once it is acknowledged (replicated)."""
        fields = {"t": topic, "m": encode(message), "i": uuid.uuid4().hex}
        millis = ttl_ms(TTL_S)

        def queue(pipe: Any) -> None:
            pipe.xadd(self.key, fields, maxlen=self.maxlen, approximate=True)
            pipe.pexpire(self.key, millis)

        async def send() -> Any:
            return await refusing(lambda: self._ack.pipeline(queue, self.key))

        loop = asyncio.get_running_loop()
        deadline, delay = loop.time() + self.options.notice_retry_s, 0.05
        while True:
            try:
                await self.breaker.run(send)
                return
            except StorageUnavailable:
                if loop.time() + delay > deadline:
                    raise
            await asyncio.sleep(delay)  # the same event id: a reader hands it on once
            delay = min(delay * 2, 0.5)

    # -- reading ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the reader (on the running loop), once."""
        if self._task is None and not self._closed:
            self._task = asyncio.get_running_loop().create_task(
                self._read(), name="genmcp:redis-notices"
            )

    @property
    def reader(self) -> Client:
        """The blocking-read client (one connection; made on first use)."""
        if self._reader is None:
            self._reader = self.options.blocking_from(self._client)
        return self._reader

    async def _read(self) -> None:
        delay, failed = 0.05, False
        block_ms = max(1, round(self.options.block_s * 1000))
        while not self._closed:  # not only the cancel: on Python 3.11 redis-py's wait_for
            # (each command's send, under socket_timeout) loses a cancel that lands as it ends
            try:
                if self._last is None:
                    newest: Any = await self.reader.xrevrange(self.key, "+", "-", count=1)
                    self._last = _text(newest[0][0]) if newest else "0-0"
                    self.positioned.set()
                elif failed:
                    self._rewind()
                failed = False
                raw: Any = await self.reader.xread(
                    {self.key: self._last}, count=_BATCH, block=block_ms
                )
            except _FAILURES as exc:
                log.warning("notices: read failed (%s); again in %g s", exc, delay)
                failed = True
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.5)
                continue
            delay = 0.05
            for _, entries in raw or ():
                for entry_id, fields in entries:
                    await self._hand_on(_text(entry_id), fields or {})

    def _rewind(self) -> None:
        """Read again from ``REWIND_MS`` before the newest id handed on (duplicates dropped)."""
        ms, _ = _key(self._newest)
        self._last = f"{max(0, ms - REWIND_MS)}-0" if ms else "0-0"
        self.rewinds += 1

    async def _hand_on(self, entry: str, raw: dict[Any, Any]) -> None:
        self._last = entry
        fields = {_text(k): _text(v) for k, v in raw.items()}
        event = fields.get("i", entry)
        if event in self._seen:
            return
        self._seen[event] = None
        if len(self._seen) > self.maxlen + SEEN_MARGIN:
            del self._seen[next(iter(self._seen))]
        if _key(entry) > _key(self._newest):
            self._newest = entry
        try:
            message = json.loads(fields["m"])
        except (KeyError, ValueError):
            log.warning("notices: entry %s is not a notification: dropped", entry)
            return
        await self._deliver(fields.get("t", ""), message)

    async def aclose(self) -> None:
        """End the reader and close its client."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            if (await asyncio.wait({self._task}, timeout=1.0))[1]:
                log.warning("notices: the reader did not end at aclose")
            self._task = None
        if self._reader is not None:
            await self._reader.aclose()
            self._reader = None

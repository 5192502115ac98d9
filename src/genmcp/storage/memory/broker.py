"""``MemoryBroker``: pub/sub, inboxes and event logs in this process, the default for one.

A dict from topic to its subscribers, each a ``QueuedSubscription``: a bounded queue the
broker feeds, that drops (and logs) what it cannot hold. ``QueuedSubscription`` serves both
brokers: ``storage.redis.broker`` feeds its local subscribers through it too. The broker
also offers ``Inboxes`` (a bounded queue per open address, ``MemoryInbox``; ``INBOX_SIZE``
is Redis's default bound too), ``EventLog`` (the streamed legacy answers, in an
``Expiring`` map of at most ``MAX_LOGS`` logs) and the latest catalog change per key.
Messages are kept and handed over as they are (no JSON copy): don't change them after.
A publish to more than ``FANOUT_CHUNK`` subscribers hands the message out a chunk at a time,
the loop running between chunks (``storage.fanout``, which says why); a publish made
meanwhile is handed out after it, in order, and returns at once.
Runs on the server's event loop and is not thread-safe, but for one thing: a subscription is
fed on the loop it was made on. One app may be served by two loops of a process at once (a
test kit beside a live server, two servers in threads): a change published on one loop must
wake a stream listening on the other. From genmcp it imports the ``storage`` protocols
(``InboxFull``), ``fanout`` and ``memory.expiring``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any, Final, Generic, Protocol, TypeVar

from genmcp.storage import InboxFull
from genmcp.storage.fanout import Fanout
from genmcp.storage.memory.expiring import Expiring

__all__ = [
    "INBOX_SIZE",
    "MAX_LOGS",
    "QUEUE_SIZE",
    "MemoryBroker",
    "MemoryInbox",
    "QueuedSubscription",
]

log = logging.getLogger("genmcp")

QUEUE_SIZE: Final = 256
"""Most undelivered messages one ``QueuedSubscription`` holds (both brokers)."""
INBOX_SIZE: Final = 10_000
"""Most undelivered messages one inbox holds (both brokers)."""
MAX_LOGS: Final = 10_000
"""Most event logs (streamed legacy answers) kept in memory; the oldest go first."""


class _Broker(Protocol):
    """What a ``QueuedSubscription`` needs of its broker: forget it on ``close``."""

    def _drop(self, subscription: Any, topics: tuple[str, ...]) -> None: ...


B = TypeVar("B", bound=_Broker)


class QueuedSubscription(Generic[B]):
    """A ``Subscription`` its broker feeds through a bounded queue (both brokers use it).

    The broker calls ``_deliver``; a full queue drops the message and logs it. ``ready``
    returns at once: a broker that must wait for a server to confirm overrides it. A
    delivery from another thread's loop is handed to the subscription's own loop
    (``call_soon_threadsafe``): put into the queue there, the reader waiting on it wakes;
    put from the other thread, its loop could sleep on until something else woke it.
    """

    __slots__ = ("_broker", "_loop", "_queue", "_topics", "closed")

    def __init__(self, broker: B, topics: tuple[str, ...]) -> None:
        self._broker = broker
        self._topics = topics
        self._queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue(QUEUE_SIZE)
        self._loop = _running_loop()
        self.closed = False

    async def ready(self) -> None:
        return None  # subscribed in the broker's ``subscribe`` already

    def receive(self) -> Coroutine[Any, Any, tuple[str, Any]]:
        """The queue's ``get`` itself: no coroutine of ours around it while a stream waits."""
        return self._queue.get()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._broker._drop(self, self._topics)

    def _deliver(self, topic: str, message: Any) -> None:
        loop = self._loop
        if loop is None or loop is _running_loop():
            self._put(topic, message)
        elif not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # its loop closed meanwhile: nobody reads
                loop.call_soon_threadsafe(self._put, topic, message)

    def _put(self, topic: str, message: Any) -> None:
        try:
            self._queue.put_nowait((topic, message))
        except asyncio.QueueFull:
            log.warning("subscription to %s full (%d): message dropped", topic, QUEUE_SIZE)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """This thread's running loop, None outside one."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


Subscriber = QueuedSubscription["MemoryBroker"]


def _entry_number(entry_id: str) -> int:
    head = entry_id.partition("-")[0]
    return int(head) if head.isdigit() else 0


class MemoryInbox:
    """An ``Inbox`` in memory: a bounded queue that its broker fills."""

    __slots__ = ("_broker", "address", "queue")

    def __init__(self, broker: MemoryBroker, address: str) -> None:
        self._broker, self.address = broker, address
        self.queue: asyncio.Queue[Any] = asyncio.Queue(INBOX_SIZE)

    async def receive(self) -> Any:
        return await self.queue.get()

    def close(self) -> None:
        if self._broker._inboxes.get(self.address) is self:
            del self._broker._inboxes[self.address]


class MemoryBroker:
    """``Broker`` (and ``Inboxes``) in this process's memory."""

    def __init__(self) -> None:
        self._topics: dict[str, set[Subscriber]] = {}
        self._inboxes: dict[str, MemoryInbox] = {}
        self._changes: dict[str, Any] = {}
        self._version = 0
        self._logs = Expiring(MAX_LOGS)
        self._entries = 0
        self._fanout = Fanout()  # published, not yet handed to every subscriber

    async def is_alive(self, address: str) -> bool:
        return address in self._inboxes

    async def append(self, key: str, entry: dict[str, str], maxlen: int, ttl_s: float) -> str:
        """Add ``entry`` to the log ``key`` (``EventLog``)."""
        entries: list[tuple[str, dict[str, str]]] = self._logs.get(key) or []
        self._entries += 1
        entry_id = f"{self._entries}-0"
        entries.append((entry_id, dict(entry)))
        del entries[:-maxlen]
        self._logs.put(key, entries, ttl_s)
        return entry_id

    async def read_after(self, key: str, after: str) -> list[tuple[str, dict[str, str]]]:
        """The entries of ``key`` after ``after`` (``EventLog``)."""
        entries: list[tuple[str, dict[str, str]]] = self._logs.get(key) or []
        since = _entry_number(after)
        return [(i, dict(e)) for i, e in entries if _entry_number(i) > since]

    async def last(self, key: str) -> str | None:
        """The id of the newest entry of ``key`` (``EventLog``)."""
        entries: list[tuple[str, dict[str, str]]] = self._logs.get(key) or []
        return entries[-1][0] if entries else None

    async def record_change(self, key: str, event: Any) -> int:
        """Keep ``event`` as the latest catalog change of ``key``; its version."""
        self._version += 1
        self._changes[key] = {**event, "version": self._version}
        return self._version

    async def changes(self) -> list[Any]:
        """The latest catalog change of every entry, oldest first."""
        return sorted(self._changes.values(), key=lambda event: int(event["version"]))

    def open_inbox(self, address: str) -> MemoryInbox:
        inbox = self._inboxes[address] = MemoryInbox(self, address)
        return inbox

    async def deliver(self, address: str, message: Any) -> bool:
        inbox = self._inboxes.get(address)
        if inbox is None:
            return False
        try:
            inbox.queue.put_nowait(message)
        except asyncio.QueueFull:
            raise InboxFull(f"inbox {address} is full ({INBOX_SIZE})") from None
        return True

    def subscribe(self, *topics: str) -> Subscriber:
        subscription = QueuedSubscription(self, topics)
        for topic in topics:
            self._topics.setdefault(topic, set()).add(subscription)
        return subscription

    async def publish(self, topic: str, message: Any) -> None:
        """Hand ``message`` to every subscriber of ``topic`` now, in publish order; past
        ``FANOUT_CHUNK`` subscribers, a chunk at a time (``storage.fanout``)."""
        await self._fanout.send(topic, message, tuple(self._topics.get(topic, ())))

    async def start(self) -> None:
        """Nothing to check in one process."""

    async def aclose(self) -> None:
        """Close every open subscription (they receive nothing more)."""
        for subscribers in list(self._topics.values()):
            for subscription in list(subscribers):
                subscription.close()

    @property
    def topics(self) -> int:
        """How many topics have subscribers (tests check it returns to zero)."""
        return len(self._topics)

    def _drop(self, subscription: Subscriber, topics: tuple[str, ...]) -> None:
        for topic in topics:
            subscribers = self._topics.get(topic)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._topics[topic]

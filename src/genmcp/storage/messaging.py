"""What waits for something from outside its own request: the broker and its kin.

* ``Broker`` and its ``Subscription``: publish/subscribe. A client's answer to a
  server-initiated request, a ``notifications/cancelled`` for an in-flight call, the end of a
  session, change notifications and messages for a session's GET stream are waited for here,
  never on a module-level dict; :func:`durable` names the topics a shared broker logs.
* ``Inboxes`` (offered by both brokers): one bounded inbox per Suite (per process), for mail
  to a worker by id (``InboxFull`` when full; a post to an owner that is not alive is refused).
* ``EventLog``: bounded, expiring logs of stream events (legacy SSE resumption).

Implemented by ``memory.broker`` and ``redis.broker`` (``redis.inbox``, ``redis.notices``).
Imports nothing from genmcp.
"""

from __future__ import annotations

from typing import Any, Final, Protocol, runtime_checkable

__all__ = [
    "DURABLE_TOPICS",
    "Broker",
    "EventLog",
    "Inbox",
    "InboxFull",
    "Inboxes",
    "Subscription",
    "durable",
]

DURABLE_TOPICS: Final = ("genmcp.changes", "genmcp.task/")
"""What names a durable topic: the change notifications (``sync.listen.CHANGES`` and the
change log's ``LOGGED``) and the task status changes (``tasks.watch.topic``), also under a
tenant's prefix (``storage.scoped``)."""


def durable(topic: str) -> bool:
    """Whether ``topic`` carries notifications every open stream must get, at least once
    (a shared broker logs them; see ``Broker``)."""
    return any(mark in topic for mark in DURABLE_TOPICS)


@runtime_checkable
class Subscription(Protocol):
    """Messages published to the topics one subscriber asked for, in order."""

    async def ready(self) -> None:
        """Return once messages published from now on reach this subscription.

        In one process that is at once; a shared broker waits for its server to confirm the
        subscription: a server that is down or hung raises ``guard.StorageUnavailable``
        within the broker's deadline; one that answers but cannot confirm in time is logged,
        and ``ready`` returns. Await it
        before you make the thing happen that you wait for, when that thing may happen in
        another process.
        """
        ...

    async def receive(self) -> tuple[str, Any]:
        """Wait for the next ``(topic, message)``."""
        ...

    def close(self) -> None:
        """Stop receiving; a receiver waiting in ``receive`` is left to its own cancellation."""
        ...


@runtime_checkable
class Broker(Protocol):
    """Publish/subscribe between requests (and, with a shared implementation, processes).

    A message reaches the subscriptions open on its topic when it is published; with none
    it is dropped. Subscribe (and await ``ready``) before you make the thing happen that you
    wait for. Delivery is at most once: a shared broker that loses its connection drops what
    is published meanwhile; except on a :func:`durable` topic, where a shared broker logs
    each message before ``publish`` returns and every process reads the log from where it
    left off (``redis.notices``): a message whose ``publish`` returned reaches every
    subscription open then, once, across a reconnect or a failover.
    """

    def subscribe(self, *topics: str) -> Subscription:
        """Start receiving the messages published to ``topics``."""
        ...

    async def publish(self, topic: str, message: Any) -> None:
        """Deliver ``message`` to the current subscribers of ``topic``."""
        ...

    async def start(self) -> None:
        """At server start (``Suite.start``): the broker's own checks of its store (a Redis
        that evicts keys is refused); nothing to do in one process."""
        ...


class InboxFull(Exception):
    """The target inbox holds its maximum of undelivered messages: retry later."""


@runtime_checkable
class Inbox(Protocol):
    """The messages delivered to one address, in order; its owner is alive while it is open."""

    async def receive(self) -> Any:
        """Wait for the next message."""
        ...

    def close(self) -> None:
        """Stop receiving; the address is no longer alive (posts to it are refused)."""
        ...


@runtime_checkable
class Inboxes(Protocol):
    """Targeted, bounded, lossless delivery to an address (one Suite, one process).

    Lossless while the owner lives: a delivered message stays queued until its owner reads
    it, also across reconnects. A message for an owner that died is lost with it.
    """

    def open_inbox(self, address: str) -> Inbox:
        """Start receiving what is delivered to ``address`` (and keep it alive)."""
        ...

    async def deliver(self, address: str, message: Any) -> bool:
        """Queue ``message`` for ``address``: False when no live owner has it open.

        Raises ``InboxFull`` when its inbox is full.
        """
        ...

    async def is_alive(self, address: str) -> bool:
        """Whether a live owner has ``address`` open (its heartbeat is fresh)."""
        ...


@runtime_checkable
class EventLog(Protocol):
    """Bounded, expiring logs of stream events (legacy SSE resumption), by key.

    Entry ids increase within a log and are visible ASCII. A log keeps its last ``maxlen``
    entries (about) and expires ``ttl_s`` after its last append.
    """

    async def append(self, key: str, entry: dict[str, str], maxlen: int, ttl_s: float) -> str:
        """Add ``entry`` (string fields) to the log ``key``; its id."""
        ...

    async def read_after(self, key: str, after: str) -> list[tuple[str, dict[str, str]]]:
        """The entries of ``key`` after the id ``after`` (all with ``"0"``), oldest first."""
        ...

    async def last(self, key: str) -> str | None:
        """The id of the newest entry of ``key`` (None when it has none)."""
        ...

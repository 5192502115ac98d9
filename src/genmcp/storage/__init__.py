"""What genmcp shares between requests, behind two small interfaces (DESIGN §7).

* ``SessionRegistry``: the little state a legacy session has beyond its sealed
  ``Mcp-Session-Id`` (which already holds the negotiated version, capabilities and
  clientInfo): whether it was ended with ``DELETE``, the level ``logging/setLevel`` chose
  (a value field), the resources it subscribed to (a set field, updated member by member so
  that two processes subscribing at once lose nothing). Entries expire with the session.
* ``Broker``: publish/subscribe. Whatever waits for something from outside its own request
  waits here, never on a module-level dict: a client's answer to a server-initiated request,
  a ``notifications/cancelled`` for an in-flight call, the end of a session, change
  notifications and messages for a session's GET stream, messages posted to a worker by id.
  In one process it is a dict of queues (``memory.MemoryBroker``); a shared implementation
  (``redis.RedisBroker``) makes the same code work across processes.

Values and messages are JSON values (dicts, lists, strings, numbers, booleans, None): a
shared implementation stores and carries them as JSON, and hands back equal copies.

* ``Inboxes`` (optional, offered by both brokers): one inbox per Suite (per process), for
  mail to a worker. A post goes to the one inbox its worker id names, never to every process;
  the inbox is bounded (``InboxFull``); a post to an address whose owner is not alive (no
  heartbeat) is refused (``deliver`` returns False).

The in-memory defaults are in ``genmcp.storage.memory``, the Redis ones in
``genmcp.storage.redis`` (``pip install 'genmcp[redis]'``). Imports nothing from genmcp.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = [
    "Broker",
    "EventLog",
    "Inbox",
    "InboxFull",
    "Inboxes",
    "SessionRegistry",
    "Subscription",
]


@runtime_checkable
class SessionRegistry(Protocol):
    """Per-session state of legacy (2025) sessions, keyed by the session's key.

    Fields are small JSON values (``"log_level"``...) or sets of strings (``"resources"``)
    that expire with the session: every write sets the expiry of all the session's fields
    to its ``ttl_s``. Ending a session drops them. Value and set fields live apart: ``get``
    never sees a set, ``members`` never a value.
    """

    async def epoch(self, ttl_s: float) -> str:
        """The registry's epoch, created when it has none; kept at least ``ttl_s`` more.

        Session ids carry the epoch they began in. A registry that lost its data (a Redis
        restarted empty, a process restarted with the in-memory one) has a new epoch, so
        every older session is refused: its end-marker may have been lost with the rest.
        """
        ...

    async def lookup(
        self, session: str, epoch: str, names: tuple[str, ...]
    ) -> dict[str, Any] | None:
        """The value fields ``names`` of a live ``session``, in one round trip.

        None when ``session`` was ended, or ``epoch`` is not the registry's epoch (the
        session began before the registry lost its data). Missing fields are None.
        """
        ...

    async def end(self, session: str, ttl_s: float) -> None:
        """Mark ``session`` ended (``DELETE``) for ``ttl_s`` seconds; drop its fields."""
        ...

    async def is_ended(self, session: str) -> bool:
        """True when ``session`` was ended and its mark has not expired."""
        ...

    async def put(self, session: str, name: str, value: Any, ttl_s: float) -> None:
        """Set the field ``name`` of ``session`` for ``ttl_s`` seconds."""
        ...

    async def get(self, session: str, name: str) -> Any:
        """The field ``name`` of ``session``, or None."""
        ...

    async def add(self, session: str, name: str, member: str, ttl_s: float) -> None:
        """Add ``member`` to the set field ``name`` of ``session`` (atomically)."""
        ...

    async def discard(self, session: str, name: str, member: str, ttl_s: float) -> None:
        """Remove ``member`` from the set field ``name`` of ``session`` (atomically)."""
        ...

    async def members(self, session: str, name: str) -> frozenset[str]:
        """The members of the set field ``name`` of ``session`` (empty when none)."""
        ...


@runtime_checkable
class Subscription(Protocol):
    """Messages published to the topics one subscriber asked for, in order."""

    async def ready(self) -> None:
        """Return once messages published from now on reach this subscription.

        In one process that is at once; a shared broker waits for its server to confirm the
        subscription (bounded: a broker that cannot confirm logs it and returns). Await it
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
    is published meanwhile.
    """

    def subscribe(self, *topics: str) -> Subscription:
        """Start receiving the messages published to ``topics``."""
        ...

    async def publish(self, topic: str, message: Any) -> None:
        """Deliver ``message`` to the current subscribers of ``topic``."""
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

"""What genmcp shares between requests, behind two small interfaces (DESIGN §7).

* ``SessionRegistry``: the little state a legacy session has beyond its sealed
  ``Mcp-Session-Id`` (which already holds the negotiated version, capabilities and
  clientInfo): whether it was ended with ``DELETE``, the level ``logging/setLevel`` chose,
  the resources it subscribed to. Entries expire with the session.
* ``Broker``: publish/subscribe. Whatever waits for something from outside its own request
  waits here, never on a module-level dict: a client's answer to a server-initiated request,
  a ``notifications/cancelled`` for an in-flight call, the end of a session, change
  notifications and messages for a session's GET stream. In one process it is a dict of
  queues (``memory.MemoryBroker``); a shared implementation (Redis) makes the same code
  work across processes.

The in-memory defaults are in ``genmcp.storage.memory``. Imports nothing from genmcp.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Broker", "SessionRegistry", "Subscription"]


@runtime_checkable
class SessionRegistry(Protocol):
    """Per-session state of legacy (2025) sessions, keyed by the session's key.

    Fields are small JSON values (``"log_level"``, ``"resources"``...) that expire with
    the session; ending a session drops them.
    """

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


@runtime_checkable
class Subscription(Protocol):
    """Messages published to the topics one subscriber asked for, in order."""

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
    it is dropped. Subscribe before you make the thing happen that you wait for.
    """

    def subscribe(self, *topics: str) -> Subscription:
        """Start receiving the messages published to ``topics``."""
        ...

    async def publish(self, topic: str, message: Any) -> None:
        """Deliver ``message`` to the current subscribers of ``topic``."""
        ...

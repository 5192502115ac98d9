"""``ScopedBroker``: one tenant's own view of a broker every tenant shares.

Per-tenant catalogs (``genmcp.fastapi.tenants``) give each tenant a Suite of its own, and
a Suite publishes on fixed topics (``genmcp.changes``, ``genmcp.catalog`` ...) and logs its
catalog changes under fixed keys. On one shared broker those would mix the tenants: tenant
A's runtime tool would reach tenant B's processes and streams. A ``ScopedBroker`` prefixes
every topic and log key with ``tenant:<scope>:`` and tags each catalog record with its scope,
so a tenant's Suite hears and replays only its own changes, while every tenant shares the
broker's one pub/sub connection per process.

Worker mail goes over the scoped pub/sub topic (no per-tenant inbox: an inbox is a Redis
connection each). Imports only genmcp's storage protocols.
"""

from __future__ import annotations

import re
from typing import Any, Final, final

from genmcp.storage import Broker, Subscription

__all__ = ["SCOPE", "ScopedBroker"]

SCOPE: Final = re.compile(r"[A-Za-z0-9_.-]{1,64}")
"""What a scope (a tenant id) may be: safe in a topic, a key and a URL path segment."""


@final
class _ScopedSubscription:
    """A subscription on the prefixed topics that reports them without the prefix."""

    __slots__ = ("_inner", "_skip")

    def __init__(self, inner: Subscription, skip: int) -> None:
        self._inner, self._skip = inner, skip

    async def ready(self) -> None:
        await self._inner.ready()

    async def receive(self) -> tuple[str, Any]:
        topic, message = await self._inner.receive()
        return topic[self._skip :], message

    def close(self) -> None:
        self._inner.close()


@final
class ScopedBroker:
    """``broker`` as seen by the scope ``scope`` alone (see the module).

    Args:
        broker: the shared broker (``MemoryBroker``, ``RedisBroker``); it stays the
            caller's to close.
        scope: the tenant id (:data:`SCOPE`).
    """

    __slots__ = ("_broker", "_prefix", "scope")

    def __init__(self, broker: Broker, scope: str) -> None:
        if SCOPE.fullmatch(scope) is None:
            raise ValueError(f"a tenant id is 1 to 64 of A-Z a-z 0-9 _ . -, not {scope!r}")
        self._broker, self.scope, self._prefix = broker, scope, f"tenant:{scope}:"

    def subscribe(self, *topics: str) -> Subscription:
        inner = self._broker.subscribe(*(self._prefix + topic for topic in topics))
        return _ScopedSubscription(inner, len(self._prefix))

    async def publish(self, topic: str, message: Any) -> None:
        await self._broker.publish(self._prefix + topic, message)

    async def start(self) -> None:
        """Nothing: the shared broker is the caller's to start, as to close."""

    # -- EventLog (legacy GET streams resume from the change log) ----------------------

    async def append(self, key: str, entry: dict[str, str], maxlen: int, ttl_s: float) -> str:
        """Append to the scope's own log ``key``."""
        result: str = await self._broker.append(  # type: ignore[attr-defined]
            self._prefix + key, entry, maxlen, ttl_s
        )
        return result

    async def read_after(self, key: str, after: str) -> list[tuple[str, dict[str, str]]]:
        """The entries of the scope's log ``key`` after ``after``."""
        result: list[tuple[str, dict[str, str]]] = await self._broker.read_after(  # type: ignore[attr-defined]
            self._prefix + key, after
        )
        return result

    async def last(self, key: str) -> str | None:
        """The newest entry id of the scope's log ``key``."""
        result: str | None = await self._broker.last(self._prefix + key)  # type: ignore[attr-defined]
        return result

    # -- CatalogLog (the shared catalog's replay) --------------------------------------

    async def record_change(self, key: str, event: dict[str, Any]) -> int:
        """Record ``event`` as the scope's latest change of ``key``."""
        tagged = {**event, "scope": self.scope}
        version: int = await self._broker.record_change(  # type: ignore[attr-defined]
            self._prefix + key, tagged
        )
        return version

    async def changes(self) -> list[dict[str, Any]]:
        """The scope's latest change of every entry, in version order."""
        every: list[dict[str, Any]] = await self._broker.changes()  # type: ignore[attr-defined]
        return [event for event in every if event.get("scope") == self.scope]

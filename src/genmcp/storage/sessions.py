"""The state of a legacy (2025) session beyond its sealed id: ``SessionRegistry``.

The sealed ``Mcp-Session-Id`` already holds the negotiated version, capabilities and
clientInfo; the registry keeps what changes afterwards: whether the session was ended with
``DELETE``, the level ``logging/setLevel`` chose (a value field), the resources it subscribed
to (a set field, updated member by member so that two processes subscribing at once lose
nothing). Implemented by ``memory.registry`` and ``redis.registry``. Imports nothing from
genmcp.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["SessionRegistry"]


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

"""Small named JSON values per owner: ``StateStore``, behind ``genmcp.UserStates``.

Per-user state that outlives a stateless call (``genmcp.user_state``), bounded in count and
expiring together. Implemented by ``memory.states`` and ``redis.states``. Imports nothing
from genmcp.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["StateStore"]


@runtime_checkable
class StateStore(Protocol):
    """Named values per ``owner`` (an opaque key: ``genmcp.user_state`` makes one per tenant
    and principal). Values are JSON text, stored and handed back as they are. An owner's
    values expire together, ``ttl_s`` after the last write of any of them; an owner holds at
    most ``max_names`` names.
    """

    async def get(self, owner: str, name: str) -> str | None:
        """The value ``name`` of ``owner``, or None."""
        ...

    async def put(self, owner: str, name: str, value: str, ttl_s: float, max_names: int) -> bool:
        """Store ``value``; False (nothing stored) when ``owner`` already holds ``max_names``
        other names."""
        ...

    async def delete(self, owner: str, name: str) -> bool:
        """Remove ``name``; whether it was there."""
        ...

    async def names(self, owner: str) -> list[str]:
        """The names ``owner`` holds, sorted."""
        ...

    async def clear(self, owner: str) -> None:
        """Remove every value of ``owner``."""
        ...

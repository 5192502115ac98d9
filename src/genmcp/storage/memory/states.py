"""``MemoryStateStore``: per-owner named values in this process's memory, bounded.

Each owner's values sit in one dict with one expiry (``ttl_s`` after its last write). The
number of owners is bounded too (``max_owners``): when it is reached, expired owners are
dropped, and a new owner is refused (``put`` returns False) while none expired: a flood of
new principals is refused, never evicting another user's state. One process only: with
several, use the Redis store (``genmcp.storage.redis.RedisStateStore``).
"""

from __future__ import annotations

import time
from typing import Final

__all__ = ["MAX_OWNERS", "MemoryStateStore"]

MAX_OWNERS: Final = 100_000
"""Owners one process keeps state for at most (the default)."""


class MemoryStateStore:
    """``StateStore`` in memory.

    Args:
        max_owners: owners with live state at most (new ones are refused beyond).
    """

    def __init__(self, *, max_owners: int = MAX_OWNERS) -> None:
        if max_owners < 1:
            raise ValueError("MemoryStateStore(max_owners=...) must be at least 1")
        self.max_owners = max_owners
        self._owners: dict[str, tuple[float, dict[str, str]]] = {}

    def _live(self, owner: str) -> dict[str, str] | None:
        held = self._owners.get(owner)
        if held is None:
            return None
        if held[0] <= time.monotonic():
            del self._owners[owner]
            return None
        return held[1]

    @property
    def owners(self) -> int:
        """Owners holding state now (expired ones may still be counted until touched)."""
        return len(self._owners)

    async def get(self, owner: str, name: str) -> str | None:
        values = self._live(owner)
        return None if values is None else values.get(name)

    async def put(self, owner: str, name: str, value: str, ttl_s: float, max_names: int) -> bool:
        values = self._live(owner)
        if values is None:
            if len(self._owners) >= self.max_owners:
                self._prune()
                if len(self._owners) >= self.max_owners:
                    return False
            values = {}
        elif name not in values and len(values) >= max_names:
            return False
        values[name] = value
        self._owners[owner] = (time.monotonic() + ttl_s, values)
        return True

    def _prune(self) -> None:
        now = time.monotonic()
        for owner in [o for o, (expiry, _) in self._owners.items() if expiry <= now]:
            del self._owners[owner]

    async def delete(self, owner: str, name: str) -> bool:
        values = self._live(owner)
        return values is not None and values.pop(name, None) is not None

    async def names(self, owner: str) -> list[str]:
        values = self._live(owner)
        return [] if values is None else sorted(values)

    async def clear(self, owner: str) -> None:
        self._owners.pop(owner, None)

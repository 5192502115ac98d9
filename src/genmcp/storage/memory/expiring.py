"""``Expiring``: a bounded map whose entries expire, the one shape three memory stores share.

``MemorySessionRegistry`` keeps its end markers and session fields in one, ``MemoryBroker``
its event logs, ``MemoryRecordStore`` each kind of record; the authorization front's
``MetadataDocuments`` the client documents it fetched and the fetches that failed. A full map
drops the oldest first (hostile clients make entries for free); expired ones are pruned as it
goes.
Runs on the server's event loop; not thread-safe, and need not be. Imports nothing from
genmcp.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

__all__ = ["Expiring"]


class Expiring:
    """A bounded map whose entries expire; the oldest entries go first when it is full."""

    __slots__ = ("_entries", "_limit")

    def __init__(self, limit: int) -> None:
        self._entries: OrderedDict[str, tuple[float, Any]] = OrderedDict()
        self._limit = limit

    def put(self, key: str, value: Any, ttl_s: float) -> None:
        now = time.monotonic()
        self.prune(now)
        self._entries.pop(key, None)
        self._entries[key] = (now + max(ttl_s, 0.0), value)
        while len(self._entries) > self._limit:
            self._entries.popitem(last=False)

    def get(self, key: str) -> Any:
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, value = entry
        if expires <= time.monotonic():
            del self._entries[key]
            return None
        return value

    def delete(self, key: str) -> None:
        self._entries.pop(key, None)

    def prune(self, now: float) -> None:
        """Drop the entries expired at ``now`` (``time.monotonic()``) from the oldest on."""
        # Entries are roughly in expiry order (similar TTLs): stop at the first live one.
        while self._entries:
            key, (expires, _) = next(iter(self._entries.items()))
            if expires > now:
                return
            del self._entries[key]

    def __len__(self) -> int:
        return len(self._entries)

"""``MemoryRecordStore``: an OAuth authorization server's records in this process.

Each kind of record is an ``Expiring`` map, bounded, the oldest records going first when it is
full; a record taken leaves a spent marker in a second map of its kind (``<kind>:spent``), and
``admit`` counts in a third (``<kind>:admitted``). Values are kept and handed over as they
are (no JSON copy): don't change them after. Runs on the server's event loop; not
thread-safe, and need not be. From genmcp it imports ``memory.expiring`` only.
"""

from __future__ import annotations

import time
from typing import Any

from genmcp.storage.memory.expiring import Expiring

__all__ = ["MemoryRecordStore"]


class MemoryRecordStore:
    """``RecordStore`` in one process: an expiring, bounded map per kind (and its spent
    markers); the oldest records go first when a kind is full.

    Args:
        max_entries: the bound of each kind's records, and of its spent markers.
    """

    def __init__(self, *, max_entries: int = 10_000) -> None:
        self.max_entries = max_entries
        self._kinds: dict[str, Expiring] = {}

    def _table(self, name: str) -> Expiring:
        table = self._kinds.get(name)
        if table is None:
            table = self._kinds[name] = Expiring(self.max_entries)
        return table

    async def put(self, kind: str, key: str, value: Any, ttl_s: float, *, tag: str = "") -> None:
        self._table(kind).put(key, (value, tag), ttl_s)

    async def get(self, kind: str, key: str) -> Any:
        found = self._table(kind).get(key)
        return None if found is None else found[0]

    async def take(self, kind: str, key: str, spent_ttl_s: float = 0.0) -> tuple[Any, str | None]:
        table = self._table(kind)
        found = table.get(key)
        if found is None:
            spent: str | None = self._table(kind + ":spent").get(key)
            return None, spent
        table.delete(key)
        if spent_ttl_s > 0:
            self._table(kind + ":spent").put(key, found[1], spent_ttl_s)
        return found[0], None

    async def admit(self, kind: str, key: str, ttl_s: float, limit: int) -> bool:
        table = self._table(kind + ":admitted")
        table.prune(time.monotonic())
        if len(table) >= limit:
            return False
        table.put(key, True, ttl_s)
        return True

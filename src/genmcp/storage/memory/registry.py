"""``MemorySessionRegistry``: a legacy session's state in this process, the default for one.

Expiring entries kept in insertion order and pruned as it goes, with a hard cap on their
number (hostile clients open sessions for free): end markers in one ``Expiring`` map, each
session's value and set fields in another. Values are kept and handed over as they are (no
JSON copy): don't change them after. Runs on the server's event loop; not thread-safe, and
need not be. From genmcp it imports ``memory.expiring`` only.
"""

from __future__ import annotations

import secrets
from typing import Any, Final

from genmcp.storage.memory.expiring import Expiring

__all__ = ["MAX_ENTRIES", "MemorySessionRegistry"]

MAX_ENTRIES: Final = 100_000


class _Fields:
    """One session's value fields and set fields (they expire together)."""

    __slots__ = ("sets", "values")

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.sets: dict[str, set[str]] = {}


class MemorySessionRegistry:
    """``SessionRegistry`` in this process's memory.

    Each method runs to its end without yielding to the loop, so every update is atomic.
    """

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._ended = Expiring(max_entries)
        self._fields = Expiring(max_entries)
        self._epoch = secrets.token_hex(8)  # a new process forgets every end-marker

    async def epoch(self, ttl_s: float) -> str:
        return self._epoch

    async def lookup(
        self, session: str, epoch: str, names: tuple[str, ...]
    ) -> dict[str, Any] | None:
        if epoch != self._epoch or self._ended.get(session) is True:
            return None
        fields: _Fields | None = self._fields.get(session)
        if fields is None:  # nothing set in this session (the usual case): no comprehension
            return dict.fromkeys(names)
        values = fields.values
        return {name: values.get(name) for name in names}

    async def end(self, session: str, ttl_s: float) -> None:
        self._ended.put(session, True, ttl_s)
        self._fields.delete(session)

    async def is_ended(self, session: str) -> bool:
        return self._ended.get(session) is True

    async def put(self, session: str, name: str, value: Any, ttl_s: float) -> None:
        fields = self._live(session)
        fields.values[name] = value
        self._fields.put(session, fields, ttl_s)

    async def get(self, session: str, name: str) -> Any:
        fields: _Fields | None = self._fields.get(session)
        return None if fields is None else fields.values.get(name)

    async def add(self, session: str, name: str, member: str, ttl_s: float) -> None:
        fields = self._live(session)
        fields.sets.setdefault(name, set()).add(member)
        self._fields.put(session, fields, ttl_s)

    async def discard(self, session: str, name: str, member: str, ttl_s: float) -> None:
        fields = self._live(session)
        members = fields.sets.get(name)
        if members is not None:
            members.discard(member)
            if not members:
                del fields.sets[name]
        self._fields.put(session, fields, ttl_s)

    async def members(self, session: str, name: str) -> frozenset[str]:
        fields: _Fields | None = self._fields.get(session)
        return frozenset(() if fields is None else fields.sets.get(name, ()))

    async def aclose(self) -> None:
        """Nothing to release (here for symmetry with the shared implementations)."""

    def _live(self, session: str) -> _Fields:
        fields: _Fields | None = self._fields.get(session)
        return _Fields() if fields is None else fields

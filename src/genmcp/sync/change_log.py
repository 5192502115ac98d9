"""The Suite's change log: what a legacy session's standalone GET stream resumes from.

A 2025 session's GET stream carries the Suite's change notifications (list changes, resource
updates). Any process may publish a change, and while a client is away no process is
listening for its session, so nothing could log the changes per session: the Suite logs each
change once, as it publishes it, in one bounded, expiring log beside the per-request logs
(``storage.EventLog`` key :data:`KEY`: a Redis Stream with ``MAXLEN ~`` and a TTL when
shared). A GET stream is a cursor over that log (``sessions.get_stream``): an
event's SSE id names its entry, and the session's filter (the URIs it subscribed to) and
translation apply as it is read. The legacy server turns the log on (``Suite.log_changes``);
a Suite that serves only 2026-07-28 logs nothing.

``ChangeFeed.announce`` publishes a change on ``CHANGES`` first (2026-07-28 listen streams
get it as before), then logs it and publishes ``{"e": <entry id>, "m": <message>}`` on
:data:`LOGGED`, the topic GET streams follow; ``"e"`` is None when the log was unreachable
(the streams then send that change without an id).

Imports genmcp's storage and protocol; no asyncio task of its own.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any, Final, final

from genmcp.protocol.jsonrpc import encode
from genmcp.storage import EventLog
from genmcp.storage.guard import StorageUnavailable

__all__ = ["KEY", "LOGGED", "ChangeLog"]

log = logging.getLogger("genmcp")

KEY: Final = "events:changes"
"""The log's key (beside the per-request ``events:<session>:<stream>`` logs)."""
LOGGED: Final = "genmcp.changes.logged"
"""The broker topic GET streams follow: ``{"e": entry id or None, "m": notification}``."""
_LAST_SEQ: Final = 2**64 - 1  # the largest sequence part of an entry id


Entry = tuple[str, Mapping[str, Any] | None]
"""An entry id and its notification (None for the mark a new stream starts from)."""


@final
class ChangeLog:
    """Logs the Suite's change notifications and reads them back for GET streams.

    Args:
        events: where (genmcp's brokers are event logs).
        maxlen: entries kept (about); an older cursor can no longer be replayed.
        ttl_s: how long the log is kept after its last entry.
    """

    __slots__ = ("events", "maxlen", "ttl_s")

    def __init__(self, events: EventLog, *, maxlen: int, ttl_s: float) -> None:
        self.events, self.maxlen, self.ttl_s = events, maxlen, ttl_s

    async def record(self, message: Mapping[str, Any]) -> str | None:
        """Log ``message``; its entry id (None when the log is unreachable)."""
        try:
            return await self._append({"m": encode(message).decode()})
        except StorageUnavailable:
            log.warning("change log unreachable: a change goes to GET streams without an id")
            return None

    async def tail(self) -> str | None:
        """The newest entry's id, where a new stream starts (None: the log is unreachable).

        An empty log (new, or expired) gets a mark first, so the id names an entry.
        """
        try:
            last = await self.events.last(KEY)
            return last if last is not None else await self._append({"start": "1"})
        except StorageUnavailable:
            return None

    async def since(self, entry: str) -> list[Entry] | None:
        """The entries after ``entry``, oldest first; None when the log no longer holds
        ``entry`` (trimmed, expired, or never there): what came after it may be lost."""
        entries = await self.events.read_after(KEY, _before(entry))
        if not entries or entries[0][0] != entry:
            return None
        return _decoded(entries[1:])

    async def after(self, entry: str) -> list[Entry]:
        """The entries after ``entry``, oldest first."""
        return _decoded(await self.events.read_after(KEY, entry))

    async def _append(self, entry: dict[str, str]) -> str:
        return await self.events.append(KEY, entry, self.maxlen, self.ttl_s)


def _before(entry: str) -> str:
    """The id just before ``entry`` (``<ms>-<seq>``), so that reading after it reads it too."""
    ms, _, seq = entry.partition("-")
    if int(seq or 0) > 0:
        return f"{ms}-{int(seq) - 1}"
    return f"{int(ms) - 1}-{_LAST_SEQ}" if int(ms) > 0 else "0"


def _decoded(entries: list[tuple[str, dict[str, str]]]) -> list[Entry]:
    return [(entry_id, json.loads(e["m"]) if "m" in e else None) for entry_id, e in entries]

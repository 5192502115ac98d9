"""Resumable legacy POST streams: SSE event ids, a bounded log, ``Last-Event-ID`` replay.

A legacy request answered over SSE writes every event to a log (``storage.EventLog``; a
Redis Stream with ``MAXLEN ~`` and a TTL when shared) before it is sent (its journal,
``legacy.journal``), and the event's SSE ``id`` names it: ``<stream>~<entry>``, where
``<stream>`` is the request id (JSON, in base64url) and ``<entry>`` the log's entry id. A
client whose stream broke sends ``GET`` with ``Last-Event-ID`` to any process:
:class:`ResumedStream` replays what came after that event, then follows the log until the
response. Each entry names the process running the call (its Suite's mail address); when
that process is gone (no heartbeat) and the response is not in the log, the client gets a
JSON-RPC error instead of silence. The log key is built from the verified session, never
from the event id: another session's events cannot be replayed (whatever id a client sends).

SSE polling (2025-11-25, SEP-1699): such a stream opens with a priming entry (no message),
so the client can resume it from the start; a tool that calls ``channel.close_stream()``
has its stream ended there while it runs on, and what it sends next goes to the log only
(``legacy.journal``), for the client's ``GET`` with ``Last-Event-ID``. Imports genmcp's
core and storage; no framework.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
import re
from collections.abc import AsyncIterator
from typing import Any, Final, final

from genmcp.errors import MCPError
from genmcp.protocol.jsonrpc import RequestId, error_response
from genmcp.storage import EventLog, Inboxes

__all__ = ["ResumedStream", "log_key", "parse_event_id", "resumable", "stream_of"]

log = logging.getLogger("genmcp")

_EVENT_ID: Final = re.compile(r"([A-Za-z0-9_-]{1,200})~([0-9]{1,20}-[0-9]{1,20})")
POLL_S: Final = 0.1
"""How often a resumed stream looks for new entries while the call runs elsewhere."""


def stream_of(request_id: RequestId) -> str:
    """The stream name of a request: its JSON id in unpadded base64url."""
    raw = json.dumps(request_id, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _request_id(stream: str) -> RequestId | None:
    try:
        value = json.loads(base64.urlsafe_b64decode(stream + "=" * (-len(stream) % 4)))
    except (binascii.Error, ValueError):
        return None
    ok = isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
    return value if ok else None


def log_key(session: str, stream: str) -> str:
    return f"events:{session}:{stream}"


def parse_event_id(text: str | None) -> tuple[str, str, RequestId] | None:
    """``(stream, entry, request id)`` of an SSE id this module made, else None."""
    match = _EVENT_ID.fullmatch(text or "")
    if match is None:
        return None
    request_id = _request_id(match[1])
    return None if request_id is None else (match[1], match[2], request_id)


async def resumable(events: EventLog, session: str, event: tuple[str, str, RequestId]) -> bool:
    """Whether a ``Last-Event-ID`` names one of this session's streams: its log holds the
    entry, or the entry is older than what the log still holds (trimmed: resumed with an
    error saying so). An id this session's logs never held (another session's, or one whose
    log is gone) is not resumed: the GET opens the plain stream, nothing replayed."""
    entries = await events.read_after(log_key(session, event[0]), "0")
    if not entries:
        return False
    return any(entry_id == event[1] for entry_id, _ in entries) or _newer(entries[0][0], event[1])


@final
class ResumedStream:
    """What a ``GET`` with ``Last-Event-ID`` replays: the events after it, to the response.

    ``local`` is this process's mail address: a call it runs is alive without asking
    ``liveness`` (which the in-memory backend answers only for inboxes it opened).
    """

    __slots__ = (
        "_after",
        "_key",
        "_liveness",
        "_local",
        "_log",
        "_request_id",
        "_stopped",
        "_stream",
    )

    def __init__(
        self,
        events: EventLog,
        liveness: Inboxes | None,
        session: str,
        event: tuple[str, str, RequestId],
        local: str | None = None,
    ) -> None:
        self._log, self._liveness, self._local = events, liveness, local
        self._stream, self._after, self._request_id = event
        self._key = log_key(session, self._stream)
        self._stopped = False

    def close(self) -> None:
        self._stopped = True

    async def __aiter__(self) -> AsyncIterator[Any]:
        async for _, message in self.sse():
            yield message

    async def sse(self) -> AsyncIterator[tuple[str | None, Any]]:
        """``(id, message)`` pairs: the missed events, then new ones, to the response."""
        entries = await self._log.read_after(self._key, "0")
        seen = [e for i, e in entries if not _newer(i, self._after)]
        if not any(entry_id == self._after for entry_id, _ in entries):
            # trimmed, expired, or never ours: say so, never stay silent
            yield None, self._lost("its events are no longer kept")
            return
        if any(e.get("f") for e in seen):
            return  # the client has seen the end already
        owner = entries[-1][1].get("o")
        entries = [(i, e) for i, e in entries if _newer(i, self._after)]
        while not self._stopped:
            for entry_id, entry in entries:
                self._after, owner = entry_id, entry.get("o", owner)
                if "m" in entry:  # a priming entry has none
                    yield f"{self._stream}~{entry_id}", json.loads(entry["m"])
                if entry.get("f"):
                    return
            if not await self._alive(owner):
                entries = await self._log.read_after(self._key, self._after)  # a last look
                if not entries:
                    yield None, self._lost("the process running it was lost")
                    return
                continue
            await asyncio.sleep(POLL_S)
            entries = await self._log.read_after(self._key, self._after)

    async def _alive(self, owner: str | None) -> bool:
        if owner is None:
            return False
        if owner == self._local:
            return True
        return self._liveness is not None and await self._liveness.is_alive(owner)

    def _lost(self, why: str) -> dict[str, Any]:
        failure = MCPError("internal_error", f"The request's response is lost: {why}")
        return error_response(self._request_id, failure)


def _newer(entry_id: str, than: str) -> bool:
    def key(value: str) -> tuple[int, int]:
        ms, _, seq = value.partition("-")
        return int(ms), int(seq or 0)

    return key(entry_id) > key(than)

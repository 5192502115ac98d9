"""Resumable legacy POST streams: SSE event ids, a bounded log, ``Last-Event-ID`` replay.

A legacy request answered over SSE writes every event to a log (``storage.EventLog``; a
Redis Stream with ``MAXLEN ~`` and a TTL when shared) before it is sent, and the event's
SSE ``id`` names it: ``<stream>~<entry>``, where ``<stream>`` is the request id (JSON, in
base64url) and ``<entry>`` the log's entry id. A client whose stream broke sends ``GET``
with ``Last-Event-ID`` to any process: :class:`ResumedStream` replays what came after that
event, then follows the log until the response. Each entry names the process running the
call (its Suite's mail address); when that process is gone (no heartbeat) and the response
is not in the log, the client gets a JSON-RPC error instead of silence. The log key is
built from the verified session, never from the event id: another session's events cannot
be replayed (whatever id a client sends).

SSE polling (2025-11-25, SEP-1699): such a stream opens with a priming event (an id, a
``retry:`` delay and empty data; logged as an entry without a message), so the client can
resume it from the start; a tool that calls ``channel.close_stream()`` has its stream
ended there while it runs on, and what it sends next goes to the log only
(``transports.legacy.polling``), for the client's ``GET`` with ``Last-Event-ID``.

A stream closed before its response by the client (it left: the call stops) logs a final
error, so a resumer learns the request ended; a cancelled one logs a bare end. Imports
genmcp's core and storage; no framework.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
import re
from collections.abc import AsyncIterator, Coroutine
from typing import Any, Final, final

from genmcp.errors import MCPError
from genmcp.protocol.jsonrpc import RequestId, encode, error_response
from genmcp.storage import EventLog, Inboxes
from genmcp.storage.guard import StorageUnavailable

__all__ = ["Journal", "ResumedStream", "parse_event_id"]

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


@final
class Journal:
    """Logs one POST stream's events and names each (its SSE ``id``)."""

    __slots__ = (
        "_key",
        "_log",
        "_maxlen",
        "_owner",
        "_request_id",
        "_session",
        "_stream",
        "_ttl_s",
        "done",
        "retry_ms",
    )

    def __init__(
        self,
        events: EventLog,
        session: str,
        request_id: RequestId,
        owner: str,
        *,
        maxlen: int,
        ttl_s: float,
        retry_ms: int | None = None,
    ) -> None:
        self._log, self._owner, self._request_id = events, owner, request_id
        self._session = session
        self._stream = self._key = ""  # named at the first event: most calls answer as JSON
        self._maxlen, self._ttl_s = maxlen, ttl_s
        self.retry_ms = retry_ms
        """SSE polling (2025-11-25): the stream is primed with this ``retry:`` delay and
        ``channel.close_stream()`` closes it; None: neither (older revisions)."""
        self.done = False

    async def prime(self) -> str | None:
        """The id of a polled stream's priming event, once logged (None: not polled, or the
        log is unreachable and there is no id to resume from)."""
        if self.retry_ms is None:
            return None
        return await self._append({"o": self._owner})

    async def record(self, message: Any, *, final: bool) -> str | None:
        """Log ``message``; its SSE id (None when the log is unreachable: sent unnamed)."""
        entry = {"m": encode(message).decode(), "o": self._owner}
        if final:
            entry["f"] = "1"
            self.done = True
        return await self._append(entry)

    async def ended(self) -> None:
        """The request ended without a response (cancelled): log a bare end for resumers."""
        self.done = True
        await self._append({"o": self._owner, "f": "1"})

    async def _append(self, entry: dict[str, str]) -> str | None:
        if not self._stream:
            self._stream = stream_of(self._request_id)
            self._key = log_key(self._session, self._stream)
        try:
            entry_id = await self._log.append(self._key, entry, self._maxlen, self._ttl_s)
        except StorageUnavailable:
            log.warning("event log unreachable: stream %s is not resumable", self._stream)
            return None
        return f"{self._stream}~{entry_id}"

    def closed(self, *, cancelled: bool = False) -> None:
        """The stream ended before the response was logged: log a final error (the client
        left: the call stopped), or a bare end when it was ``cancelled``."""
        if self.done:
            return
        ending: Coroutine[Any, Any, object]
        if cancelled:
            ending = self.ended()
        else:
            failure = MCPError(
                "internal_error", "The request stopped: its stream closed before the response"
            )
            ending = self.record(error_response(self._request_id, failure), final=True)
        self.done = True
        task = asyncio.get_running_loop().create_task(ending)
        _pending.add(task)
        task.add_done_callback(_pending.discard)


_pending: set[asyncio.Task[Any]] = set()  # final records in flight (kept from the GC)


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

"""A legacy session's standalone GET stream: the Suite's change notifications, resumable.

Carries list changes, and ``notifications/resources/updated`` only for the URIs the session
subscribed to (read from the registry; none while it is unreachable: fail closed),
translated for the session's revision. A session has one such stream at a time: opening or
resuming one tells the open one, on whatever process, to end (topic :func:`get_topic`); it
ends too when the session is deleted, and when a change finds its session gone from the
registry (the registry lost its data: a Redis restarted empty; one lookup per change, not
per request), so that the client learns it and initializes again.

Resumable. The stream is a cursor over the Suite's change log (``sync.change_log``, in
the event log: a Redis Stream with ``MAXLEN ~`` and a TTL when shared), and each event's SSE
id names its entry: ``get~<entry>`` (``get`` names no POST stream: theirs are base64url
JSON, ``legacy.resume``). A 2025-11-25 stream opens with a priming event (the id of the
log's newest entry, ``retry:``, empty data), so it can be resumed from its start. A ``GET``
with ``Last-Event-ID: get~<entry>``, on any process, replays this session's events logged
after that entry, then follows live. The 2025-11-25 transport lets a server replay or not
(MAY), and a GET must be answered with a stream (or 405): an id the log no longer holds
(trimmed past ``MAXLEN``, expired, or never ours) opens the stream live, first sending what
covers anything lost: ``list_changed`` for every list the server announces, and
``resources/updated`` for every URI the session subscribed to. Both mean "fetch it again",
so a client that missed nothing only refetches; an error status would end the session or its
client's stream for a gap. Without an event log the events carry no id.

Live list changes reach the stream only when what its caller sees moved (``Suite(visibility=)``,
the same filter as a 2026 listen stream's); replayed ones are all sent.

Imports asyncio and genmcp's core; never a web framework.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

from genmcp.protocol import legacy_results
from genmcp.protocol.jsonrpc import notification
from genmcp.protocol.methods import RESOURCES_UPDATED
from genmcp.sessions.rounds import end_topic
from genmcp.sessions.session_methods import SUBSCRIBED
from genmcp.storage import Broker, SessionRegistry, Subscription
from genmcp.storage.guard import StorageUnavailable
from genmcp.sync.change_log import LOGGED, ChangeLog, Entry
from genmcp.sync.listen import CHANGES, SeenFilter

__all__ = ["SessionStream", "get_topic", "list_notices", "parse_get_event_id"]

_UPDATED: Final = RESOURCES_UPDATED
_GET_EVENT: Final = re.compile(r"get~([0-9]{1,20}-[0-9]{1,20})")

SSEPair = tuple[str | None, dict[str, Any] | None]
"""An SSE event: its id and message (None: a priming event, an id and empty data)."""


def get_topic(session: str) -> str:
    """Where a newer GET of ``session`` tells the open one to end."""
    return f"legacy/{session}/get"


def parse_get_event_id(text: str | None) -> str | None:
    """The change log entry a GET stream's SSE id names, else None."""
    match = _GET_EVENT.fullmatch(text or "")
    return None if match is None else match[1]


def list_notices(capabilities: Mapping[str, Any]) -> tuple[str, ...]:
    """The ``list_changed`` notifications a server with ``capabilities`` sends."""
    kinds = ("tools", "prompts", "resources")
    return tuple(
        f"notifications/{kind}/list_changed"
        for kind in kinds
        if (capabilities.get(kind) or {}).get("listChanged")
    )


class SessionStream:
    """A session's GET stream: ``async for message in stream`` (or ``sse()``) until it ends.

    Opened with :meth:`open`. Args (keywords): ``changes``, the change log it follows (None:
    events without ids, from the broker); ``start``, the entry it follows from; ``resumed``,
    whether ``start`` came from the client (else it is the log's newest entry); ``retry_ms``,
    the ``retry:`` of its priming event (None: not primed, before 2025-11-25); ``lists``, the
    ``list_changed`` notifications sent when a resumed-from entry is lost.
    """

    def __init__(
        self,
        registry: SessionRegistry,
        session: str,
        version: str,
        subscription: Subscription,
        *,
        changes: ChangeLog | None = None,
        start: str | None = None,
        resumed: bool = False,
        retry_ms: int | None = None,
        lists: tuple[str, ...] = (),
        epoch: str | None = None,
        seen: SeenFilter | None = None,
    ) -> None:
        self._registry, self._session, self._version = registry, session, version
        self._seen = seen  # live list changes only for what the caller sees move
        self._subscription, self._changes = subscription, changes
        self._cursor, self._resumed = start, resumed
        self.retry_ms, self._lists = retry_ms, lists
        self._epoch = epoch  # the session's: a change checks the session still lives
        self._ahead: set[str] = set()  # entries sent without an id (the log unreachable)

    @classmethod
    async def open(
        cls,
        broker: Broker,
        registry: SessionRegistry,
        session: str,
        version: str,
        *,
        changes: ChangeLog | None,
        last_event_id: str | None = None,
        retry_ms: int | None = None,
        lists: tuple[str, ...] = (),
        epoch: str | None = None,
        seen: SeenFilter | None = None,
    ) -> SessionStream:
        """Open ``session``'s stream (resuming from ``last_event_id`` when it names an entry
        of the change log); the open one, on whatever process, ends."""
        await broker.publish(get_topic(session), "replaced")  # before we listen to it
        start = None if changes is None else parse_get_event_id(last_event_id)
        resumed = start is not None
        if changes is not None and start is None:
            start = await changes.tail()  # read before subscribing: later entries are followed
        topics = (CHANGES if changes is None else LOGGED, end_topic(session), get_topic(session))
        subscription = broker.subscribe(*topics)
        try:
            await subscription.ready()  # a change published elsewhere once we answer is not lost
        except BaseException:  # the store is down or hung: 503, nothing left subscribed
            subscription.close()
            raise
        return cls(
            registry,
            session,
            version,
            subscription,
            changes=changes,
            start=start,
            resumed=resumed,
            retry_ms=retry_ms,
            lists=lists,
            epoch=epoch,
            seen=seen,
        )

    def close(self) -> None:
        """Stop the stream (idempotent); iterating ends it too."""
        self._subscription.close()

    async def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        async for _, message in self.sse():
            if message is not None:
                yield message

    async def sse(self) -> AsyncIterator[SSEPair]:
        """``(id, message)`` pairs for SSE: the replay (or the priming event), then live."""
        try:
            if self._cursor is not None:
                async for event in self._opening():
                    yield event
            while True:
                topic, message = await self._subscription.receive()
                if topic in (LOGGED, CHANGES) and not await self._lives():
                    return  # the registry lost the session: the client must initialize again
                if topic == LOGGED and isinstance(message, dict):
                    async for event in self._follow(message):
                        yield event
                elif topic == CHANGES:  # no change log: the events carry no id
                    if await self._wanted(message, live=True):
                        yield None, legacy_results.legacy_message(message, self._version)
                else:
                    return  # the session ended, or a newer GET replaced this one
        finally:
            self._subscription.close()

    async def _lives(self) -> bool:
        """Whether the session is still in the registry (True while it is unreachable)."""
        if self._epoch is None:
            return True
        try:
            return await self._registry.lookup(self._session, self._epoch, ()) is not None
        except StorageUnavailable:
            return True

    async def _opening(self) -> AsyncIterator[SSEPair]:
        assert self._changes is not None and self._cursor is not None
        if not self._resumed:
            if self.retry_ms is not None:
                yield self._id(self._cursor), None
            entries: list[Entry] | None = await self._read(self._cursor)
        else:
            try:
                entries = await self._changes.since(self._cursor)
            except StorageUnavailable:
                entries = []  # the cursor stays: the next change reads from it
            if entries is None:
                async for event in self._resync():
                    yield event
                return
        async for event in self._named(entries or []):
            yield event

    async def _follow(self, wake: dict[str, Any]) -> AsyncIterator[SSEPair]:
        """What one logged change brings: the entries after the cursor (in log order)."""
        entries = None
        if self._cursor is not None and wake.get("e") is not None:
            entries = await self._read(self._cursor)
        if entries is None:  # not logged, or the log is unreachable: send it without an id
            message = wake.get("m")
            if isinstance(message, dict) and await self._wanted(message, live=True):
                if isinstance(wake.get("e"), str):  # read later with the others: skipped then
                    self._ahead.add(wake["e"])
                yield None, legacy_results.legacy_message(message, self._version)
            return
        async for event in self._named(entries, live=True):
            yield event

    async def _named(self, entries: list[Entry], *, live: bool = False) -> AsyncIterator[SSEPair]:
        for entry, message in entries:
            self._cursor = entry
            if entry in self._ahead:  # sent already, without its id
                self._ahead.discard(entry)
                continue
            if message is not None and await self._wanted(message, live=live):
                yield self._id(entry), legacy_results.legacy_message(message, self._version)

    async def _resync(self) -> AsyncIterator[SSEPair]:
        """The resumed-from entry is lost: tell the client to fetch whatever may have changed."""
        assert self._changes is not None
        self._cursor = await self._changes.tail()
        messages = [notification(method) for method in self._lists]
        messages += [notification(_UPDATED, {"uri": uri}) for uri in sorted(await self._uris())]
        name = None if self._cursor is None else self._id(self._cursor)
        for n, message in enumerate(messages, 1):  # the last one carries the new cursor
            translated = legacy_results.legacy_message(message, self._version)
            yield (name if n == len(messages) else None), translated
        if not messages and name is not None and self.retry_ms is not None:
            yield name, None

    async def _read(self, cursor: str) -> list[Entry] | None:
        assert self._changes is not None
        try:
            return await self._changes.after(cursor)
        except StorageUnavailable:
            return None

    async def _wanted(self, message: Any, *, live: bool = False) -> bool:
        """Whether the session gets ``message``: an update only of a URI it subscribed to; a
        ``live`` list change only when what the caller sees moved (a replayed one always: what
        the client saw before it left is not known)."""
        if not isinstance(message, dict):
            return False
        if message.get("method") != _UPDATED:
            return not live or self._seen is None or await self._seen.moved(message["method"])
        return message.get("params", {}).get("uri") in await self._uris()

    async def _uris(self) -> frozenset[str]:
        """The URIs the session subscribed to (none while the registry is unreachable)."""
        try:
            return await self._registry.members(self._session, SUBSCRIBED)
        except StorageUnavailable:
            return frozenset()

    def _id(self, entry: str) -> str:
        return f"get~{entry}"

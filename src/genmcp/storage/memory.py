"""In-process implementations of ``genmcp.storage``: the defaults for one process.

``MemorySessionRegistry`` keeps expiring entries in insertion order and prunes the expired
ones as it goes, with a hard cap on their number (hostile clients open sessions for free).
``MemoryBroker`` is a dict from topic to the bounded queues of its subscribers. Values and
messages are kept and handed over as they are (no JSON copy): don't change them after.
``QueuedSubscription`` (a bounded queue per subscriber) serves both brokers, Redis's too.
``MemoryBroker`` also offers ``Inboxes``: a bounded queue per open address.
``MemoryTaskStore`` keeps task records in a dict that expires them.
``MemoryRecordStore`` keeps the records of an OAuth authorization server, bounded per kind.

Both run on the event loop of the server; they are not thread-safe, and need not be.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any, Final, Generic, Protocol, TypeVar

from genmcp.protocol.tasks import iso_now
from genmcp.storage import (
    TERMINAL,
    InboxFull,
    TaskEnd,
    TaskQuota,
    TaskQuotaExceeded,
    now_ms,
)
from genmcp.storage.buckets import MemoryBuckets

__all__ = [
    "INBOX_SIZE",
    "MemoryBroker",
    "MemoryInbox",
    "MemoryRecordStore",
    "MemorySessionRegistry",
    "MemoryTaskStore",
    "QueuedSubscription",
]

log = logging.getLogger("genmcp")

MAX_ENTRIES: Final = 100_000
QUEUE_SIZE: Final = 256
INBOX_SIZE: Final = 10_000
"""Most undelivered messages one inbox holds (both brokers)."""
MAX_LOGS: Final = 10_000
"""Most event logs (streamed legacy answers) kept in memory; the oldest go first."""


class _Expiring:
    """A bounded map whose entries expire; the oldest entries go first when it is full."""

    __slots__ = ("_entries", "_limit")

    def __init__(self, limit: int) -> None:
        self._entries: OrderedDict[str, tuple[float, Any]] = OrderedDict()
        self._limit = limit

    def put(self, key: str, value: Any, ttl_s: float) -> None:
        now = time.monotonic()
        self._prune(now)
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

    def _prune(self, now: float) -> None:
        # Entries are roughly in expiry order (similar TTLs): stop at the first live one.
        while self._entries:
            key, (expires, _) = next(iter(self._entries.items()))
            if expires > now:
                return
            del self._entries[key]

    def __len__(self) -> int:
        return len(self._entries)


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
        self._ended = _Expiring(max_entries)
        self._fields = _Expiring(max_entries)
        self._epoch = secrets.token_hex(8)  # a new process forgets every end-marker

    async def epoch(self, ttl_s: float) -> str:
        return self._epoch

    async def lookup(
        self, session: str, epoch: str, names: tuple[str, ...]
    ) -> dict[str, Any] | None:
        if epoch != self._epoch or self._ended.get(session) is True:
            return None
        fields: _Fields | None = self._fields.get(session)
        values = {} if fields is None else fields.values
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


class _Broker(Protocol):
    """What a ``QueuedSubscription`` needs of its broker: forget it on ``close``."""

    def _drop(self, subscription: Any, topics: tuple[str, ...]) -> None: ...


B = TypeVar("B", bound=_Broker)


class QueuedSubscription(Generic[B]):
    """A ``Subscription`` its broker feeds through a bounded queue (both brokers use it).

    The broker calls ``_deliver``; a full queue drops the message and logs it. ``ready``
    returns at once: a broker that must wait for a server to confirm overrides it.
    """

    __slots__ = ("_broker", "_queue", "_topics", "closed")

    def __init__(self, broker: B, topics: tuple[str, ...]) -> None:
        self._broker = broker
        self._topics = topics
        self._queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue(QUEUE_SIZE)
        self.closed = False

    async def ready(self) -> None:
        return None  # subscribed in the broker's ``subscribe`` already

    async def receive(self) -> tuple[str, Any]:
        return await self._queue.get()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._broker._drop(self, self._topics)

    def _deliver(self, topic: str, message: Any) -> None:
        try:
            self._queue.put_nowait((topic, message))
        except asyncio.QueueFull:
            log.warning("subscription to %s full (%d): message dropped", topic, QUEUE_SIZE)


Subscriber = QueuedSubscription["MemoryBroker"]


def _entry_number(entry_id: str) -> int:
    head = entry_id.partition("-")[0]
    return int(head) if head.isdigit() else 0


class MemoryInbox:
    """An ``Inbox`` in memory: a bounded queue that its broker fills."""

    __slots__ = ("_broker", "address", "queue")

    def __init__(self, broker: MemoryBroker, address: str) -> None:
        self._broker, self.address = broker, address
        self.queue: asyncio.Queue[Any] = asyncio.Queue(INBOX_SIZE)

    async def receive(self) -> Any:
        return await self.queue.get()

    def close(self) -> None:
        if self._broker._inboxes.get(self.address) is self:
            del self._broker._inboxes[self.address]


class MemoryBroker:
    """``Broker`` (and ``Inboxes``) in this process's memory."""

    def __init__(self) -> None:
        self._topics: dict[str, set[Subscriber]] = {}
        self._inboxes: dict[str, MemoryInbox] = {}
        self._changes: dict[str, Any] = {}
        self._version = 0
        self._logs = _Expiring(MAX_LOGS)
        self._entries = 0

    async def is_alive(self, address: str) -> bool:
        return address in self._inboxes

    async def append(self, key: str, entry: dict[str, str], maxlen: int, ttl_s: float) -> str:
        """Add ``entry`` to the log ``key`` (``EventLog``)."""
        entries: list[tuple[str, dict[str, str]]] = self._logs.get(key) or []
        self._entries += 1
        entry_id = f"{self._entries}-0"
        entries.append((entry_id, dict(entry)))
        del entries[:-maxlen]
        self._logs.put(key, entries, ttl_s)
        return entry_id

    async def read_after(self, key: str, after: str) -> list[tuple[str, dict[str, str]]]:
        """The entries of ``key`` after ``after`` (``EventLog``)."""
        entries: list[tuple[str, dict[str, str]]] = self._logs.get(key) or []
        since = _entry_number(after)
        return [(i, dict(e)) for i, e in entries if _entry_number(i) > since]

    async def last(self, key: str) -> str | None:
        """The id of the newest entry of ``key`` (``EventLog``)."""
        entries: list[tuple[str, dict[str, str]]] = self._logs.get(key) or []
        return entries[-1][0] if entries else None

    async def record_change(self, key: str, event: Any) -> int:
        """Keep ``event`` as the latest catalog change of ``key``; its version."""
        self._version += 1
        self._changes[key] = {**event, "version": self._version}
        return self._version

    async def changes(self) -> list[Any]:
        """The latest catalog change of every entry, oldest first."""
        return sorted(self._changes.values(), key=lambda event: int(event["version"]))

    def open_inbox(self, address: str) -> MemoryInbox:
        inbox = self._inboxes[address] = MemoryInbox(self, address)
        return inbox

    async def deliver(self, address: str, message: Any) -> bool:
        inbox = self._inboxes.get(address)
        if inbox is None:
            return False
        try:
            inbox.queue.put_nowait(message)
        except asyncio.QueueFull:
            raise InboxFull(f"inbox {address} is full ({INBOX_SIZE})") from None
        return True

    def subscribe(self, *topics: str) -> Subscriber:
        subscription = QueuedSubscription(self, topics)
        for topic in topics:
            self._topics.setdefault(topic, set()).add(subscription)
        return subscription

    async def publish(self, topic: str, message: Any) -> None:
        for subscription in tuple(self._topics.get(topic, ())):
            subscription._deliver(topic, message)

    async def aclose(self) -> None:
        """Close every open subscription (they receive nothing more)."""
        for subscribers in list(self._topics.values()):
            for subscription in list(subscribers):
                subscription.close()

    @property
    def topics(self) -> int:
        """How many topics have subscribers (tests check it returns to zero)."""
        return len(self._topics)

    def _drop(self, subscription: Subscriber, topics: tuple[str, ...]) -> None:
        for topic in topics:
            subscribers = self._topics.get(topic)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._topics[topic]


MAX_TASKS: Final = 10_000
"""How many task records ``MemoryTaskStore`` keeps at most by default."""


def _moved(record: dict[str, Any]) -> None:
    record["version"] = int(record.get("version") or 0) + 1


def _copy(record: Mapping[str, Any]) -> dict[str, Any]:
    return {**record, "inputRequests": dict(record.get("inputRequests") or {})}


MAX_WINDOWS: Final = 100_000
"""Most owners whose creation bucket ``MemoryTaskStore`` tracks (the oldest are forgotten)."""


class _Entry:
    __slots__ = ("answers", "expires", "lease", "owner", "record")

    def __init__(self, record: dict[str, Any], expires: float, lease: int, owner: str) -> None:
        self.record, self.expires, self.lease, self.owner = record, expires, lease, owner
        self.answers: dict[str, Any] = {}


class MemoryTaskStore:
    """``TaskStore`` in one process: a dict of entries that expire; not thread-safe.

    When it holds ``max_tasks`` records it drops expired ones, then the terminal records that
    ended first; a store full of live tasks refuses the new one (``TaskQuotaExceeded``
    ``max_tasks``): a live task is never evicted. The ``TaskQuota`` given to ``create`` is
    counted here, per record ``principal``.

    Args:
        max_tasks: how many records it keeps at most.
    """

    def __init__(self, *, max_tasks: int = MAX_TASKS) -> None:
        self._entries: dict[str, _Entry] = {}
        self._max = max_tasks
        self._working: dict[str | None, set[str]] = {}  # non-terminal task ids by principal
        self._live_count = 0
        self._ended: OrderedDict[str, None] = OrderedDict()  # terminal ids, first ended first
        self._made = MemoryBuckets(max_keys=MAX_WINDOWS)  # creations per owner (TaskQuota)

    def __len__(self) -> int:
        self._prune()
        return len(self._entries)

    def _live(self, task_id: str) -> _Entry | None:
        entry = self._entries.get(task_id)
        if entry is not None and entry.expires <= time.monotonic():
            self._drop(task_id)
            return None
        return entry

    def _drop(self, task_id: str) -> None:
        entry = self._entries.pop(task_id)
        self._ended.pop(task_id, None)
        self._unlive(task_id, entry)

    def _unlive(self, task_id: str, entry: _Entry) -> None:
        live = self._working.get(entry.record.get("principal"))
        if live is not None and task_id in live:
            live.discard(task_id)
            self._live_count -= 1
            if not live:
                del self._working[entry.record.get("principal")]

    def _prune(self) -> None:
        now = time.monotonic()
        for task_id in [k for k, e in self._entries.items() if e.expires <= now]:
            self._drop(task_id)

    def _admit(self, principal: str | None, quota: TaskQuota | None) -> None:
        """Refuse (``TaskQuotaExceeded``) a creation the quota or the store's room forbids."""
        if quota is not None:
            live = self._working.get(principal, ())
            if quota.live_per_owner and len(live) >= quota.live_per_owner:
                raise TaskQuotaExceeded("live_per_owner", 1.0)
            if quota.max_live and self._live_count >= quota.max_live:
                raise TaskQuotaExceeded("max_live", 1.0)
        if len(self._entries) >= self._max:
            while len(self._entries) >= self._max and self._ended:  # terminal records only
                self._drop(next(iter(self._ended)))
            if len(self._entries) >= self._max:
                self._prune()
            if len(self._entries) >= self._max:
                raise TaskQuotaExceeded("max_tasks", 1.0)
        if quota is not None and quota.created_per_window:
            burst = quota.created_per_window
            made = self._made.take_now(principal, burst / quota.window_s, burst)
            if not made.ok:
                raise TaskQuotaExceeded("created_per_window", made.wait_s)

    async def create(
        self,
        record: Mapping[str, Any],
        *,
        lease_ms: int,
        owner: str,
        quota: TaskQuota | None = None,
    ) -> None:
        principal = record.get("principal")
        self._admit(principal, quota)
        ttl_ms = record.get("ttlMs")
        expires = time.monotonic() + (ttl_ms / 1000 if isinstance(ttl_ms, int) else float("inf"))
        copy = dict(record)
        task_id = copy["taskId"]
        self._entries[task_id] = _Entry(copy, expires, now_ms() + lease_ms, owner)
        self._working.setdefault(principal, set()).add(task_id)
        self._live_count += 1

    async def get(self, task_id: str, *, lost: Mapping[str, Any]) -> dict[str, Any] | None:
        entry = self._live(task_id)
        if entry is None:
            return None
        if entry.record["status"] not in TERMINAL and entry.lease < now_ms():
            message = str(lost.get("message", "lease lost"))
            await self.finish(task_id, TaskEnd("failed", error=lost, message=message), iso_now())
        return _copy(entry.record)

    async def owner(self, task_id: str) -> str | None:
        entry = self._live(task_id)
        return None if entry is None else entry.owner

    async def ask(
        self, task_id: str, requests: Mapping[str, Any], updated_at: str
    ) -> dict[str, Any] | None:
        entry = self._live(task_id)
        if entry is None or entry.record["status"] in TERMINAL:
            return None
        record = entry.record
        record["inputRequests"] = {**(record.get("inputRequests") or {}), **requests}
        record["status"], record["lastUpdatedAt"] = "input_required", updated_at
        _moved(record)
        return _copy(record)

    async def answer(
        self, task_id: str, responses: Mapping[str, Any], updated_at: str
    ) -> dict[str, Any] | None:
        entry = self._live(task_id)
        if entry is None:
            return None
        record = entry.record
        outstanding: dict[str, Any] = record.get("inputRequests") or {}
        answered = [key for key in responses if key in outstanding]
        if record["status"] == "input_required" and answered:
            for key in answered:
                del outstanding[key]
                entry.answers[key] = responses[key]
            record["lastUpdatedAt"] = updated_at
            if not outstanding:
                record["status"] = "working"
            _moved(record)
        return _copy(record)

    async def take_answers(self, task_id: str, keys: Iterable[str]) -> dict[str, Any]:
        entry = self._live(task_id)
        if entry is None:
            return {}
        return {key: entry.answers.pop(key) for key in keys if key in entry.answers}

    async def note(self, task_id: str, message: str, updated_at: str) -> dict[str, Any] | None:
        entry = self._live(task_id)
        if entry is None or entry.record["status"] in TERMINAL:
            return None
        record = entry.record
        if record.get("statusMessage") == message:
            return None
        record["statusMessage"], record["lastUpdatedAt"] = message, updated_at
        _moved(record)
        return _copy(record)

    async def finish(self, task_id: str, end: TaskEnd, updated_at: str) -> dict[str, Any] | None:
        entry = self._live(task_id)
        if entry is None or entry.record["status"] in TERMINAL:
            return None
        record = entry.record
        record.pop("inputRequests", None)
        entry.answers.clear()
        self._unlive(task_id, entry)
        self._ended[task_id] = None
        record["status"], record["lastUpdatedAt"] = end.status, updated_at
        if end.result is not None:
            record["result"] = dict(end.result)
        if end.error is not None:
            record["error"] = dict(end.error)
        if end.message is not None:
            record["statusMessage"] = end.message
        _moved(record)
        return _copy(record)

    async def renew(self, task_id: str, lease_ms: int) -> str | None:
        entry = self._live(task_id)
        if entry is None:
            return None
        status: str = entry.record["status"]
        if status not in TERMINAL:
            entry.lease = now_ms() + lease_ms
        return status


class MemoryRecordStore:
    """``RecordStore`` in one process: an expiring, bounded map per kind (and its spent
    markers); the oldest records go first when a kind is full.

    Args:
        max_entries: the bound of each kind's records, and of its spent markers.
    """

    def __init__(self, *, max_entries: int = 10_000) -> None:
        self.max_entries = max_entries
        self._kinds: dict[str, _Expiring] = {}

    def _table(self, name: str) -> _Expiring:
        table = self._kinds.get(name)
        if table is None:
            table = self._kinds[name] = _Expiring(self.max_entries)
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
        table._prune(time.monotonic())
        if len(table) >= limit:
            return False
        table.put(key, True, ttl_s)
        return True

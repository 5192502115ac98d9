"""``MemoryTaskStore``: the Tasks extension's records in this process, the default for one.

A dict of entries that expire with their record's ``ttlMs``; bounded (``max_tasks``): a full
store drops expired records, then the terminal ones that ended first, and never a live one.
``TaskQuota`` is counted here per record ``principal``: live tasks per owner and in all, and
creations per owner over a window (``buckets.MemoryBuckets``, the arithmetic of every token
bucket). Records are kept and handed out as shallow copies. Runs on the server's event loop;
not thread-safe, and need not be. Imports ``protocol.tasks``, the ``storage`` protocols and
``storage.buckets``; nothing of ``memory``.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any, Final

from genmcp.protocol.tasks import iso_now
from genmcp.storage import TERMINAL, Lease, TaskEnd, TaskQuota, TaskQuotaExceeded, now_ms
from genmcp.storage.buckets import MemoryBuckets

__all__ = ["MAX_TASKS", "MAX_WINDOWS", "MemoryTaskStore"]

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
            share = quota.crowded_per_owner
            if share and quota.max_live and 2 * self._live_count >= quota.max_live:
                if len(live) >= share:  # crowded: the upper half goes a few to each owner
                    raise TaskQuotaExceeded("fair_share", 1.0)
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
        self, record: Mapping[str, Any], lease: Lease, quota: TaskQuota | None = None
    ) -> None:
        principal = record.get("principal")
        self._admit(principal, quota)
        ttl_ms = record.get("ttlMs")
        expires = time.monotonic() + (ttl_ms / 1000 if isinstance(ttl_ms, int) else float("inf"))
        copy = dict(record)
        task_id = copy["taskId"]
        self._entries[task_id] = _Entry(copy, expires, now_ms() + lease.ms, lease.owner)
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

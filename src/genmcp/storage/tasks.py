"""Where tasks live (the Tasks extension): the ``TaskStore`` protocol and its in-memory default.

A task record (``genmcp.protocol.tasks.new_record``) is created before its ``CreateTaskResult``
is sent, so a ``tasks/get`` that follows resolves. From then on every change is one atomic
transition of the store, whichever process makes it, and adds one to the record's
``version``; a transition returns the record as it left it (what ``notifications/tasks``
shows), None when it changed nothing:

- ``ask``: ``working`` -> ``input_required`` with outstanding requests (added by key);
- ``answer``: answers stored for outstanding keys only, each key leaves ``inputRequests``; when
  none is left the task is ``working`` again; the runner collects them with ``take_answers``;
- ``finish``: a non-terminal task ends as a ``TaskEnd`` says: ``completed`` (``result``),
  ``failed`` (``error``) or ``cancelled``; a terminal task never changes again (the first
  transition wins);
- ``renew``: the process running the task extends its lease. A task whose lease ran out is
  ``failed`` by the next ``get`` (any process): a dead process leaves no task ``working``.

Every record expires ``ttlMs`` after its creation, answers and all. ``MemoryTaskStore`` keeps
them in a dict for one process; ``genmcp.storage.redis_tasks.RedisTaskStore`` shares them.
Records go in and come out as JSON-able dicts. Imports only ``genmcp.protocol.tasks``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

from genmcp.protocol.tasks import iso_now

__all__ = ["MemoryTaskStore", "TaskEnd", "TaskOptions", "TaskStore", "now_ms"]

_TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
MAX_TASKS: Final = 100_000


@dataclass(frozen=True, slots=True)
class TaskOptions:
    """How a Suite runs tasks (``Suite(task_options=...)``).

    Attributes:
        ttl_ms: how long a record lives after its creation (its ``ttlMs``); default one hour.
        lease_ms: how long a task stays ``working`` once the process running it stopped
            renewing its lease (it then reads as ``failed``); renewed every third of it.
        poll_interval_ms: the ``pollIntervalMs`` suggested to clients.
        max_rounds: how many input rounds (``InputRequired``) one task may take.
    """

    ttl_ms: int = 3_600_000
    lease_ms: int = 6_000
    poll_interval_ms: int = 1_000
    max_rounds: int = 64

    def __post_init__(self) -> None:
        if self.ttl_ms < 1 or self.lease_ms < 30 or self.poll_interval_ms < 1:
            raise ValueError("tasks need ttl_ms >= 1, lease_ms >= 30 and poll_interval_ms >= 1")
        if self.max_rounds < 1:
            raise ValueError("tasks need max_rounds >= 1")


@dataclass(frozen=True, slots=True)
class TaskEnd:
    """How a task ends (``TaskStore.finish``): its terminal status and what its record gains.

    Attributes:
        status: ``"completed"``, ``"failed"`` or ``"cancelled"``.
        result: the ``CallToolResult`` of a completed task (the record's ``result``).
        error: the JSON-RPC error of a failed task (the record's ``error``).
        message: the record's ``statusMessage``.
    """

    status: str
    result: Mapping[str, Any] | None = None
    error: Mapping[str, Any] | None = None
    message: str | None = None

    def __post_init__(self) -> None:
        if self.status not in _TERMINAL:
            raise ValueError(f"a task ends completed, failed or cancelled, not {self.status!r}")


def now_ms() -> int:
    """Wall-clock time in whole milliseconds (leases are compared across processes)."""
    return int(time.time() * 1000)


@runtime_checkable
class TaskStore(Protocol):
    """Task records, their outstanding input and their leases (see the module docstring)."""

    async def create(self, record: Mapping[str, Any], *, lease_ms: int, owner: str) -> None:
        """Store a new ``working`` record, leased to ``owner`` for ``lease_ms``."""
        ...

    async def get(self, task_id: str, *, lost: Mapping[str, Any]) -> dict[str, Any] | None:
        """The record (None when unknown or expired); a non-terminal record whose lease ran
        out becomes ``failed`` with the error ``lost`` first."""
        ...

    async def owner(self, task_id: str) -> str | None:
        """The process token that runs the task (None when unknown)."""
        ...

    async def ask(
        self, task_id: str, requests: Mapping[str, Any], updated_at: str
    ) -> dict[str, Any] | None:
        """Add outstanding input requests: the record, now ``input_required``; None (nothing
        changed) unless the task is known and non-terminal."""
        ...

    async def answer(
        self, task_id: str, responses: Mapping[str, Any], updated_at: str
    ) -> dict[str, Any] | None:
        """Keep the responses to outstanding keys (others are ignored): the record after
        (``working`` once none is outstanding); None if unknown."""
        ...

    async def take_answers(self, task_id: str, keys: Iterable[str]) -> dict[str, Any]:
        """Remove and return the stored answers among ``keys``."""
        ...

    async def finish(self, task_id: str, end: TaskEnd, updated_at: str) -> dict[str, Any] | None:
        """End a non-terminal task as ``end`` says: the record after; None if the task was
        unknown or terminal already."""
        ...

    async def renew(self, task_id: str, lease_ms: int) -> str | None:
        """Extend a non-terminal task's lease; its status (None when it is gone)."""
        ...


def _moved(record: dict[str, Any]) -> None:
    record["version"] = int(record.get("version") or 0) + 1


def _copy(record: Mapping[str, Any]) -> dict[str, Any]:
    return {**record, "inputRequests": dict(record.get("inputRequests") or {})}


class _Entry:
    __slots__ = ("answers", "expires", "lease", "owner", "record")

    def __init__(self, record: dict[str, Any], expires: float, lease: int, owner: str) -> None:
        self.record, self.expires, self.lease, self.owner = record, expires, lease, owner
        self.answers: dict[str, Any] = {}


class MemoryTaskStore:
    """``TaskStore`` in one process: a dict of entries that expire; not thread-safe.

    Args:
        max_tasks: how many records it keeps at most (the oldest go first).
    """

    def __init__(self, *, max_tasks: int = MAX_TASKS) -> None:
        self._entries: dict[str, _Entry] = {}
        self._max = max_tasks

    def __len__(self) -> int:
        self._prune()
        return len(self._entries)

    def _live(self, task_id: str) -> _Entry | None:
        entry = self._entries.get(task_id)
        if entry is not None and entry.expires <= time.monotonic():
            del self._entries[task_id]
            return None
        return entry

    def _prune(self) -> None:
        now = time.monotonic()
        for task_id in [k for k, e in self._entries.items() if e.expires <= now]:
            del self._entries[task_id]

    async def create(self, record: Mapping[str, Any], *, lease_ms: int, owner: str) -> None:
        if len(self._entries) >= self._max:
            self._prune()
            while len(self._entries) >= self._max:  # dicts keep insertion order: oldest first
                del self._entries[next(iter(self._entries))]
        ttl_ms = record.get("ttlMs")
        expires = time.monotonic() + (ttl_ms / 1000 if isinstance(ttl_ms, int) else float("inf"))
        copy = dict(record)
        self._entries[copy["taskId"]] = _Entry(copy, expires, now_ms() + lease_ms, owner)

    async def get(self, task_id: str, *, lost: Mapping[str, Any]) -> dict[str, Any] | None:
        entry = self._live(task_id)
        if entry is None:
            return None
        if entry.record["status"] not in _TERMINAL and entry.lease < now_ms():
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
        if entry is None or entry.record["status"] in _TERMINAL:
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

    async def finish(self, task_id: str, end: TaskEnd, updated_at: str) -> dict[str, Any] | None:
        entry = self._live(task_id)
        if entry is None or entry.record["status"] in _TERMINAL:
            return None
        record = entry.record
        record.pop("inputRequests", None)
        entry.answers.clear()
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
        if status not in _TERMINAL:
            entry.lease = now_ms() + lease_ms
        return status

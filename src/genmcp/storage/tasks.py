"""The Tasks extension's store: ``TaskStore`` and the values it takes and gives.

``TaskOptions`` says how a Suite runs tasks, ``TaskQuota`` how many a store takes (refused
with ``TaskQuotaExceeded``), ``Lease`` who runs one and how long it holds, ``TaskEnd`` how
it ends; ``now_ms`` is the clock leases are compared on across processes. Implemented by
``memory.tasks`` and ``redis.tasks``; the service that runs tasks is ``genmcp.tasks``.
Imports nothing from genmcp.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

__all__ = [
    "TERMINAL",
    "Lease",
    "TaskEnd",
    "TaskOptions",
    "TaskQuota",
    "TaskQuotaExceeded",
    "TaskStore",
    "now_ms",
]

TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
"""The statuses a task never leaves."""


@dataclass(frozen=True, slots=True)
class TaskQuota:
    """How many tasks a store takes (``TaskOptions.quota``): enforced by ``TaskStore.create``,
    atomically, and never by evicting a live task of anyone.

    The owner is the record's ``principal`` (``storage.owner``). Anonymous callers (None, a
    server without auth) are no owner: the per-owner limits do not apply to them (distinct
    clients would share one budget), ``max_live`` does. A value of 0 turns that limit off.

    Attributes:
        live_per_owner: non-terminal tasks one owner may have at once.
        created_per_window: tasks one owner may create at once, then per ``window_s``: a
            token bucket of that many refilled over ``window_s`` (``storage.buckets``, the
            rate limits' arithmetic).
        window_s: the seconds that bucket takes to refill.
        max_live: non-terminal tasks of all owners at once (per store).
        crowded_per_owner: the fair share: once half of ``max_live`` is taken, an owner
            holding this many live tasks gets no more (``"fair_share"``) until the store is
            below half again. The upper half of ``max_live`` thus goes ``crowded_per_owner``
            at most to each owner: filling it takes at least
            ``max_live / 2 / crowded_per_owner`` owners (1,000 with the defaults, where
            ``max_live / live_per_owner`` = 63 filled all of it before). 0: no fair share.
    """

    live_per_owner: int = 32
    created_per_window: int = 256
    window_s: float = 60.0
    max_live: int = 2_000
    crowded_per_owner: int = 1

    def __post_init__(self) -> None:
        counts = (
            self.live_per_owner,
            self.created_per_window,
            self.max_live,
            self.crowded_per_owner,
        )
        if min(counts) < 0 or not self.window_s > 0:
            raise ValueError("a TaskQuota needs counts >= 0 (0: no limit) and window_s > 0")


class TaskQuotaExceeded(Exception):
    """``TaskStore.create`` refused a task: a limit of its ``TaskQuota`` (or the store's room).

    Attributes:
        limit: ``"live_per_owner"``, ``"created_per_window"``, ``"max_live"``,
            ``"fair_share"`` (``crowded_per_owner``) or ``"max_tasks"`` (the store holds only
            live tasks and is full).
        retry_after_s: when trying again may succeed (an estimate).
    """

    def __init__(self, limit: str, retry_after_s: float) -> None:
        super().__init__(f"task quota {limit} reached")
        self.limit, self.retry_after_s = limit, retry_after_s


@dataclass(frozen=True, slots=True)
class TaskOptions:
    """How a Suite runs tasks (``Suite(task_options=...)``).

    Attributes:
        ttl_ms: how long a record lives after its creation (its ``ttlMs``); default one hour.
        lease_ms: how long a task stays ``working`` once the process running it stopped
            renewing its lease (it then reads as ``failed``); renewed every third of it.
        poll_interval_ms: the ``pollIntervalMs`` suggested to clients.
        max_rounds: how many input rounds (``InputRequired``) one task may take.
        quota: how many tasks each owner and all of them may have (:class:`TaskQuota`).
        sep3304: refuse a creation over the quota in SEP-3304's (**Draft**, "Standardize
            Rate-Limiting Errors") shape, as ``RateLimit(sep3304=True)`` does: ``-32023``
            with ``retryAfterMs``, ``limit`` (the count of the limit reached) and
            ``remaining`` 0, HTTP 429 in both eras with ``Retry-After`` and
            ``RateLimit-Limit`` / ``RateLimit-Remaining``. Off by default: ``task_quota``
            (-32029, ``data.retryAfter`` in seconds, ``data.limit`` the limit's name).
    """

    ttl_ms: int = 3_600_000
    lease_ms: int = 6_000
    poll_interval_ms: int = 1_000
    max_rounds: int = 64
    quota: TaskQuota = TaskQuota()
    sep3304: bool = False

    def __post_init__(self) -> None:
        if self.ttl_ms < 1 or self.lease_ms < 30 or self.poll_interval_ms < 1:
            raise ValueError("tasks need ttl_ms >= 1, lease_ms >= 30 and poll_interval_ms >= 1")
        if self.max_rounds < 1:
            raise ValueError("tasks need max_rounds >= 1")


@dataclass(frozen=True, slots=True)
class Lease:
    """Who runs a task and how long that holds unrenewed (``TaskStore.create``): made once by
    the process that runs tasks, handed to every creation.

    Attributes:
        owner: the process's token (``TaskStore.owner`` answers it).
        ms: how long the task stays ``working`` unless ``owner`` renews it (``TaskStore.renew``);
            then it reads as ``failed``.
    """

    owner: str
    ms: int


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
        if self.status not in TERMINAL:
            raise ValueError(f"a task ends completed, failed or cancelled, not {self.status!r}")


def now_ms() -> int:
    """Wall-clock time in whole milliseconds (leases are compared across processes)."""
    return int(time.time() * 1000)


@runtime_checkable
class TaskStore(Protocol):
    """Task records, their outstanding input and their leases (the Tasks extension).

    A task record (``genmcp.protocol.tasks.new_record``) is created before its ``CreateTaskResult``
    is sent, so a ``tasks/get`` that follows resolves. From then on every change is one atomic
    transition of the store, whichever process makes it, and adds one to the record's
    ``version``; a transition returns the record as it left it (what ``notifications/tasks``
    shows), None when it changed nothing:

    - ``ask``: ``working`` -> ``input_required`` with outstanding requests (added by key);
    - ``answer``: answers stored for outstanding keys only, each key leaves ``inputRequests``; when
      none is left the task is ``working`` again; the runner collects them with ``take_answers``;
    - ``note``: a non-terminal task's ``statusMessage`` changes (what it is doing now);
    - ``finish``: a non-terminal task ends as a ``TaskEnd`` says: ``completed`` (``result``),
      ``failed`` (``error``) or ``cancelled``; a terminal task never changes again (the first
      transition wins);
    - ``renew``: the process running the task extends its lease. A task whose lease ran out is
      ``failed`` by the next ``get`` (any process): a dead process leaves no task ``working``.

    Every record expires ``ttlMs`` after its creation, answers and all. ``create`` enforces a
    ``TaskQuota`` atomically (per owner live and per window, all owners live).
    ``memory.MemoryTaskStore`` keeps them in a dict for one process;
    ``redis.RedisTaskStore`` shares them. Records go in and come out as JSON-able dicts.
    """

    async def create(
        self, record: Mapping[str, Any], lease: Lease, quota: TaskQuota | None = None
    ) -> None:
        """Store a new ``working`` record under ``lease``; :class:`TaskQuotaExceeded` when
        ``quota`` (counted per record ``principal``) or the store's room says no. Only
        terminal records are ever evicted to make room."""
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

    async def note(self, task_id: str, message: str, updated_at: str) -> dict[str, Any] | None:
        """Set a non-terminal task's ``statusMessage``: the record after; None when nothing
        changed (unknown, terminal, or that message already)."""
        ...

    async def finish(self, task_id: str, end: TaskEnd, updated_at: str) -> dict[str, Any] | None:
        """End a non-terminal task as ``end`` says: the record after; None if the task was
        unknown or terminal already."""
        ...

    async def renew(self, task_id: str, lease_ms: int) -> str | None:
        """Extend a non-terminal task's lease; its status (None when it is gone)."""
        ...

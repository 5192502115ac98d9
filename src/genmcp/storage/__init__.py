"""What genmcp shares between requests, behind two small interfaces (DESIGN §7).

* ``SessionRegistry``: the little state a legacy session has beyond its sealed
  ``Mcp-Session-Id`` (which already holds the negotiated version, capabilities and
  clientInfo): whether it was ended with ``DELETE``, the level ``logging/setLevel`` chose
  (a value field), the resources it subscribed to (a set field, updated member by member so
  that two processes subscribing at once lose nothing). Entries expire with the session.
* ``Broker``: publish/subscribe. Whatever waits for something from outside its own request
  waits here, never on a module-level dict: a client's answer to a server-initiated request,
  a ``notifications/cancelled`` for an in-flight call, the end of a session, change
  notifications and messages for a session's GET stream, messages posted to a worker by id.
  In one process it is a dict of queues (``memory.MemoryBroker``); a shared implementation
  (``redis.RedisBroker``) makes the same code work across processes.

Values and messages are JSON values (dicts, lists, strings, numbers, booleans, None): a
shared implementation stores and carries them as JSON, and hands back equal copies.

* ``TaskStore``: the Tasks extension's records, their outstanding input and their leases
  (``TaskOptions`` says how a Suite runs tasks, ``TaskEnd`` how one ends); see the class.

* ``RecordStore``: expiring JSON records by kind and key, some used once (taking one leaves
  a spent marker, so a replay is recognised): what an OAuth authorization server
  (``genmcp.auth.front``) keeps between the steps of a grant.

* ``StateStore``: small named JSON values per owner (a tenant's principal), bounded in
  count and expiring together: the store behind ``genmcp.UserStates`` (per-user state that
  outlives a stateless call).
* ``ProofReplays``: the keys seen once in a window (each DPoP proof's ``jti``): a second
  sighting, in any process sharing the store, is a replay.

* ``Stores``: one backend's broker, session registry, task store and rate-limit buckets as
  one bundle (genmcp's two bundles carry their ``ProofReplays`` too, as ``replays``), closed
  together: what ``mcp_router(stores=...)`` wires in (``memory.MemoryStores``,
  ``redis.RedisStores``, or your own backend's).

* ``Inboxes`` (optional, offered by both brokers): one inbox per Suite (per process), for
  mail to a worker. A post goes to the one inbox its worker id names, never to every process;
  the inbox is bounded (``InboxFull``); a post to an address whose owner is not alive (no
  heartbeat) is refused (``deliver`` returns False).

The in-memory defaults are in ``genmcp.storage.memory``, the Redis ones in
``genmcp.storage.redis`` (``pip install 'genmcp[redis]'``). Imports nothing from genmcp.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

if TYPE_CHECKING:
    from genmcp.storage.buckets import Buckets

__all__ = [
    "Broker",
    "EventLog",
    "Inbox",
    "InboxFull",
    "Inboxes",
    "ProofReplays",
    "RecordStore",
    "SessionRegistry",
    "StateStore",
    "Stores",
    "Subscription",
    "TaskEnd",
    "TaskOptions",
    "TaskQuota",
    "TaskQuotaExceeded",
    "TaskStore",
    "durable",
    "now_ms",
]

TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
"""The statuses a task never leaves."""
DURABLE_TOPICS: Final = ("genmcp.changes", "genmcp.task/")
"""What names a durable topic: the change notifications (``sync.listen.CHANGES`` and the
change log's ``LOGGED``) and the task status changes (``tasks.watch.topic``), also under a
tenant's prefix (``storage.scoped``)."""


def durable(topic: str) -> bool:
    """Whether ``topic`` carries notifications every open stream must get, at least once
    (a shared broker logs them; see ``Broker``)."""
    return any(mark in topic for mark in DURABLE_TOPICS)


@runtime_checkable
class SessionRegistry(Protocol):
    """Per-session state of legacy (2025) sessions, keyed by the session's key.

    Fields are small JSON values (``"log_level"``...) or sets of strings (``"resources"``)
    that expire with the session: every write sets the expiry of all the session's fields
    to its ``ttl_s``. Ending a session drops them. Value and set fields live apart: ``get``
    never sees a set, ``members`` never a value.
    """

    async def epoch(self, ttl_s: float) -> str:
        """The registry's epoch, created when it has none; kept at least ``ttl_s`` more.

        Session ids carry the epoch they began in. A registry that lost its data (a Redis
        restarted empty, a process restarted with the in-memory one) has a new epoch, so
        every older session is refused: its end-marker may have been lost with the rest.
        """
        ...

    async def lookup(
        self, session: str, epoch: str, names: tuple[str, ...]
    ) -> dict[str, Any] | None:
        """The value fields ``names`` of a live ``session``, in one round trip.

        None when ``session`` was ended, or ``epoch`` is not the registry's epoch (the
        session began before the registry lost its data). Missing fields are None.
        """
        ...

    async def end(self, session: str, ttl_s: float) -> None:
        """Mark ``session`` ended (``DELETE``) for ``ttl_s`` seconds; drop its fields."""
        ...

    async def is_ended(self, session: str) -> bool:
        """True when ``session`` was ended and its mark has not expired."""
        ...

    async def put(self, session: str, name: str, value: Any, ttl_s: float) -> None:
        """Set the field ``name`` of ``session`` for ``ttl_s`` seconds."""
        ...

    async def get(self, session: str, name: str) -> Any:
        """The field ``name`` of ``session``, or None."""
        ...

    async def add(self, session: str, name: str, member: str, ttl_s: float) -> None:
        """Add ``member`` to the set field ``name`` of ``session`` (atomically)."""
        ...

    async def discard(self, session: str, name: str, member: str, ttl_s: float) -> None:
        """Remove ``member`` from the set field ``name`` of ``session`` (atomically)."""
        ...

    async def members(self, session: str, name: str) -> frozenset[str]:
        """The members of the set field ``name`` of ``session`` (empty when none)."""
        ...


@runtime_checkable
class Subscription(Protocol):
    """Messages published to the topics one subscriber asked for, in order."""

    async def ready(self) -> None:
        """Return once messages published from now on reach this subscription.

        In one process that is at once; a shared broker waits for its server to confirm the
        subscription: a server that is down or hung raises ``guard.StorageUnavailable``
        within the broker's deadline; one that answers but cannot confirm in time is logged,
        and ``ready`` returns. Await it
        before you make the thing happen that you wait for, when that thing may happen in
        another process.
        """
        ...

    async def receive(self) -> tuple[str, Any]:
        """Wait for the next ``(topic, message)``."""
        ...

    def close(self) -> None:
        """Stop receiving; a receiver waiting in ``receive`` is left to its own cancellation."""
        ...


@runtime_checkable
class Broker(Protocol):
    """Publish/subscribe between requests (and, with a shared implementation, processes).

    A message reaches the subscriptions open on its topic when it is published; with none
    it is dropped. Subscribe (and await ``ready``) before you make the thing happen that you
    wait for. Delivery is at most once: a shared broker that loses its connection drops what
    is published meanwhile; except on a :func:`durable` topic, where a shared broker logs
    each message before ``publish`` returns and every process reads the log from where it
    left off (``redis.notices``): a message whose ``publish`` returned reaches every
    subscription open then, once, across a reconnect or a failover.
    """

    def subscribe(self, *topics: str) -> Subscription:
        """Start receiving the messages published to ``topics``."""
        ...

    async def publish(self, topic: str, message: Any) -> None:
        """Deliver ``message`` to the current subscribers of ``topic``."""
        ...

    async def start(self) -> None:
        """At server start (``Suite.start``): the broker's own checks of its store (a Redis
        that evicts keys is refused); nothing to do in one process."""
        ...


class InboxFull(Exception):
    """The target inbox holds its maximum of undelivered messages: retry later."""


@runtime_checkable
class Inbox(Protocol):
    """The messages delivered to one address, in order; its owner is alive while it is open."""

    async def receive(self) -> Any:
        """Wait for the next message."""
        ...

    def close(self) -> None:
        """Stop receiving; the address is no longer alive (posts to it are refused)."""
        ...


@runtime_checkable
class Inboxes(Protocol):
    """Targeted, bounded, lossless delivery to an address (one Suite, one process).

    Lossless while the owner lives: a delivered message stays queued until its owner reads
    it, also across reconnects. A message for an owner that died is lost with it.
    """

    def open_inbox(self, address: str) -> Inbox:
        """Start receiving what is delivered to ``address`` (and keep it alive)."""
        ...

    async def deliver(self, address: str, message: Any) -> bool:
        """Queue ``message`` for ``address``: False when no live owner has it open.

        Raises ``InboxFull`` when its inbox is full.
        """
        ...

    async def is_alive(self, address: str) -> bool:
        """Whether a live owner has ``address`` open (its heartbeat is fresh)."""
        ...


@runtime_checkable
class EventLog(Protocol):
    """Bounded, expiring logs of stream events (legacy SSE resumption), by key.

    Entry ids increase within a log and are visible ASCII. A log keeps its last ``maxlen``
    entries (about) and expires ``ttl_s`` after its last append.
    """

    async def append(self, key: str, entry: dict[str, str], maxlen: int, ttl_s: float) -> str:
        """Add ``entry`` (string fields) to the log ``key``; its id."""
        ...

    async def read_after(self, key: str, after: str) -> list[tuple[str, dict[str, str]]]:
        """The entries of ``key`` after the id ``after`` (all with ``"0"``), oldest first."""
        ...

    async def last(self, key: str) -> str | None:
        """The id of the newest entry of ``key`` (None when it has none)."""
        ...


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
        self,
        record: Mapping[str, Any],
        *,
        lease_ms: int,
        owner: str,
        quota: TaskQuota | None = None,
    ) -> None:
        """Store a new ``working`` record, leased to ``owner`` (the process) for ``lease_ms``;
        :class:`TaskQuotaExceeded` when ``quota`` (counted per record ``principal``) or the
        store's room says no. Only terminal records are ever evicted to make room."""
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


@runtime_checkable
class RecordStore(Protocol):
    """Expiring JSON records, ``kind`` (a short name) and ``key`` (an unguessable token).

    ``put`` stores a record with a ``tag`` (e.g. the grant it belongs to); ``take`` removes
    it atomically, once: the first caller gets ``(value, None)`` and leaves a spent marker
    holding the tag for ``spent_ttl_s``; a later caller gets ``(None, tag)`` (a replay, whose
    grant can then be revoked), or ``(None, None)`` when there never was such a record.
    ``admit`` reserves one of at most ``limit`` live places of ``kind`` for ``ttl_s`` (the
    bound of dynamic registrations across processes): False when they are all taken.
    """

    async def put(
        self, kind: str, key: str, value: Any, ttl_s: float, *, tag: str = ""
    ) -> None:
        """Store ``value`` under ``key`` for ``ttl_s`` (replacing any record there)."""
        ...

    async def get(self, kind: str, key: str) -> Any:
        """The live record ``key``, or None."""
        ...

    async def take(
        self, kind: str, key: str, spent_ttl_s: float = 0.0
    ) -> tuple[Any, str | None]:
        """Remove and return the record ``key`` once; see the class."""
        ...

    async def admit(self, kind: str, key: str, ttl_s: float, limit: int) -> bool:
        """Reserve a place of ``kind`` for ``key`` during ``ttl_s``, if fewer than ``limit``
        are live."""
        ...


@runtime_checkable
class StateStore(Protocol):
    """Named values per ``owner`` (an opaque key: ``genmcp.user_state`` makes one per tenant
    and principal). Values are JSON text, stored and handed back as they are. An owner's
    values expire together, ``ttl_s`` after the last write of any of them; an owner holds at
    most ``max_names`` names.
    """

    async def get(self, owner: str, name: str) -> str | None:
        """The value ``name`` of ``owner``, or None."""
        ...

    async def put(self, owner: str, name: str, value: str, ttl_s: float, max_names: int) -> bool:
        """Store ``value``; False (nothing stored) when ``owner`` already holds ``max_names``
        other names."""
        ...

    async def delete(self, owner: str, name: str) -> bool:
        """Remove ``name``; whether it was there."""
        ...

    async def names(self, owner: str) -> list[str]:
        """The names ``owner`` holds, sorted."""
        ...

    async def clear(self, owner: str) -> None:
        """Remove every value of ``owner``."""
        ...


@runtime_checkable
class ProofReplays(Protocol):
    """Keys seen once: ``first`` records ``key`` for ``ttl_s`` atomically, and says whether it
    was new. A DPoP resource keeps each proof's ``jti`` here for as long as the proof's
    ``iat`` would be accepted, so a proof shown twice (to any process sharing the store) is
    refused the second time. A store that cannot answer raises ``StorageUnavailable``: a
    proof is never accepted unchecked.
    """

    async def first(self, key: str, ttl_s: float) -> bool:
        """True when ``key`` was not seen in its ``ttl_s`` (it is now); False: a replay."""
        ...


@runtime_checkable
class Stores(Protocol):
    """One storage backend's parts as a bundle: what ``mcp_router(stores=...)`` wires in.

    The router gives ``broker`` and ``tasks`` to the Suite it builds, ``registry`` to its
    ``LegacyServer``, and ``buckets`` to every ``RateLimit`` of ``middleware=`` given no
    store of its own. ``aclose`` releases the whole bundle (connections, background tasks);
    whoever built the bundle calls it, after the servers using it stopped.

    ``memory.MemoryStores`` is the in-process bundle (the parts a Suite, a LegacyServer and
    a RateLimit make for themselves when given none), ``redis.RedisStores`` the Redis one.
    Another backend implements the four interfaces and bundles them the same way: a
    dataclass with these four fields and an ``aclose`` is enough. The parts of one bundle
    should share one store (and its connection) so that the processes given equal bundles
    act as one server. A bundle may also carry a ``cache`` (a ``genmcp.client.cache``
    ``CacheStore``, as ``RedisStores`` does): the router's remote mounts left at their
    default cache keep their upstreams' answers there.
    """

    @property
    def broker(self) -> Broker:
        """Publish/subscribe, worker mail, the shared catalog (the Suite's)."""
        ...

    @property
    def registry(self) -> SessionRegistry:
        """Legacy (2025) sessions' state (the LegacyServer's)."""
        ...

    @property
    def tasks(self) -> TaskStore:
        """The Tasks extension's records (the Suite's)."""
        ...

    @property
    def buckets(self) -> Buckets:
        """The token buckets of rate limits given no store of their own."""
        ...

    async def aclose(self) -> None:
        """Release what the bundle holds (its parts, then their shared connection)."""
        ...

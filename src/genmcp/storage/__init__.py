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
  (``TaskOptions`` says how a Suite runs tasks, ``Lease`` who runs one, ``TaskEnd`` how one
  ends); see the class.

* ``RecordStore``: expiring JSON records by kind and key, some used once (taking one leaves
  a spent marker, so a replay is recognised): what an OAuth authorization server
  (``genmcp.auth.front``) keeps between the steps of a grant.

* ``StateStore``: small named JSON values per owner (a tenant's principal), bounded in
  count and expiring together: the store behind ``genmcp.UserStates`` (per-user state that
  outlives a stateless call).
* ``ProofReplays``: the keys seen once in a window (each DPoP proof's ``jti``): a second
  sighting, in any process sharing the store, is a replay.

* ``Stores``: one backend's broker, session registry, task store and rate-limit buckets as
  one bundle, closed together: what ``mcp_router(stores=...)`` wires in
  (``memory.MemoryStores``, ``redis.RedisStores``, or your own backend's). Its optional
  parts have protocols of their own: ``WithReplays`` (``replays``, a ``ProofReplays``: both
  of genmcp's bundles) and ``WithCache`` (``cache``, a response cache: ``RedisStores``).

* ``Inboxes`` (optional, offered by both brokers): one inbox per Suite (per process), for
  mail to a worker. A post goes to the one inbox its worker id names, never to every process;
  the inbox is bounded (``InboxFull``); a post to an address whose owner is not alive (no
  heartbeat) is refused (``deliver`` returns False).

Each contract has its module, re-exported here: ``storage.sessions`` (``SessionRegistry``),
``storage.messaging`` (``Broker``, ``Subscription``, ``Inboxes``, ``EventLog``),
``storage.tasks`` (``TaskStore`` and its values), ``storage.records`` (``RecordStore``,
``ProofReplays``), ``storage.states`` (``StateStore``), ``storage.bundle`` (``Stores``,
``WithReplays``, ``WithCache``).
The in-memory defaults are in ``genmcp.storage.memory``, the Redis ones in
``genmcp.storage.redis`` (``pip install 'genmcp[redis]'``). Imports nothing from genmcp
outside ``storage``.
"""

from __future__ import annotations

from genmcp.storage.bundle import Stores, WithCache, WithReplays
from genmcp.storage.messaging import DURABLE_TOPICS as DURABLE_TOPICS
from genmcp.storage.messaging import (
    Broker,
    EventLog,
    Inbox,
    Inboxes,
    InboxFull,
    Subscription,
    durable,
)
from genmcp.storage.records import ProofReplays, RecordStore
from genmcp.storage.sessions import SessionRegistry
from genmcp.storage.states import StateStore
from genmcp.storage.tasks import TERMINAL as TERMINAL
from genmcp.storage.tasks import (
    Lease,
    TaskEnd,
    TaskOptions,
    TaskQuota,
    TaskQuotaExceeded,
    TaskStore,
    now_ms,
)

__all__ = [
    "Broker",
    "EventLog",
    "Inbox",
    "InboxFull",
    "Inboxes",
    "Lease",
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
    "WithCache",
    "WithReplays",
    "durable",
    "now_ms",
]

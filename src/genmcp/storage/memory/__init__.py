"""In-process implementations of ``genmcp.storage``: the defaults for one process.

The parts:

- ``memory.registry``: ``MemorySessionRegistry`` (a legacy session's state; capped, expiring);
- ``memory.broker``: ``MemoryBroker`` (pub/sub, ``Inboxes``, event logs, catalog changes),
  ``MemoryInbox``, and ``QueuedSubscription`` (a bounded queue per subscriber: both brokers);
- ``memory.tasks``: ``MemoryTaskStore`` (the Tasks extension's records, bounded, expiring);
- ``memory.records``: ``MemoryRecordStore`` (an OAuth authorization server's records);
- ``memory.replays``: ``MemoryProofReplays`` (the DPoP proofs seen; never forgets a live one);
- ``memory.stores``: ``MemoryStores``, the broker, registry and task store above and
  ``MemoryBuckets`` as one ``Stores`` bundle (``mcp_router(stores=MemoryStores())``);
- ``memory.expiring``: ``Expiring``, the bounded expiring map the registry, the broker's
  event logs and the record store keep their entries in.

Values and messages are kept and handed over as they are (no JSON copy): don't change them
after. All run on the event loop of the server; they are not thread-safe, and need not be.
Imports its own modules, ``genmcp.storage``, ``storage.buckets`` and ``storage.guard`` only.
"""

from __future__ import annotations

from genmcp.storage.memory.broker import INBOX_SIZE, MemoryBroker, MemoryInbox, QueuedSubscription
from genmcp.storage.memory.broker import MAX_LOGS as MAX_LOGS
from genmcp.storage.memory.broker import QUEUE_SIZE as QUEUE_SIZE
from genmcp.storage.memory.records import MemoryRecordStore
from genmcp.storage.memory.registry import MAX_ENTRIES as MAX_ENTRIES
from genmcp.storage.memory.registry import MemorySessionRegistry
from genmcp.storage.memory.replays import MemoryProofReplays
from genmcp.storage.memory.states import MemoryStateStore
from genmcp.storage.memory.stores import MemoryStores
from genmcp.storage.memory.tasks import MAX_TASKS as MAX_TASKS
from genmcp.storage.memory.tasks import MAX_WINDOWS as MAX_WINDOWS
from genmcp.storage.memory.tasks import MemoryTaskStore

__all__ = [
    "INBOX_SIZE",
    "MemoryBroker",
    "MemoryInbox",
    "MemoryProofReplays",
    "MemoryRecordStore",
    "MemorySessionRegistry",
    "MemoryStateStore",
    "MemoryStores",
    "MemoryTaskStore",
    "QueuedSubscription",
]

"""Redis implementations of ``genmcp.storage``: what several processes of one app share.

``pip install 'genmcp[redis]'``. The parts:

- ``redis.broker``: ``RedisBroker`` (pub/sub over one connection, and ``Inboxes``);
- ``redis.registry``: ``RedisSessionRegistry`` (a legacy session's state, one round trip);
- ``redis.inbox``: bounded, lossless mail to one Suite's address;
- ``redis.tasks``: ``RedisTaskStore`` (the Tasks extension's records, leases);
- ``redis.buckets``: ``RedisBuckets`` (token buckets every process takes from: rate limits);
- ``redis.records``: ``RedisRecordStore`` (an OAuth authorization server's records);
- ``redis.cache``: ``RedisCacheStore`` (clients' response caches shared by processes);
- ``redis.replays``: ``RedisProofReplays`` (the DPoP proofs any process has seen);
- ``redis.stores``: ``RedisStores`` (broker, registry, task store, buckets on one client:
  ``mcp_router(stores=RedisStores.from_url(url))``);
- ``redis.part``: ``RedisPart``, what every store has (a client it borrows or owns);
- ``redis.options``: ``RedisOptions`` (how genmcp builds its clients: timeouts, retries);
- ``redis.batch``: Lua scripts run by SHA, batched per event loop step.

The only package that imports redis.
"""

from __future__ import annotations

from genmcp.storage.redis.broker import RedisBroker, RedisSubscription
from genmcp.storage.redis.buckets import RedisBuckets
from genmcp.storage.redis.cache import RedisCacheStore
from genmcp.storage.redis.options import RedisOptions
from genmcp.storage.redis.part import DEFAULT_PREFIX
from genmcp.storage.redis.records import RedisRecordStore
from genmcp.storage.redis.registry import RedisSessionRegistry
from genmcp.storage.redis.replays import RedisProofReplays
from genmcp.storage.redis.states import RedisStateStore
from genmcp.storage.redis.stores import RedisStores
from genmcp.storage.redis.tasks import RedisTaskStore

__all__ = [
    "DEFAULT_PREFIX",
    "RedisBroker",
    "RedisBuckets",
    "RedisCacheStore",
    "RedisOptions",
    "RedisProofReplays",
    "RedisRecordStore",
    "RedisSessionRegistry",
    "RedisStateStore",
    "RedisStores",
    "RedisSubscription",
    "RedisTaskStore",
]

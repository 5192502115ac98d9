"""What running several processes of one app needs, from one import path.

Most apps need none of it: ``mcp_router(..., redis_url=...)`` (or ``GENMCP_REDIS_URL``)
builds and closes these parts itself. This is the long form, for other options per part:

``from genmcp.scaleout import LegacyServer, RedisBroker, RedisOptions, RedisSessionRegistry``
(Redis needs the ``genmcp[redis]`` extra), ``RedisBuckets`` (one rate-limit budget for every
process: ``RateLimit(store=RedisBuckets.from_url(url))``), plus the outcomes a caller may meet:
``InboxFull`` (``Suite.post`` to a full inbox) and ``StorageUnavailable`` (the store is down
or hung: HTTP 503 at the edge). See docs/guides/scaling-out.md.
"""

from genmcp.sessions import LegacyServer
from genmcp.storage import InboxFull
from genmcp.storage.guard import StorageUnavailable
from genmcp.storage.redis.broker import RedisBroker
from genmcp.storage.redis.buckets import RedisBuckets
from genmcp.storage.redis.options import RedisOptions
from genmcp.storage.redis.registry import RedisSessionRegistry

__all__ = [
    "InboxFull",
    "LegacyServer",
    "RedisBroker",
    "RedisBuckets",
    "RedisOptions",
    "RedisSessionRegistry",
    "StorageUnavailable",
]

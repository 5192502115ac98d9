"""``RedisBuckets``: token buckets in Redis, one budget for every process of an app.

A bucket is one hash, ``<prefix>bucket:{<digest>}`` (``tokens``, ``at``: when they were
counted, in microseconds of the Redis clock), taken from by one Lua script: refill, take,
write back and expire in one atomic step, so two processes never share a token and the
one clock is Redis's ``TIME`` (the processes' clocks may disagree). The key expires once the
bucket would be full again (a missing bucket is a full one), so an idle caller costs no
memory. The script touches only its declared key (``KEYS[1]``), whose digest is a hash tag:
it runs unchanged on Redis Cluster.

One limited request is one ``EVALSHA``: the takes of one event-loop turn share one pipeline
(``storage.redis.batch``), so a request costs at most one round trip, and a busy process
fewer. Every take runs under the options' breaker (``guard.Breaker``): a down or hung Redis
is ``StorageUnavailable`` within ``deadline_s`` (HTTP 503 with ``Retry-After`` at the edge),
never a hang; what a rate limit does then is its choice (``RateLimit(fail_open=...)``).

:data:`TAKE_LUA` is the arithmetic as a Lua function; ``RedisTaskStore``'s create script
counts ``TaskQuota``'s creations with it. Requires the ``redis`` package (``genmcp[redis]``).
"""

from __future__ import annotations

import hashlib
from typing import Final, Unpack

from genmcp.storage.buckets import Taken
from genmcp.storage.redis.batch import ScriptBatch
from genmcp.storage.redis.part import PartOptions, RedisPart
from genmcp.storage.redis.topology import Client

__all__ = ["TAKE_LUA", "RedisBuckets"]


TAKE_LUA: Final = """
-- take(key, rate per s, burst, cost) -> wait in s (0: taken), tokens left
local function take(key, rate, burst, cost)
  local clock = redis.call('TIME')
  local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
  local held = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = burst
  if held[1] and held[2] then
    local elapsed = math.max(now - tonumber(held[2]), 0) / 1000000
    tokens = math.min(burst, tonumber(held[1]) + elapsed * rate)
  end
  local wait = 0
  if tokens >= cost then tokens = tokens - cost else wait = (cost - tokens) / rate end
  redis.call('HSET', key, 'tokens', tokens, 'at', now)
  redis.call('PEXPIRE', key, math.ceil((burst - tokens) / rate * 1000) + 1)
  return wait, tokens
end
"""
"""A Lua function ``take(key, rate, burst, cost)`` returning ``wait_s, tokens``; ``key``
must be one of the script's ``KEYS``."""

_TAKE: Final = (
    TAKE_LUA
    + """
-- KEYS[1]: the bucket. ARGV: rate (tokens per s), burst, cost.
local wait, tokens = take(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
return {math.ceil(wait * 1000000), math.floor(tokens * 1000)}
"""
)


def bucket_tag(key: str) -> str:
    """The hash-tagged digest naming the bucket ``key`` in Redis (``{...}``: one slot)."""
    return "{" + hashlib.sha256(key.encode()).hexdigest()[:32] + "}"


class RedisBuckets(RedisPart):
    """``Buckets`` in Redis (see the module docstring). Args: ``RedisPart``'s."""

    def __init__(self, client: Client, **part: Unpack[PartOptions]) -> None:
        super().__init__(client, **part)
        self._take = ScriptBatch(client, _TAKE, self.breaker)

    def key(self, key: str) -> str:
        """The Redis key of the bucket ``key``."""
        return f"{self._prefix}bucket:{bucket_tag(key)}"

    async def take(self, key: str, rate: float, burst: int, cost: int = 1) -> Taken:
        wait_us, milli_tokens = await self._take((self.key(key),), (rate, burst, cost))
        return Taken(int(wait_us) / 1_000_000, int(milli_tokens) / 1000)

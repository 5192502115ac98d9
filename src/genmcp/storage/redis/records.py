"""``RedisRecordStore``: the records of an OAuth authorization server, shared by processes.

A record is one string key, ``<prefix>oauth:<kind>:{<key>}``, holding ``<tag>\\n<JSON>`` and
expiring with the record (``SET ... PX``). Taking one is a Lua script over the record and
its spent marker, ``<prefix>oauth:<kind>:spent:{<key>}``: both are named in ``KEYS`` and
share the hash tag ``{<key>}``, so the script stays on one slot of a Redis Cluster. The
bound of ``admit`` is one sorted set per kind, ``<prefix>oauth:<kind>:admitted`` (the
script's only key), scored by expiry and pruned on each admission. Every call runs under
the options' breaker: a down or hung Redis is ``StorageUnavailable`` within ``deadline_s``.
Run ``maxmemory-policy noeviction``: an evicted spent marker would let a replay pass unseen.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar, Unpack

from genmcp.storage.redis.part import PartOptions, RedisPart
from genmcp.storage.redis.registry import encode, ttl_ms
from genmcp.storage.redis.topology import Client

__all__ = ["RedisRecordStore"]

T = TypeVar("T")

# KEYS: the record, its spent marker. ARGV: how long (ms) the spent marker lasts (0: none).
_TAKE: Final = """
local raw = redis.call('GET', KEYS[1])
if not raw then
  local tag = redis.call('GET', KEYS[2])
  if tag then return {0, tag} end
  return {0}
end
redis.call('DEL', KEYS[1])
if tonumber(ARGV[1]) > 0 then
  local cut = string.find(raw, '\\n', 1, true)
  redis.call('SET', KEYS[2], string.sub(raw, 1, cut - 1), 'PX', ARGV[1])
end
return {1, raw}
"""
# KEYS: the kind's sorted set of places. ARGV: the member, its TTL (ms), the limit.
_ADMIT: Final = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""


def _split(raw: bytes | str) -> tuple[str, Any]:
    text = raw.decode() if isinstance(raw, bytes) else raw
    tag, _, body = text.partition("\n")
    return tag, json.loads(body)


class RedisRecordStore(RedisPart):
    """``RecordStore`` in Redis. Args: ``RedisPart``'s."""

    def __init__(self, client: Client, **part: Unpack[PartOptions]) -> None:
        super().__init__(client, **part)
        self._take = client.register_script(_TAKE)
        self._admit = client.register_script(_ADMIT)

    def _key(self, kind: str, key: str) -> str:
        return f"{self._prefix}oauth:{kind}:{{{key}}}"

    def _spent(self, kind: str, key: str) -> str:
        return f"{self._prefix}oauth:{kind}:spent:{{{key}}}"

    async def _run(self, operation: Callable[[], Awaitable[T]]) -> T:
        return await self.breaker.run(operation)

    async def put(self, kind: str, key: str, value: Any, ttl_s: float, *, tag: str = "") -> None:
        if "\n" in tag:
            raise ValueError("a record's tag is one line")
        millis, name = ttl_ms(ttl_s), self._key(kind, key)
        if not millis:
            await self._run(lambda: self._client.delete(name))
            return
        raw = f"{tag}\n{encode(value)}"
        await self._run(lambda: self._client.set(name, raw, px=millis))

    async def get(self, kind: str, key: str) -> Any:
        raw = await self._run(lambda: self._client.get(self._key(kind, key)))
        return None if raw is None else _split(raw)[1]

    async def take(self, kind: str, key: str, spent_ttl_s: float = 0.0) -> tuple[Any, str | None]:
        keys = [self._key(kind, key), self._spent(kind, key)]
        reply = await self._run(lambda: self._take(keys=keys, args=[ttl_ms(spent_ttl_s)]))
        if int(reply[0]) == 1:
            return _split(reply[1])[1], None
        if len(reply) > 1:
            tag = reply[1]
            return None, tag.decode() if isinstance(tag, bytes) else str(tag)
        return None, None

    async def admit(self, kind: str, key: str, ttl_s: float, limit: int) -> bool:
        keys = [f"{self._prefix}oauth:{kind}:admitted"]
        reply = await self._run(lambda: self._admit(keys=keys, args=[key, ttl_ms(ttl_s), limit]))
        return int(reply) == 1

"""``RedisSessionRegistry``: legacy session state in Redis, one round trip per request.

Each session's fields live in one hash that expires with the session (value fields as JSON
under ``v:<name>``, set members one hash field each, so adding or removing one is a single
atomic ``HSET``/``HDEL``); an ended session is a key with a TTL; the registry's epoch is one
key (``<prefix>epoch``) whose TTL outlives every session id issued in it.

The hot path, ``lookup``, is one Lua script (one command; the lookups of one event-loop turn
share one pipeline, ``storage.redis.batch``, so one round trip and one connection): the epoch still
the session's, the session not ended, its value fields. A Redis that restarted empty has no
epoch: every older session is refused (its end-marker may be gone) until ``initialize``
makes a new epoch. Every call runs under the options' breaker (``guard.Breaker``): a down or
hung Redis is ``StorageUnavailable`` within ``deadline_s``, never a hang or a 500.
Run ``maxmemory-policy noeviction``: an evicted end-marker would revive its session.
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

from redis import asyncio as aioredis

from genmcp.storage.redis.batch import ScriptBatch
from genmcp.storage.redis.options import RedisOptions

__all__ = ["DEFAULT_PREFIX", "RedisSessionRegistry"]

T = TypeVar("T")

DEFAULT_PREFIX: Final = "genmcp:"
"""Prefix of every key and channel unless told otherwise."""
_VALUE: Final = "v:"
_MEMBER: Final = "s:"

# KEYS: epoch, ended, fields. ARGV: epoch, then the value fields wanted.
_LOOKUP: Final = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {0} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {0} end
local out = {1}
for i = 2, #ARGV do out[i] = redis.call('HGET', KEYS[3], ARGV[i]) or '' end
return out
"""
# KEYS: epoch. ARGV: a candidate epoch, the TTL (ms) it must last at least.
_EPOCH: Final = """
local epoch = redis.call('GET', KEYS[1])
if not epoch then
  epoch = ARGV[1]
  redis.call('SET', KEYS[1], epoch, 'PX', ARGV[2])
elseif redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return epoch
"""


def ttl_ms(ttl_s: float) -> int:
    """A TTL in whole milliseconds, rounded up (0 or less: already expired)."""
    return math.ceil(ttl_s * 1000) if ttl_s > 0 else 0


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def encode(value: Any) -> str:
    """Compact JSON (ASCII escapes: a lone surrogate cannot be encoded as UTF-8)."""
    return json.dumps(value, separators=(",", ":"))


class RedisSessionRegistry:
    """``SessionRegistry`` in Redis.

    Args:
        client: a ``redis.asyncio.Redis`` (left open by ``aclose``); make it with
            ``RedisOptions().client(url)`` for the documented timeouts and pool.
        prefix: prefix of every key.
        options: deadline and breaker settings (``RedisOptions`` defaults).
    """

    def __init__(
        self,
        client: aioredis.Redis,
        *,
        prefix: str = DEFAULT_PREFIX,
        options: RedisOptions | None = None,
    ) -> None:
        self._client = client
        self._prefix = prefix
        self._owns_client = False
        self.options = RedisOptions() if options is None else options
        self.breaker = self.options.breaker()
        self._lookup = ScriptBatch(client, _LOOKUP, self.breaker)  # a pipeline per loop turn
        self._epoch = client.register_script(_EPOCH)

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        options: RedisOptions | None = None,
        **connection: Any,
    ) -> RedisSessionRegistry:
        """A registry on its own client for ``url``, made with ``options`` (and
        ``connection`` options such as ``client_name``)."""
        options = RedisOptions() if options is None else options
        registry = cls(options.client(url, **connection), prefix=prefix, options=options)
        registry._owns_client = True
        return registry

    async def aclose(self) -> None:
        """Close the client if ``from_url`` made it."""
        if self._owns_client:
            await self._client.aclose()

    def _fields(self, session: str) -> str:
        return f"{self._prefix}session:{session}"

    def _ended(self, session: str) -> str:
        return f"{self._prefix}ended:{session}"

    async def _run(self, operation: Callable[[], Awaitable[T]]) -> T:
        return await self.breaker.run(operation)

    async def epoch(self, ttl_s: float) -> str:
        key, candidate = self._prefix + "epoch", secrets.token_hex(8)
        raw = await self._run(lambda: self._epoch(keys=[key], args=[candidate, ttl_ms(ttl_s)]))
        return _text(raw)

    async def lookup(
        self, session: str, epoch: str, names: tuple[str, ...]
    ) -> dict[str, Any] | None:
        keys = [self._prefix + "epoch", self._ended(session), self._fields(session)]
        args = [epoch, *(_VALUE + name for name in names)]
        found = await self._lookup(keys, args)
        if not found or found[0] != 1:
            return None
        raws = found[1:]
        return {
            name: json.loads(raw) if raw else None for name, raw in zip(names, raws, strict=True)
        }

    async def end(self, session: str, ttl_s: float) -> None:
        async def end() -> None:
            async with self._client.pipeline(transaction=True) as pipe:
                if millis := ttl_ms(ttl_s):
                    pipe.set(self._ended(session), b"1", px=millis)
                else:
                    pipe.delete(self._ended(session))
                pipe.delete(self._fields(session))
                await pipe.execute()

        await self._run(end)

    async def is_ended(self, session: str) -> bool:
        return bool(await self._run(lambda: self._client.exists(self._ended(session))))

    async def put(self, session: str, name: str, value: Any, ttl_s: float) -> None:
        await self._write(session, ttl_s, set_field=(_VALUE + name, encode(value)))

    async def get(self, session: str, name: str) -> Any:
        raw = await self._run(lambda: self._client.hget(self._fields(session), _VALUE + name))
        return None if raw is None else json.loads(raw)

    async def add(self, session: str, name: str, member: str, ttl_s: float) -> None:
        await self._write(session, ttl_s, set_field=(_member_field(name, member), "1"))

    async def discard(self, session: str, name: str, member: str, ttl_s: float) -> None:
        await self._write(session, ttl_s, drop_field=_member_field(name, member))

    async def members(self, session: str, name: str) -> frozenset[str]:
        fields = await self._run(lambda: self._client.hkeys(self._fields(session)))
        members = set()
        for field in map(_text, fields):
            if field.startswith(_MEMBER):
                owner, member = json.loads(field[len(_MEMBER) :])
                if owner == name:
                    members.add(member)
        return frozenset(members)

    async def _write(
        self,
        session: str,
        ttl_s: float,
        *,
        set_field: tuple[str, str] | None = None,
        drop_field: str | None = None,
    ) -> None:
        """Change one field and set the expiry of them all, in one transaction."""
        key, millis = self._fields(session), ttl_ms(ttl_s)

        async def write() -> None:
            if not millis:  # expires at once, with every other field (as in memory)
                await self._client.delete(key)
                return
            async with self._client.pipeline(transaction=True) as pipe:
                if set_field is not None:
                    pipe.hset(key, *set_field)
                if drop_field is not None:
                    pipe.hdel(key, drop_field)
                pipe.pexpire(key, millis)
                await pipe.execute()

        await self._run(write)


def _member_field(name: str, member: str) -> str:
    return _MEMBER + encode([name, member])

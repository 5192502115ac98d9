"""``RedisStateStore``: per-owner named values in Redis, shared by every process.

One hash per owner, ``<prefix>state:{<owner>}``, a field per name holding the JSON text; the
hash expires ``ttl_s`` after its last write (``PEXPIRE`` with each write). A write is one Lua
script that refuses a new name once the hash holds ``max_names`` (so two processes writing
at once cannot pass the bound). Every call runs under the options' breaker: a down or hung
Redis is ``StorageUnavailable`` within ``deadline_s``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final, TypeVar, Unpack

from genmcp.storage.redis.part import PartOptions, RedisPart
from genmcp.storage.redis.registry import ttl_ms
from genmcp.storage.redis.topology import Client

__all__ = ["RedisStateStore"]

T = TypeVar("T")

# KEYS: the owner's hash. ARGV: the name, the value, the TTL (ms), the most names.
_PUT: Final = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0
   and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisStateStore(RedisPart):
    """``StateStore`` in Redis. Args: ``RedisPart``'s."""

    def __init__(self, client: Client, **part: Unpack[PartOptions]) -> None:
        super().__init__(client, **part)
        self._put = client.register_script(_PUT)

    def _key(self, owner: str) -> str:
        return f"{self._prefix}state:{{{owner}}}"

    async def _run(self, operation: Callable[[], Awaitable[T]]) -> T:
        return await self.breaker.run(operation)

    async def get(self, owner: str, name: str) -> str | None:
        raw = await self._run(lambda: self._client.hget(self._key(owner), name))
        return None if raw is None else _text(raw)

    async def put(self, owner: str, name: str, value: str, ttl_s: float, max_names: int) -> bool:
        args: list[str | int] = [name, value, max(ttl_ms(ttl_s), 1), max_names]
        reply = await self._run(lambda: self._put(keys=[self._key(owner)], args=args))
        return int(reply) == 1

    async def delete(self, owner: str, name: str) -> bool:
        removed = await self._run(lambda: self._client.hdel(self._key(owner), name))
        return int(removed) == 1

    async def names(self, owner: str) -> list[str]:
        raw = await self._run(lambda: self._client.hkeys(self._key(owner)))
        return sorted(_text(name) for name in raw)

    async def clear(self, owner: str) -> None:
        await self._run(lambda: self._client.delete(self._key(owner)))

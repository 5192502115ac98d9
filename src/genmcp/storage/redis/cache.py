"""``RedisCacheStore``: the response cache of clients in several processes, in Redis.

A ``genmcp.client.cache.CacheStore``: ``Client(url, cache=RedisCacheStore.from_url(...))``
in every process shares the public results (and each principal's private ones). Keys:
``<prefix>cache:{<server>}:<group>:<partition>:<request>`` (the entry, JSON text, expiring
with its ``ttlMs``) and ``<prefix>cache:{<server>}:<group>:gen`` (the group's generation,
bumped by a change notification). The hash tag keeps one server's keys in one cluster slot,
so a lookup is one ``MGET``. Bounded by the entries' expiry (a day at most) and, like every
genmcp key, by the server's ``maxmemory`` policy. Each operation runs under the part's
breaker (``StorageUnavailable``, which the client's cache takes as a miss).
"""

from __future__ import annotations

from typing import Any

from genmcp.client.cache import Lookup
from genmcp.storage.redis.part import RedisPart

__all__ = ["RedisCacheStore"]


def _text(raw: Any) -> str | None:
    if raw is None:
        return None
    return raw.decode() if isinstance(raw, bytes) else str(raw)


class RedisCacheStore(RedisPart):
    """``CacheStore`` in Redis. Args: ``RedisPart``'s (``client``, ``prefix``, ``options``)."""

    def _key(self, space: str, group: str, key: str) -> str:
        return f"{self._prefix}cache:{{{space}}}:{group}:{key}"

    async def lookup(self, space: str, group: str, public: str, private: str) -> Lookup:
        names = [self._key(space, group, "gen"), self._key(space, group, public),
                 self._key(space, group, private)]  # fmt: skip
        generation, found_public, found_private = await self.breaker.run(
            lambda: self._client.mget(names)
        )
        return int(generation or 0), _text(found_public), _text(found_private)

    async def store(self, space: str, group: str, key: str, entry: str, ttl_ms: int) -> None:
        name = self._key(space, group, key)
        await self.breaker.run(lambda: self._client.set(name, entry, px=max(int(ttl_ms), 1)))

    async def bump(self, space: str, group: str) -> None:
        name = self._key(space, group, "gen")
        await self.breaker.run(lambda: self._client.incr(name))

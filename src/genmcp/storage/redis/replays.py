"""``RedisProofReplays``: the DPoP proofs every process of an app has seen (``ProofReplays``).

One key per proof, ``<prefix>dpop:seen:<key>``, written with ``SET NX PX``: the first writer
of a key, in any process, gets OK; every later one (a replay) gets nothing until it expires.
One round trip, atomic, under the options' breaker (a down Redis is ``StorageUnavailable``,
never an unchecked proof). Run ``maxmemory-policy noeviction``: an evicted key would let a
replay through.
"""

from __future__ import annotations

from typing import Unpack

from genmcp.storage.redis.part import PartOptions, RedisPart
from genmcp.storage.redis.registry import ttl_ms
from genmcp.storage.redis.topology import Client

__all__ = ["RedisProofReplays"]


class RedisProofReplays(RedisPart):
    """``ProofReplays`` in Redis. Args: ``RedisPart``'s."""

    def __init__(self, client: Client, **part: Unpack[PartOptions]) -> None:
        super().__init__(client, **part)

    async def first(self, key: str, ttl_s: float) -> bool:
        name, millis = f"{self._prefix}dpop:seen:{key}", max(ttl_ms(ttl_s), 1)
        reply = await self.breaker.run(lambda: self._client.set(name, b"1", nx=True, px=millis))
        return bool(reply)

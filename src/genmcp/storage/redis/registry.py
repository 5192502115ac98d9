"""``RedisSessionRegistry``: legacy session state in Redis, one round trip per request.

Each session's fields live in one hash that expires with the session (value fields as JSON
under ``v:<name>``, set members one hash field each, so adding or removing one is a single
atomic ``HSET``/``HDEL``); an ended session is a key with a TTL.

Keys are hash-tagged per bucket (``{s<n>}``, n = CRC32 of the session id mod
:data:`BUCKETS`), so that every key one script reads shares a Redis Cluster slot:
``<prefix>session:{s<n>}:<id>`` (the fields), ``<prefix>ended:{s<n>}:<id>`` and
``<prefix>epoch:{s<n>}``, the bucket's copy of the registry's epoch. The epoch itself is
``<prefix>epoch``, whose TTL outlives every session id issued in it; it is copied into every
bucket once, when it is made (``"<epoch> new"`` until then: whoever sees that copies it too).

The hot path, ``lookup``, is one Lua script (one command; the lookups of one event-loop turn
share one pipeline, ``storage.redis.batch``, so one round trip and one connection): the
bucket's epoch still the session's, the session not ended, its value fields. A Redis that
restarted empty, or a cluster node that lost its data, has no epoch in the bucket: every
older session there is refused (its end-marker may be gone), and the next ``epoch`` sees the
lost copy and makes a new epoch (every older session is refused: nothing lost comes back).
Every call runs under the options' breaker (``guard.Breaker``): a down or hung Redis is
``StorageUnavailable`` within ``deadline_s``, never a hang or a 500. Writes (the epoch, an
end, a field) are acknowledged once replicated (``RedisOptions.replicas``,
``failover.Acknowledged``); ``lookup``, the hot path, reads only and waits for no replica.
Run ``maxmemory-policy noeviction``: an evicted end-marker would revive its session.
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import secrets
import time
import zlib
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar, Unpack

from redis.asyncio import RedisCluster

from genmcp.storage.redis.batch import ScriptBatch
from genmcp.storage.redis.part import PartOptions, RedisPart
from genmcp.storage.redis.refusals import refusing
from genmcp.storage.redis.topology import Client

__all__ = ["BUCKETS", "RedisSessionRegistry"]

T = TypeVar("T")

BUCKETS: Final = 256
"""Hash-tag buckets of session keys: each is one cluster slot, with its copy of the epoch."""
_VALUE: Final = "v:"
_MEMBER: Final = "s:"
_NEW: Final = " new"

# KEYS: the bucket's epoch, ended, fields. ARGV: epoch, then the value fields wanted.
# {0}: ended or another epoch; {-1}: the bucket lost its epoch; {1, values...}: live.
_LOOKUP: Final = """
local epoch = redis.call('GET', KEYS[1])
if epoch ~= ARGV[1] then
  if epoch then return {0} end
  return {-1}
end
if redis.call('EXISTS', KEYS[2]) == 1 then return {0} end
local out = {1}
for i = 2, #ARGV do out[i] = redis.call('HGET', KEYS[3], ARGV[i]) or '' end
return out
"""
# KEYS: epoch. ARGV: a candidate epoch, the TTL (ms) it must last at least.
_EPOCH: Final = """
local epoch = redis.call('GET', KEYS[1])
if not epoch then
  epoch = ARGV[1] .. ' new'
  redis.call('SET', KEYS[1], epoch, 'PX', ARGV[2])
elseif redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return epoch
"""
# KEYS: epoch. ARGV: the epoch copied into every bucket: it is ready.
_READY: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] .. ' new' then
  redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
end
return 1
"""
# KEYS: epoch. ARGV: the epoch a bucket lost, a new candidate, its TTL (ms).
_ROTATE: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2] .. ' new', 'PX', ARGV[3])
end
return redis.call('GET', KEYS[1])
"""
# KEYS: a bucket's epoch. ARGV: the epoch, the TTL (ms) its copy must last at least.
_KEEP: Final = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
"""

# KEYS: ended, fields. ARGV: how long the end mark lasts (ms; 0: none).
_END: Final = """
if tonumber(ARGV[1]) > 0 then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
else
  redis.call('DEL', KEYS[1])
end
redis.call('DEL', KEYS[2])
return 1
"""
# KEYS: fields. ARGV: their TTL (ms), a field to set ('' none), its value, one to drop.
_WRITE: Final = """
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], ARGV[2], ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HDEL', KEYS[1], ARGV[4]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
"""


def bucket(session: str) -> str:
    """The hash tag of ``session``'s keys (its bucket: one Redis Cluster slot)."""
    return f"{{s{zlib.crc32(session.encode()) % BUCKETS}}}"


def ttl_ms(ttl_s: float) -> int:
    """A TTL in whole milliseconds, rounded up (0 or less: already expired)."""
    return math.ceil(ttl_s * 1000) if ttl_s > 0 else 0


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def encode(value: Any) -> str:
    """Compact JSON (ASCII escapes: a lone surrogate cannot be encoded as UTF-8)."""
    return json.dumps(value, separators=(",", ":"))


class RedisSessionRegistry(RedisPart):
    """``SessionRegistry`` in Redis. Args: ``RedisPart``'s."""

    def __init__(self, client: Client, **part: Unpack[PartOptions]) -> None:
        super().__init__(client, **part)
        self._lookup = ScriptBatch(client, _LOOKUP, self.breaker)  # a pipeline per loop turn
        self._epoch = client.register_script(_EPOCH)
        self._ready = client.register_script(_READY)
        self._rotate = client.register_script(_ROTATE)
        self._keep = ScriptBatch(client, _KEEP, self.breaker)
        self._end = client.register_script(_END)
        self._write_field = client.register_script(_WRITE)
        self._ack = self.options.acknowledged(client)  # writes: replicated
        self._copied: tuple[str, float] | None = None  # the epoch copied, until (monotonic)

    def _fields(self, session: str) -> str:
        return f"{self._prefix}session:{bucket(session)}:{session}"

    def _ended(self, session: str) -> str:
        return f"{self._prefix}ended:{bucket(session)}:{session}"

    def _copies(self) -> list[str]:
        return [f"{self._prefix}epoch:{{s{n}}}" for n in range(BUCKETS)]

    async def _run(self, operation: Callable[[], Awaitable[T]]) -> T:
        return await self.breaker.run(lambda: refusing(operation))

    async def epoch(self, ttl_s: float) -> str:
        """The epoch (one command), copied into every bucket when new or found lost."""
        key, millis = self._prefix + "epoch", ttl_ms(ttl_s)
        candidate = secrets.token_hex(8)
        made: list[str | int] = [candidate, millis]
        raw = _text(await self._run(lambda: self._ack.eval(self._epoch, [key], made)))
        for _ in range(3):
            epoch, new = raw.removesuffix(_NEW), raw.endswith(_NEW)
            copied = self._copied
            if not new and copied and copied[0] == epoch and copied[1] - time.monotonic() > ttl_s:
                return epoch
            if new:
                await self._run(functools.partial(self._copy, epoch, 2 * millis))
                ready: list[str | int] = [epoch]
                await self._run(functools.partial(self._ack.eval, self._ready, [key], ready))
            elif not await self._run(functools.partial(self._kept, epoch, 2 * millis)):
                # A bucket lost its copy (a node restarted empty): a new epoch for all.
                again: list[str | int] = [epoch, secrets.token_hex(8), millis]
                rotate = functools.partial(self._ack.eval, self._rotate, [key], again)
                raw = _text(await self._run(rotate))
                continue
            self._copied = (epoch, time.monotonic() + 2 * ttl_s)
            return epoch
        raise RuntimeError("the session epoch keeps changing")  # pragma: no cover

    async def _copy(self, epoch: str, millis: int) -> None:
        """Every bucket's copy of ``epoch``, replicated before the epoch is ready: a copy a
        failover lost would end its bucket's sessions. On a cluster, one acknowledged
        pipeline per master (its ``WAIT`` there); elsewhere one."""
        groups: dict[str, list[str]] = {}
        client = self._client
        if isinstance(client, RedisCluster):
            await client.initialize()  # at once when it knows the nodes already
            for key in self._copies():
                node = client.get_node_from_key(key)
                groups.setdefault("" if node is None else str(node.name), []).append(key)
        else:
            groups[""] = self._copies()

        def copy(keys: list[str], pipe: Any) -> None:
            for key in keys:
                pipe.set(key, epoch, px=millis)

        ack = self._ack
        await asyncio.gather(
            *(ack.pipeline(functools.partial(copy, keys), keys[0]) for keys in groups.values())
        )

    async def _kept(self, epoch: str, millis: int) -> bool:
        """Whether every bucket still holds ``epoch`` (its copy kept ``millis`` more)."""
        kept = await asyncio.gather(
            *(self._keep([copy], [epoch, millis]) for copy in self._copies())
        )  # not a pipeline: a cluster client pipelines no script
        return all(int(k) == 1 for k in kept)

    async def lookup(
        self, session: str, epoch: str, names: tuple[str, ...]
    ) -> dict[str, Any] | None:
        tag = bucket(session)
        keys = [f"{self._prefix}epoch:{tag}", self._ended(session), self._fields(session)]
        args = [epoch, *(_VALUE + name for name in names)]
        found = await self._lookup(keys, args)
        if not found or found[0] != 1:
            if found and found[0] == -1:
                self._copied = None  # the next epoch() checks every bucket
            return None
        raws = found[1:]
        return {
            name: json.loads(raw) if raw else None for name, raw in zip(names, raws, strict=True)
        }

    async def end(self, session: str, ttl_s: float) -> None:
        keys, args = [self._ended(session), self._fields(session)], [ttl_ms(ttl_s)]
        await self._run(lambda: self._ack.eval(self._end, keys, args))

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
        """Change one field and set the expiry of them all, in one script (atomic)."""
        key, millis = self._fields(session), ttl_ms(ttl_s)
        if not millis:  # expires at once, with every other field (as in memory)
            await self._run(lambda: self._ack.pipeline(lambda pipe: pipe.delete(key), key))
            return
        name, value = set_field if set_field is not None else ("", "")
        args: list[str | int] = [millis, name, value, drop_field or ""]
        await self._run(lambda: self._ack.eval(self._write_field, [key], args))


def _member_field(name: str, member: str) -> str:
    return _MEMBER + encode([name, member])

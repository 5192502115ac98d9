"""``TaskStore`` in Redis: task records every process of an app reads, moves and cancels.

One hash per task, ``<prefix>task:<taskId>``, created with a ``PEXPIRE`` of the task's
``ttlMs`` and only ever written by scripts that first check it still exists, so no key ever
lives without a TTL and an expired task never comes back. Fields:

- ``base``: the JSON of what never changes (``taskId``, ``principal``, ``createdAt``,
  ``ttlMs``, ``pollIntervalMs``); ``status``, ``updated`` (``lastUpdatedAt``), ``msg``
  (``statusMessage``), ``result`` and ``error`` (JSON);
- ``lease`` (ms on the Redis clock) and ``owner`` (the process token running the task);
- ``q:<key>`` per outstanding input request, ``a:<key>`` per answer not yet collected, and
  ``pending``, how many requests are outstanding;
- ``v``, the record's ``version``: every transition adds one, and returns the whole hash.

Quotas (``TaskQuota``) are counted by scripts, each on the keys of one Redis Cluster slot:
``<prefix>tasks:{<who>}:live`` (one owner's live task ids, a sorted set scored by their expiry,
expired ones trimmed as a script runs) and ``<prefix>tasks:{<who>}:rate`` (the owner's
creation bucket: a token bucket of ``created_per_window`` refilled over ``window_s``, taken
from by the rate limits' Lua, ``storage.redis.buckets.TAKE_LUA``) in one script (``who``: a
digest of the record's ``principal``), then, when ``max_live`` is set,
``<prefix>tasks:live`` (everyone's live ids) in another, with the owner's count from the first
(``crowded_per_owner``, the fair share of a half-full store); a refusal there gives the owner's
place and token back. A task that ends (finished, or its
lease lost) leaves both sets in the command after the script that ended it: if that command
is lost, the id leaves when its expiry passes (a quota counts it until then). A task is never
evicted, a refused one is never stored. Without a quota, no set is kept. With replicas
(``RedisOptions.replicas``) the quota scripts wait for none themselves: the creation that
follows them does (``WAIT`` covers every earlier write of the master's replication stream),
and a refusal stores nothing; leaving the sets waits for none (one round trip less per task
end: lost, it only counts the task until its expiry, refusing more, never less).

Every transition is one Lua script on the task's own key (atomic; the Redis ``TIME`` is the
one clock leases are compared against, whatever the clocks of the processes; a task records
the ``run_id`` of the server that created it, and a lease found run out by another server
than the one that last judged it, a replica promoted or a restarted server, gets
:data:`FAILOVER_GRACE_MS` for its owner to renew it there before it counts as lost: a
failover under load, renewals failing for its few seconds, fails no task whose process
lives). JSON payloads
pass through Lua as opaque strings: it never decodes them (cjson would turn ``[]`` into
``{}``).

Every operation runs under the store's breaker (``guard.Breaker``, ``RedisOptions``' deadline
and cooldown): a down or hung Redis is ``StorageUnavailable`` within ``deadline_s`` (HTTP 503
with ``Retry-After`` at the edge), never a wait of the client's socket timeout. A lost
connection, a timeout or a refusal (``OOM``, ``NOREPLICAS``, ``READONLY``, ``MISCONF``...:
``storage.redis.refusals``) trips it: a creation is then a 503, and a task's end is retried,
never stored as a failure nor left to read "the process stopped". Any other error Redis
answers (a script error) passes through as itself: "this will never be stored".

Runs on the server's event loop. Requires the ``redis`` package (``genmcp[redis]``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Final, TypeVar, Unpack

try:
    import redis.asyncio  # noqa: F401  (the ImportError below names the extra)
    from redis.exceptions import ClusterDownError, RedisClusterException, TryAgainError
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "genmcp.storage.redis.tasks needs the redis package: pip install 'genmcp[redis]'"
    ) from exc

from genmcp.protocol.tasks import iso_now
from genmcp.storage import Lease, TaskEnd, TaskQuota, TaskQuotaExceeded
from genmcp.storage.guard import Breaker
from genmcp.storage.redis.buckets import TAKE_LUA
from genmcp.storage.redis.part import PartOptions, RedisPart
from genmcp.storage.redis.refusals import WritesRefused, refusing
from genmcp.storage.redis.registry import encode
from genmcp.storage.redis.topology import Client

__all__ = ["RedisTaskStore"]

_BASE_KEYS: Final = ("taskId", "principal", "createdAt", "ttlMs", "pollIntervalMs")
_UNAVAILABLE: Final = (
    RedisConnectionError,
    RedisTimeoutError,
    ClusterDownError,  # a cluster without a master for the slot (failing over)
    TryAgainError,  # a slot migrating
    RedisClusterException,  # no node of the cluster reachable
    WritesRefused,  # OOM, NOREPLICAS, READONLY, MISCONF...: retry later
)
T = TypeVar("T")

FAILOVER_GRACE_MS: Final = 10_000
"""How long a lease that ran out is kept when the server judging it is not the one that
last did (a replica promoted, a restart): its owner renews it there within that time."""
_CLOCK: Final = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
"""

_COMMON: Final = (
    _CLOCK
    + """
local TERMINAL = {completed = true, failed = true, cancelled = true}
local function clear_io(key)
  for _, f in ipairs(redis.call('HKEYS', key)) do
    local p = string.sub(f, 1, 2)
    if p == 'q:' or p == 'a:' then redis.call('HDEL', key, f) end
  end
  redis.call('HSET', key, 'pending', 0)
end
local function run_id()
  return string.match(redis.call('INFO', 'server'), 'run_id:(%w+)') or ''
end
local function moved()
  redis.call('HINCRBY', KEYS[1], 'v', 1)
  return redis.call('HGETALL', KEYS[1])
end
local status = redis.call('HGET', KEYS[1], 'status')
"""
)

_OWNER: Final = """
-- KEYS: the owner's live set, its creation bucket. ARGV: the task id, its TTL (ms),
-- live_per_owner, created_per_window, window_ms.
local now = now_ms()
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if tonumber(ARGV[3]) > 0 and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return {'live_per_owner', 1000}
end
local burst = tonumber(ARGV[4])
if burst > 0 then
  local wait = take(KEYS[2], burst * 1000 / tonumber(ARGV[5]), burst, 1)
  if wait > 0 then return {'created_per_window', math.max(math.ceil(wait * 1000), 1)} end
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return redis.call('ZCARD', KEYS[1])
"""

_GIVE_BACK: Final = """
-- KEYS: the owner's live set, its creation bucket. ARGV: the task id, rate, burst (0: none).
redis.call('ZREM', KEYS[1], ARGV[1])
local burst = tonumber(ARGV[3])
if burst > 0 then take(KEYS[2], tonumber(ARGV[2]), burst, -1) end
return 1
"""

_ALL: Final = """
-- KEYS: every owner's live set. ARGV: the task id, its TTL (ms), max_live, the owner's
-- live tasks before this one, crowded_per_owner.
local now = now_ms()
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local live, most = redis.call('ZCARD', KEYS[1]), tonumber(ARGV[3])
if live >= most then return {'max_live', 1000} end
local share = tonumber(ARGV[5])
if share > 0 and 2 * live >= most and tonumber(ARGV[4]) >= share then
  return {'fair_share', 1000}
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
"""

_CREATE: Final = """
-- KEYS: the task. ARGV: base, updated, lease_ms, owner, ttl_ms, version.
local now = now_ms()
redis.call('HSET', KEYS[1], 'base', ARGV[1], 'status', 'working', 'updated', ARGV[2],
  'lease', now + tonumber(ARGV[3]), 'owner', ARGV[4], 'pending', 0, 'v', ARGV[6],
  'run', run_id())
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[5]))
return 1
"""

_GET: Final = f"""
if not status then return false end
if not TERMINAL[status] and tonumber(redis.call('HGET', KEYS[1], 'lease')) < now_ms() then
  local run = run_id()
  if redis.call('HGET', KEYS[1], 'run') ~= run then
    -- another server than the one that last judged it (a failover, a restart): a grace
    redis.call('HSET', KEYS[1], 'run', run, 'lease', now_ms() + {FAILOVER_GRACE_MS})
    return redis.call('HGETALL', KEYS[1])
  end
  clear_io(KEYS[1])
  redis.call('HSET', KEYS[1], 'status', 'failed', 'error', ARGV[1], 'updated', ARGV[2],
    'msg', ARGV[3])
  local out = moved()
  table.insert(out, '!ended')
  table.insert(out, '1')
  return out
end
return redis.call('HGETALL', KEYS[1])
"""

_ASK: Final = """
if not status or TERMINAL[status] then return false end
local n = 0
for i = 2, #ARGV, 2 do
  n = n + redis.call('HSETNX', KEYS[1], 'q:' .. ARGV[i], ARGV[i + 1])
end
redis.call('HINCRBY', KEYS[1], 'pending', n)
redis.call('HSET', KEYS[1], 'status', 'input_required', 'updated', ARGV[1])
return moved()
"""

_ANSWER: Final = """
if not status then return false end
if status ~= 'input_required' then return redis.call('HGETALL', KEYS[1]) end
local n = 0
for i = 2, #ARGV, 2 do
  if redis.call('HDEL', KEYS[1], 'q:' .. ARGV[i]) == 1 then
    redis.call('HSET', KEYS[1], 'a:' .. ARGV[i], ARGV[i + 1])
    n = n + 1
  end
end
if n > 0 then
  redis.call('HSET', KEYS[1], 'updated', ARGV[1])
  if redis.call('HINCRBY', KEYS[1], 'pending', -n) <= 0 then
    redis.call('HSET', KEYS[1], 'status', 'working')
  end
  return moved()
end
return redis.call('HGETALL', KEYS[1])
"""

_TAKE: Final = """
local out = {}
if not status then return out end
for _, k in ipairs(ARGV) do
  local v = redis.call('HGET', KEYS[1], 'a:' .. k)
  if v then
    redis.call('HDEL', KEYS[1], 'a:' .. k)
    table.insert(out, k)
    table.insert(out, v)
  end
end
return out
"""

_NOTE: Final = """
if not status or TERMINAL[status] then return false end
if redis.call('HGET', KEYS[1], 'msg') == ARGV[1] then return false end
redis.call('HSET', KEYS[1], 'msg', ARGV[1], 'updated', ARGV[2])
return moved()
"""

_FINISH: Final = """
if not status or TERMINAL[status] then return false end
clear_io(KEYS[1])
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'result', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'msg', ARGV[5]) end
return moved()
"""

_RENEW: Final = """
if not status then return false end
if not TERMINAL[status] then
  redis.call('HSET', KEYS[1], 'lease', now_ms() + tonumber(ARGV[1]))
end
return status
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _record(flat: Any) -> dict[str, Any] | None:
    """The record of a task from its hash's ``HGETALL`` (None: no such task)."""
    if not flat:
        return None
    fields = {_text(flat[i]): _text(flat[i + 1]) for i in range(0, len(flat), 2)}
    record: dict[str, Any] = json.loads(fields["base"])
    record["status"], record["lastUpdatedAt"] = fields["status"], fields["updated"]
    record["version"] = int(fields.get("v", 0))
    if "msg" in fields:
        record["statusMessage"] = fields["msg"]
    for name in ("result", "error"):
        if name in fields:
            record[name] = json.loads(fields[name])
    record["inputRequests"] = {
        name[2:]: json.loads(value) for name, value in fields.items() if name[:2] == "q:"
    }
    return record


def _limits(quota: TaskQuota) -> tuple[int, int, int, int]:
    """A quota as the create script reads it: live per owner, live, per window, window (ms)."""
    window_ms = max(1, round(quota.window_s * 1000))
    return quota.live_per_owner, quota.max_live, quota.created_per_window, window_ms


def _pairs(values: Mapping[str, Any]) -> list[str]:
    flat: list[str] = []
    for key, value in values.items():
        flat += [key, encode(value)]
    return flat


class RedisTaskStore(RedisPart):
    """``TaskStore`` in Redis (see the module docstring). Args: ``RedisPart``'s."""

    def __init__(self, client: Client, **part: Unpack[PartOptions]) -> None:
        super().__init__(client, **part)
        self.breaker = Breaker(  # only an unreachable Redis trips it, not a script error
            "redis",
            _UNAVAILABLE,
            deadline_s=self.options.deadline_s,
            cooldown_s=self.options.cooldown_s,
        )
        self._ack = self.options.acknowledged(client)  # create, transitions, result: replicated
        script = client.register_script
        self._owner_quota = script(_CLOCK + TAKE_LUA + _OWNER)
        self._give_back = script(TAKE_LUA + _GIVE_BACK)
        self._all_quota = script(_CLOCK + _ALL)
        self._create = script(_COMMON + _CREATE)
        self._get = script(_COMMON + _GET)
        self._ask = script(_COMMON + _ASK)
        self._answer = script(_COMMON + _ANSWER)
        self._take = script(_COMMON + _TAKE)
        self._note = script(_COMMON + _NOTE)
        self._finish = script(_COMMON + _FINISH)
        self._renew = script(_COMMON + _RENEW)

    async def _run(self, operation: Callable[[], Awaitable[T]]) -> T:
        return await self.breaker.run(lambda: refusing(operation))

    async def _transition(self, script: Any, task_id: str, args: list[Any]) -> Any:
        """``script`` run on the task's key with ``args``, acknowledged by the replicas."""
        key = self.key(task_id)
        return await self._run(lambda: self._ack.eval(script, [key], args))

    def key(self, task_id: str) -> str:
        """The Redis key of the task ``task_id``."""
        return f"{self._prefix}task:{task_id}"

    async def create(
        self, record: Mapping[str, Any], lease: Lease, quota: TaskQuota | None = None
    ) -> None:
        ttl_ms = record.get("ttlMs")
        if not isinstance(ttl_ms, int) or ttl_ms < 1:
            raise ValueError("a Redis task record needs an integer ttlMs >= 1")
        base = {key: record[key] for key in _BASE_KEYS if key in record}
        version = int(record.get("version") or 1)
        task_id = record["taskId"]
        if quota is not None:
            await self._count(task_id, record.get("principal"), ttl_ms, quota)
        args = [encode(base), record["lastUpdatedAt"], lease.ms, lease.owner, ttl_ms, version]
        await self._transition(self._create, task_id, args)

    def _quota_keys(self, principal: Any) -> tuple[str, str]:
        """The owner's live set and creation bucket (one hash tag: one cluster slot)."""
        who = hashlib.sha256(encode(principal).encode()).hexdigest()[:32]
        return f"{self._prefix}tasks:{{{who}}}:live", f"{self._prefix}tasks:{{{who}}}:rate"

    async def _count(self, task_id: str, principal: Any, ttl_ms: int, quota: TaskQuota) -> None:
        """Take the task's place in its owner's quota, then in everyone's; or refuse."""
        live, made = self._quota_keys(principal)
        per_owner, max_live, per_window, window_ms = _limits(quota)
        args: list[str | int] = [task_id, ttl_ms, per_owner, per_window, window_ms]
        refused = await self._run(lambda: self._owner_quota(keys=[live, made], args=args))
        if not isinstance(refused, list) and max_live > 0:
            every = [self._prefix + "tasks:live"]
            held = int(refused) - 1  # the owner's live tasks before this one
            shared: list[str | int] = [task_id, ttl_ms, max_live, held, quota.crowded_per_owner]
            refused = await self._run(lambda: self._all_quota(keys=every, args=shared))
            if isinstance(refused, list):  # give the owner's place and token back
                rate = per_window * 1000 / window_ms
                back: list[str | float] = [task_id, rate, per_window]
                await self._run(lambda: self._give_back(keys=[live, made], args=back))
        if isinstance(refused, list):
            raise TaskQuotaExceeded(_text(refused[0]), int(refused[1]) / 1000)

    async def _ended(self, flat: Any) -> dict[str, Any] | None:
        """The record of ``flat``, a task that just ended: it leaves the quota's live sets."""
        record = _record(flat)
        if record is not None:
            live, _ = self._quota_keys(record.get("principal"))
            task_id = record["taskId"]

            async def leave() -> None:
                async with self._client.pipeline(transaction=False) as pipe:
                    pipe.zrem(live, task_id)
                    pipe.zrem(self._prefix + "tasks:live", task_id)
                    await pipe.execute()

            await self._run(leave)
        return record

    async def get(self, task_id: str, *, lost: Mapping[str, Any]) -> dict[str, Any] | None:
        message = str(lost.get("message", "lease lost"))
        args = [encode(dict(lost)), iso_now(), message]
        key = self.key(task_id)
        flat = await self._run(lambda: self._get(keys=[key], args=args))
        if flat and _text(flat[-2]) == "!ended":
            return await self._ended(flat[:-2])
        return _record(flat)

    async def owner(self, task_id: str) -> str | None:
        key = self.key(task_id)
        owner = await self._run(lambda: self._client.hget(key, "owner"))
        return None if owner is None else _text(owner)

    async def ask(
        self, task_id: str, requests: Mapping[str, Any], updated_at: str
    ) -> dict[str, Any] | None:
        args = [updated_at, *_pairs(requests)]
        return _record(await self._transition(self._ask, task_id, args))

    async def answer(
        self, task_id: str, responses: Mapping[str, Any], updated_at: str
    ) -> dict[str, Any] | None:
        args = [updated_at, *_pairs(responses)]
        return _record(await self._transition(self._answer, task_id, args))

    async def take_answers(self, task_id: str, keys: Iterable[str]) -> dict[str, Any]:
        wanted = list(keys)
        if not wanted:
            return {}
        key = self.key(task_id)
        flat = await self._run(lambda: self._take(keys=[key], args=wanted))
        return {_text(flat[i]): json.loads(flat[i + 1]) for i in range(0, len(flat), 2)}

    async def note(self, task_id: str, message: str, updated_at: str) -> dict[str, Any] | None:
        return _record(await self._transition(self._note, task_id, [message, updated_at]))

    async def finish(self, task_id: str, end: TaskEnd, updated_at: str) -> dict[str, Any] | None:
        args = [
            end.status,
            updated_at,
            "" if end.result is None else encode(dict(end.result)),
            "" if end.error is None else encode(dict(end.error)),
            end.message or "",
        ]
        return await self._ended(await self._transition(self._finish, task_id, args))

    async def renew(self, task_id: str, lease_ms: int) -> str | None:
        status = await self._transition(self._renew, task_id, [lease_ms])
        return None if status is None else _text(status)

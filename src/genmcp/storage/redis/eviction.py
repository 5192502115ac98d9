"""A start-up check: a Redis that evicts keys loses genmcp's data without an error.

Under ``maxmemory-policy allkeys-*`` or ``volatile-*`` a Redis at its ``maxmemory`` drops
keys to make room: 2025 sessions are then "Session not found" and finished tasks' results
gone, and no command ever failed (30 of 30 older sessions, 19 of 20 results, measured).
:func:`check_eviction` reads the policy when the Suite starts (``CONFIG GET``; a managed
Redis that forbids ``CONFIG``: the ``maxmemory_policy`` of ``INFO memory``) and refuses an
evicting one with ``EvictionRefused`` (the reason and the fix), unless
``RedisOptions(allow_eviction=True)`` says the loss is accepted. When neither command
answers, it warns once and lets the server start.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from redis.exceptions import RedisError

__all__ = ["EvictionRefused", "check_eviction", "evicts"]

log = logging.getLogger("genmcp")

_EVICTING: Final = ("allkeys-", "volatile-")
_warned: set[str] = set()  # once per process and Redis, whatever the brokers (tests/layout)


class EvictionRefused(RuntimeError):
    """The Redis genmcp would keep its state in evicts keys at its memory limit."""


def evicts(policy: str) -> bool:
    """Whether ``maxmemory-policy`` ``policy`` drops keys at the memory limit."""
    return policy.startswith(_EVICTING)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def _policy(client: Any) -> str | None:
    """The server's ``maxmemory-policy``; None when neither CONFIG nor INFO may be read."""
    try:
        found = await client.config_get("maxmemory-policy")
        if isinstance(found, dict):
            for name, value in found.items():  # a cluster client may prefix node names
                if _text(name).endswith("maxmemory-policy"):
                    return _text(value)
    except RedisError:
        pass  # a managed Redis often forbids CONFIG
    try:
        info = await client.info("memory")
    except RedisError:
        return None
    if isinstance(info, dict):
        if "maxmemory_policy" in info:
            return _text(info["maxmemory_policy"])
        for node in info.values():  # a cluster client: one section per node
            if isinstance(node, dict) and "maxmemory_policy" in node:
                return _text(node["maxmemory_policy"])
    return None


async def check_eviction(client: Any, *, allow: bool = False, where: str = "redis") -> str | None:
    """Refuse (``EvictionRefused``) a Redis whose policy evicts keys, unless ``allow``; the
    policy read (None, with a warning logged once per ``where``, when it cannot be read)."""
    policy = await _policy(client)
    if policy is None:
        if where not in _warned:
            _warned.add(where)
            log.warning(
                "%s: cannot read maxmemory-policy (CONFIG and INFO refused): make sure it is "
                "noeviction, or genmcp's sessions and task results may vanish silently",
                where,
            )
        return None
    if evicts(policy) and not allow:
        raise EvictionRefused(
            f"{where}: maxmemory-policy is {policy}: at its maxmemory this Redis drops keys "
            "silently, and genmcp's 2025 sessions and task results with them; set "
            "maxmemory-policy noeviction (writes are then refused with a 503 and retried), or "
            "give RedisOptions(allow_eviction=True) to accept the loss"
        )
    return policy

"""``mcp_router(redis_url=...)``: scale-out in one option, its parts built and closed for you.

Owns reading the URL (the ``redis_url=`` argument, else the ``GENMCP_REDIS_URL``
environment variable) and building ``storage.redis.RedisStores`` from it: one request-path
client made with ``RedisOptions`` (never redis-py's defaults), the ``RedisBroker`` (pub/sub,
worker mail, the shared catalog), the ``RedisSessionRegistry`` (2025 sessions), the
``RedisTaskStore`` (Tasks) and the ``RedisBuckets`` (every ``RateLimit`` of the Suite given
no store of its own: one budget for all the processes) on it, all under one key prefix. The
router wires that bundle in as it does any ``stores=``, and closes it in its lifespan, after
the Suite's calls and the legacy server's subscription ended.

The long form (building them yourself, ``Suite(broker=..., task_store=...)`` and
``legacy=LegacyServer(suite, registry=...)``) stays for those who need other options; the
two never mix (a ``TypeError`` says which to drop). Imports redis only when a URL is given
(the ``genmcp[redis]`` extra).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from genmcp.storage.redis import RedisOptions, RedisStores

__all__ = ["ENV_REDIS_URL", "redis_stores", "redis_url_of"]

ENV_REDIS_URL: Final = "GENMCP_REDIS_URL"
"""The environment variable ``mcp_router`` reads a Redis URL from (when not given one)."""

_LONG_FORM: Final = ("broker", "task_store")


def redis_url_of(given: str | None, *, own_suite: bool) -> str | None:
    """The Redis URL to scale out with: ``given``, else ``GENMCP_REDIS_URL`` (read only by a
    router that builds its own Suite: one given as ``suite=`` was configured already)."""
    if given is not None:
        if not given.strip():
            raise ValueError("redis_url= is empty: give redis://host:port/db or leave it out")
        return given
    if not own_suite:
        return None
    return os.environ.get(ENV_REDIS_URL, "").strip() or None


def parts_given(keywords: dict[str, Any], legacy: object) -> list[str]:
    """The storage parts given one by one (``broker=``, ``task_store=``, a ``LegacyServer``):
    what ``redis_url=`` and ``stores=`` give, so never with them."""
    given = [name for name in _LONG_FORM if keywords.get(name) is not None]
    if not isinstance(legacy, bool):
        given.append("legacy=LegacyServer(...)")
    return given


def refuse_long_form(keywords: dict[str, Any], legacy: object, suite: object) -> None:
    """A ``TypeError`` when ``redis_url`` comes with the parts it builds."""
    if suite is not None:
        raise TypeError(
            "redis_url= builds the Suite's broker and task store: give it without suite=..., "
            "or build the Redis parts yourself (docs/guides/scaling-out.md, the long form)"
        )
    given = parts_given(keywords, legacy)
    if given:
        raise TypeError(
            f"redis_url= builds the broker, session registry and task store: drop "
            f"{', '.join(given)}, or drop redis_url= (and unset {ENV_REDIS_URL})"
        )


def redis_stores(url: str, *, prefix: str, options: RedisOptions | None) -> RedisStores:
    """``RedisStores.from_url``: the bundle ``redis_url=`` passes on as ``stores=``; nothing
    connects before the first command (so this may run at import, in each worker process)."""
    try:
        from genmcp.storage.redis import RedisStores
    except ImportError as exc:
        raise ImportError(
            f"redis_url= (or {ENV_REDIS_URL}) needs the redis package: "
            "pip install 'genmcp[redis]'"
        ) from exc
    return RedisStores.from_url(url, prefix=prefix, options=options)

"""``mcp_router(redis_url=...)``: scale-out in one option, its parts built and closed for you.

Owns reading the URL (the ``redis_url=`` argument, else the ``GENMCP_REDIS_URL``
environment variable) and :class:`RedisStores`: one request-path client made with
``RedisOptions`` (never redis-py's defaults), the ``RedisBroker`` (pub/sub, worker mail,
the shared catalog), the ``RedisSessionRegistry`` (2025 sessions), the
``RedisTaskStore`` (Tasks) and the ``RedisBuckets`` (every ``RateLimit`` of the Suite given
no store of its own: one budget for all the processes) on it, all under one key prefix, and
their closing in the router's lifespan, after the Suite's calls and the legacy server's
subscription ended.

The long form (building them yourself, ``Suite(broker=..., task_store=...)`` and
``legacy=LegacyServer(suite, registry=...)``) stays for those who need other options; the
two never mix (a ``TypeError`` says which to drop). Imports redis only when a URL is given
(the ``genmcp[redis]`` extra).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from genmcp.middleware.ratelimit import RateLimit

if TYPE_CHECKING:
    from collections.abc import Iterable

    from genmcp.storage.redis import (
        RedisBroker,
        RedisBuckets,
        RedisOptions,
        RedisSessionRegistry,
        RedisTaskStore,
    )

__all__ = ["ENV_REDIS_URL", "RedisStores", "redis_url_of"]

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


def refuse_long_form(keywords: dict[str, Any], legacy: object, suite: object) -> None:
    """A ``TypeError`` when ``redis_url`` comes with the parts it builds."""
    if suite is not None:
        raise TypeError(
            "redis_url= builds the Suite's broker and task store: give it without suite=..., "
            "or build the Redis parts yourself (docs/guides/scaling-out.md, the long form)"
        )
    given = [name for name in _LONG_FORM if keywords.get(name) is not None]
    if not isinstance(legacy, bool):
        given.append("legacy=LegacyServer(...)")
    if given:
        raise TypeError(
            f"redis_url= builds the broker, session registry and task store: drop "
            f"{', '.join(given)}, or drop redis_url= (and unset {ENV_REDIS_URL})"
        )


@dataclass(slots=True)
class RedisStores:
    """The Redis parts of one process: one client, a broker, a registry, a task store and
    the rate limits' buckets."""

    client: Any
    broker: RedisBroker
    registry: RedisSessionRegistry
    task_store: RedisTaskStore
    buckets: RedisBuckets

    @classmethod
    def connect(cls, url: str, *, prefix: str, options: RedisOptions | None = None) -> RedisStores:
        """The parts for ``url``; nothing connects before the first command (so this may run
        at import, in each worker process: never before a fork)."""
        try:
            from genmcp.storage.redis import (
                RedisBroker,
                RedisBuckets,
                RedisOptions,
                RedisSessionRegistry,
                RedisTaskStore,
            )
        except ImportError as exc:
            raise ImportError(
                f"redis_url= (or {ENV_REDIS_URL}) needs the redis package: "
                "pip install 'genmcp[redis]'"
            ) from exc
        options = RedisOptions() if options is None else options
        client = options.client(url)
        return cls(
            client,
            RedisBroker(client, prefix=prefix, options=options),
            RedisSessionRegistry(client, prefix=prefix, options=options),
            RedisTaskStore(client, prefix=prefix),
            RedisBuckets(client, prefix=prefix, options=options),
        )

    def share_limits(self, middleware: Iterable[object]) -> None:
        """Every ``RateLimit`` of ``middleware`` given no store takes from these buckets."""
        for link in middleware:
            if isinstance(link, RateLimit):
                link.adopt(self.buckets)

    async def aclose(self) -> None:
        """End the broker's tasks, then close the client (the others borrow it)."""
        try:
            await self.broker.aclose()
            await self.registry.aclose()
            await self.task_store.aclose()
        finally:
            await self.client.aclose()

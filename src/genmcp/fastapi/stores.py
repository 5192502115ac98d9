"""The storage bundle ``mcp_router`` wires in: ``stores=`` as given, or the one ``redis_url=``
builds (``fastapi.redis_url``), through one path; a mix with what else gives storage is
refused first, with the fix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from genmcp.fastapi.redis_url import parts_given, redis_stores, redis_url_of, refuse_long_form
from genmcp.storage import Stores
from genmcp.suite import Suite

if TYPE_CHECKING:
    from genmcp.storage.redis import RedisOptions, RedisStores

__all__ = ["router_stores"]


def router_stores(
    stores: Stores | None,
    redis: tuple[str | None, str, RedisOptions | None],
    suite: Suite | None,
    keywords: dict[str, Any],
    legacy: object,
) -> tuple[Stores | None, RedisStores | None]:
    """The storage bundle the router wires in, and the one it built (and closes): ``stores``
    as given, else ``RedisStores`` for ``redis_url=`` (or ``GENMCP_REDIS_URL`` when the
    router builds its Suite): one path for both. Refuses a mix first."""
    url, prefix, options = redis
    if stores is not None:
        _refuse_with_stores(url, suite, keywords, legacy)
        return stores, None
    url = redis_url_of(url, own_suite=suite is None)
    if url is None:
        return None, None
    refuse_long_form(keywords, legacy, suite)
    owned = redis_stores(url, prefix=prefix, options=options)
    return owned, owned


def _refuse_with_stores(
    redis_url: str | None, suite: Suite | None, keywords: dict[str, Any], legacy: object
) -> None:
    """A ``TypeError`` saying the fix when ``stores=`` comes with what also gives storage."""
    if redis_url is not None:
        raise TypeError(
            "give stores= or redis_url=, not both: redis_url= builds RedisStores and passes "
            "them as stores= (stores=RedisStores.from_url(url) to build them yourself)"
        )
    if suite is not None:
        raise TypeError(
            "stores= wires the broker and task store into the Suite the router builds: give "
            "it without suite=..., or build the Suite with Suite(broker=stores.broker, "
            "task_store=stores.tasks) and the legacy server with LegacyServer(suite, "
            "registry=stores.registry)"
        )
    given = parts_given(keywords, legacy)
    if given:
        raise TypeError(
            f"stores= gives the broker, session registry and task store: drop "
            f"{', '.join(given)}, or drop stores="
        )

"""The response cache around a client's requests (``Client(cache=...)``): which requests it
may answer or keep, and the read-through itself (the cache's rules: ``client.cache``).

Only a cacheable method's first send goes through it: not the retry of an input round, and
never to a 2025 session (its results carry no ``ttlMs``/``cacheScope`` hints).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from genmcp.client.cache import CACHEABLE, CacheStore, ResponseCache
from genmcp.client.connection import Connection

__all__ = ["cacheable", "read_through", "response_cache"]


def response_cache(
    cache: bool | CacheStore, connection: Connection, url: str, token: Any, principal: str | None
) -> ResponseCache | None:
    """The client's cache (None when ``cache`` is False), told of the connection's change
    notifications; a kept ``server/discover`` then answers the probe. A string ``token``
    names the principal unless ``principal`` does."""
    if cache is False:
        return None
    if principal is None and isinstance(token, str):
        principal = "token\n" + token
    kept = ResponseCache(None if cache is True else cache, url, principal=principal)
    connection.add_listener(kept.notified)
    connection.cache = kept
    return kept


async def cacheable(
    cache: ResponseCache | None,
    connection: Connection,
    method: str,
    params: Mapping[str, Any] | None,
) -> bool:
    """True when the cache may answer or keep this request: a cacheable method, not the
    retry of an input round, to a 2026-07-28 server (a 2025 session's results carry no
    hints)."""
    if cache is None or method not in CACHEABLE:
        return False
    if params and ("inputResponses" in params or "requestState" in params):
        return False
    await connection.ensure_era()
    return connection.session is None


async def read_through(
    cache: ResponseCache,
    method: str,
    params: Mapping[str, Any] | None,
    fetch: Callable[[], Awaitable[Any]],
) -> Any:
    """The kept result of the request, else ``fetch()``'s, kept when the cache allows."""
    body = params or {}
    found, generation = await cache.get(method, body)
    if found is not None:
        return found
    result = await fetch()
    if generation is not None:
        await cache.put(method, body, result, generation)
    return result

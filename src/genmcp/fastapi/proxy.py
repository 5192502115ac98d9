"""``mcp_router(proxy=URL)``: a remote MCP server served as the router's own, and the response
cache its remote mounts share across a gateway's processes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from genmcp.client.limits import ClientLimits
from genmcp.compose import Mount
from genmcp.storage import Stores, WithCache
from genmcp.suite import Suite

if TYPE_CHECKING:
    from genmcp.client.cache import CacheStore

__all__ = ["add_proxy", "share_cache"]


def add_proxy(
    proxy: str | None,
    options: tuple[ClientLimits | None, float, bool | CacheStore | None],
    suite: Suite | None,
    keywords: dict[str, Any],
) -> bool:
    """Add ``proxy``'s upstream to the mounts of the Suite the router builds (True), or
    refuse the proxy options (limits, timeout, cache) without ``proxy=`` (False when there
    is no proxy)."""
    limits, timeout_s, cache = options
    if proxy is None:
        if limits is not None or timeout_s != 10.0 or cache is not None:
            raise TypeError(
                "proxy_limits, proxy_timeout_s and proxy_cache configure the upstream of "
                "proxy=URL: give proxy= too (or a Mount(url=..., limits=, timeout_s=, cache=) "
                "in mounts=)"
            )
        return False
    if suite is not None:
        raise TypeError("mcp_router(proxy=URL) builds its own Suite: give no suite=")
    upstream = Mount(url=proxy, resources=True, limits=limits, timeout_s=timeout_s, cache=cache)
    keywords["mounts"] = [*keywords.pop("mounts", ()), upstream]
    return True


def share_cache(stores: Stores | None, keywords: dict[str, Any]) -> None:
    """Give the stores' response cache (``WithCache``: ``RedisStores.cache``; a bundle without
    one: none) to every remote mount of ``mounts=`` left at its default cache: a gateway's
    processes then share their upstreams' answers (and one process's invalidation empties
    them all)."""
    shared = stores.cache if isinstance(stores, WithCache) else None
    if shared is None:
        return
    mounts = keywords["mounts"] = list(keywords.get("mounts", ()))  # an iterable, once
    for mount in mounts:
        if isinstance(mount, Mount):
            mount.share_cache(shared)

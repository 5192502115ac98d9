"""Listing every item of a list method: ``nextCursor`` followed to the last page, held to the
client's bounds (``ClientLimits``: the pages, the items, one deadline for them all).

A page comes through the client's own request (its cache, its retries); a cached page whose
cursor the server no longer takes restarts the listing afresh (SEP-2549).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

from genmcp.client.cache import ResponseCache
from genmcp.client.errors import ListingTooLong, RPCError
from genmcp.client.limits import ClientLimits, within

__all__ = ["Page", "every_item"]


Page: TypeAlias = Callable[..., Awaitable[dict[str, Any]]]
"""``Client.page``: ``page(method, cursor, cache=...)``, one page (``nextCursor`` in it)."""


async def every_item(
    page: Page,
    method: str,
    key: str,
    limits: ClientLimits,
    url: str,
    cache: ResponseCache | None,
) -> list[dict[str, Any]]:
    """The items under ``key`` of every page of ``method``, under one deadline; pages read
    through ``cache`` (None: asked afresh) are asked afresh once when the server refuses a
    cursor the cache gave."""
    async with within(limits.deadline_s, url, f"{method} (every page)"):
        hits = None if cache is None else cache.hits
        try:
            return await _pages(page, method, key, limits, url, cache=cache is not None)
        except RPCError:
            if cache is None or cache.hits == hits:
                raise
        # a cached page's cursor the server no longer takes: every page afresh (SEP-2549)
        return await _pages(page, method, key, limits, url, cache=False)


async def _pages(
    page: Page, method: str, key: str, limits: ClientLimits, url: str, *, cache: bool
) -> list[dict[str, Any]]:
    """The pages of :func:`every_item`, followed under its deadline."""
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(limits.max_pages):
        found = await page(method, cursor, cache=cache)
        listed = found.get(key) or []
        if len(items) + len(listed) > limits.max_items:
            raise ListingTooLong(
                f"{url} listed more than the client's {limits.max_items} items "
                f"in {method} (ClientLimits(max_items=...) changes it)",
                "max_items",
                limits.max_items,
            )
        items.extend(listed)
        cursor = found.get("nextCursor")
        if not isinstance(cursor, str) or cursor in seen:
            return items
        seen.add(cursor)
    raise ListingTooLong(
        f"{url} had more than the client's {limits.max_pages} pages in {method}: "
        "its nextCursor never ends (ClientLimits(max_pages=...) changes it)",
        "max_pages",
        limits.max_pages,
    )

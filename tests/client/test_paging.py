"""client.paging: every page of a listing, held to the client's bounds, on loopback servers.

A listing whose ``nextCursor`` never ends stops at ``max_pages``, one too long at
``max_items`` (the misbehaving `support.rogue`); one deadline covers every page together;
and a cached page whose cursor the server no longer takes restarts the listing afresh
(SEP-2549: a genmcp server on one Redis cache that evicted a page).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from genmcp import Suite, mcp_app, tool
from genmcp.client import Client, ClientLimits, DeadlineExceeded, ListingTooLong
from genmcp.storage.redis import RedisCacheStore
from support.recorder import Recorder
from support.rogue import Rogue, endless_pages
from support.server import LiveServers


async def test_an_endless_listing_stops_at_max_pages(live_server: LiveServers) -> None:
    rogue = Rogue(tools_list=endless_pages)
    url = live_server(rogue) + "/mcp"
    async with Client(url, limits=ClientLimits(max_pages=25)) as client:
        with pytest.raises(ListingTooLong) as raised:
            await client.list_tools()
    assert raised.value.limit == "max_pages" and rogue.pages == 25
    assert "nextCursor never ends" in str(raised.value)


async def test_a_listing_stops_at_max_items(live_server: LiveServers) -> None:
    rogue = Rogue(tools_list=endless_pages)
    url = live_server(rogue) + "/mcp"
    async with Client(url, limits=ClientLimits(max_items=7)) as client:
        with pytest.raises(ListingTooLong) as raised:
            await client.list_tools()
    assert (raised.value.limit, raised.value.value, rogue.pages) == ("max_items", 7, 8)


async def test_the_deadline_covers_every_page_of_a_listing(live_server: LiveServers) -> None:
    async def slow_pages(rogue: Rogue, request: dict[str, Any]) -> Any:
        await asyncio.sleep(0.1)
        async for chunk in endless_pages(rogue, request):
            yield chunk

    rogue = Rogue(tools_list=slow_pages)
    url = live_server(rogue) + "/mcp"
    async with Client(url, limits=ClientLimits(deadline_s=0.5)) as client:
        with pytest.raises(DeadlineExceeded, match=r"tools/list \(every page\)"):
            await client.list_tools()
    assert 0 < rogue.pages < 1000  # each page in time, the listing as a whole not


async def test_a_cached_page_whose_cursor_went_stale_lists_afresh(
    live_server: LiveServers, redis_url: str, redis_prefix: str
) -> None:
    from redis import asyncio as aioredis

    tools = []
    for name in ("a", "b"):

        @tool(name=name, cache_control=("public", 60_000))
        def echo(text: str) -> str:
            """Echo the text."""
            return text

        tools.append(echo)
    suite = Suite(server_name="paged", server_version="1", tools=tools, page_size=1)
    recorder = Recorder(mcp_app(suite, path="/mcp"))
    url = live_server(recorder) + "/mcp"
    server = live_server.last
    store = RedisCacheStore.from_url(redis_url, prefix=redis_prefix)
    raw = aioredis.Redis.from_url(redis_url)

    async def grow() -> None:  # on the server's loop; the client does not listen
        suite.add_tool(tool(lambda: "c", name="c"))

    try:
        async with Client(url, cache=store) as client:
            assert client.cache is not None
            assert [t["name"] for t in await client.list_tools()] == ["a", "b"]
            first = "public:" + client.cache.request_key("tools/list", {})
            keys = [k.decode() async for k in raw.scan_iter(match=redis_prefix + "*")]
            pages = [k for k in keys if ":tools:" in k]  # not the kept server/discover
            later = [k for k in pages if not k.endswith((":gen", first))]
            assert len(later) == 1
            await raw.delete(*later)  # Redis evicted the second page, kept the first
            await server.run_in_loop(grow())
            assert [t["name"] for t in await client.list_tools()] == ["a", "b", "c"]
        # 2 pages; then page 1 under the cached page 0's cursor (refused), then 3 afresh
        assert len(recorder.posts("tools/list")) == 6
    finally:
        await raw.aclose()
        await store.aclose()

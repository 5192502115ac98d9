"""A gateway's upstream response cache: proxy mode (``mcp_router(proxy=URL)``) in front of
an upstream whose answers may be kept a minute, over real HTTP. Repeated resource lists and
reads reach the upstream once; a resource added upstream (``list_changed``) is listed at
once all the same; ``Mount(cache=False)`` asks every time."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from genmcp import Mount, StaticResource, Suite, mcp_app, mcp_router, tool
from genmcp.client import Client
from support.recorder import Recorder
from support.server import LiveServers

HINT: Any = ("public", 60_000)


def upstream(live_server: LiveServers) -> tuple[str, Recorder, Suite]:
    @tool(cache_control=HINT)
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    page = StaticResource("docs://page", "page", text="v1", cache_control=HINT)
    suite = Suite(server_name="up", server_version="1", tools=[echo], resources=[page])
    recorder = Recorder(mcp_app(suite, path="/mcp"))
    return live_server(recorder) + "/mcp", recorder, suite


def gateway(live_server: LiveServers, url: str, cache: bool) -> str:
    if cache:
        router = mcp_router(proxy=url)
    else:
        mount = Mount(url=url, resources=True, cache=False)
        router = mcp_router(mounts=[mount], server_name="gw", server_version="1")
    from fastapi import FastAPI

    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return live_server(app) + "/mcp"


async def until(check: Any) -> None:
    """Wait for ``check()`` (a hang guard of 30 s: an event the gateway acts on later)."""
    async with asyncio.timeout(30):
        while not await check():  # noqa: ASYNC110 (the gateway re-lists on its own: no event)
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
async def test_repeated_lists_and_reads_reach_the_upstream_once(
    live_server: LiveServers, cache: bool
) -> None:
    url, recorder, suite = upstream(live_server)
    outer = gateway(live_server, url, cache)
    loop = live_server.started[0].loop
    async with Client(outer) as client:
        before = {m: len(recorder.posts(m)) for m in ("resources/list", "resources/read")}
        for _ in range(5):
            assert [r["uri"] for r in await client.list_resources()] == ["docs://page"]
            read = await client.read_resource("docs://page")
            assert read["contents"][0]["text"] == "v1"
        asked = {m: len(recorder.posts(m)) - before[m] for m in before}
        assert asked == ({"resources/list": 1, "resources/read": 1} if cache
                         else {"resources/list": 5, "resources/read": 5})  # fmt: skip

        added = StaticResource("docs://new", "new", text="n", cache_control=HINT)
        loop.call_soon_threadsafe(suite.add_resource, added)

        async def listed() -> bool:
            return "docs://new" in {r["uri"] for r in await client.list_resources()}

        await until(listed)  # the upstream's list_changed emptied the gateway's entry

"""Client(cache=...): SEP-2549's ttlMs/cacheScope honoured, against real uvicorn servers.

Two client processes on one Redis share a public listing and, only for the same principal,
a private one; a ``list_changed`` one client hears empties the shared entries; ``cache=False``
bypasses; a 2025 session is never cached. The server's requests are counted by a recorder.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import pytest

from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result, mcp_app, tool
from genmcp.client import Client
from genmcp.client.cache import MemoryCacheStore, ResponseCache
from genmcp.storage.redis import RedisCacheStore
from support.recorder import Recorder
from support.server import LiveServers

PROCESS: Final = Path(__file__).parent.parent / "support" / "cache_process.py"


def served(live_server: LiveServers, scope: str, ttl_ms: int = 60_000) -> tuple[str, Recorder]:
    @tool(cache_control=(scope, ttl_ms))
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    suite = Suite(server_name="cached", server_version="1", tools=[add])
    recorder = Recorder(mcp_app(suite, path="/mcp"))
    return live_server(recorder) + "/mcp", recorder


def in_process(redis_url: str, prefix: str, token: str, *urls: str) -> list[dict[str, Any]]:
    """Run one client process listing each of ``urls``; what it saw of each."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, str(PROCESS), redis_url, prefix, token, *urls],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


# (token of each process in turn, whether its listing was a hit: public, private)
PROCESSES: Final = [("alice", False, False), ("bob", True, False), ("alice", True, True)]


def test_two_processes_on_one_redis_share_by_scope(
    live_server: LiveServers, redis_url: str, redis_prefix: str
) -> None:
    public, public_seen = served(live_server, "public")
    private, private_seen = served(live_server, "private")
    for token, *hits in PROCESSES:
        before = [len(seen.posts("tools/list")) for seen in (public_seen, private_seen)]
        found = in_process(redis_url, redis_prefix, token, public, private)
        for scope, seen, answer, hit, count in zip(
            ("public", "private"), (public_seen, private_seen), found, hits, before, strict=True
        ):
            assert answer["tools"] == ["add"]
            assert (answer["hits"], answer["misses"]) == ((1, 0) if hit else (0, 1)), (token, scope)
            assert len(seen.posts("tools/list")) == count + (0 if hit else 1), (token, scope)


async def test_list_changed_empties_every_client_s_view_of_the_store(
    live_server: LiveServers, redis_url: str, redis_prefix: str
) -> None:
    @tool(cache_control=("public", 60_000))
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    class Grow(
        Tool, name="grow", input_schema={"type": "object"}, cache_control=("public", 60_000)
    ):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
            arg.add_tool(tool(lambda: "new", name="newcomer"))
            return Result(call_tool_result(text="grown"))

    suite = Suite(server_name="cached", server_version="1", tools=[add])
    suite.add_tool((Grow, suite))
    recorder = Recorder(mcp_app(suite, path="/mcp"))
    url = live_server(recorder) + "/mcp"
    store = RedisCacheStore.from_url(redis_url, prefix=redis_prefix)
    try:
        async with Client(url, cache=store) as listener, Client(url, cache=store) as other:
            assert {t["name"] for t in await other.list_tools()} == {"add", "grow"}
            assert {t["name"] for t in await listener.list_tools()} == {"add", "grow"}
            assert len(recorder.posts("tools/list")) == 1  # the listener's was a hit
            async with listener.listen(prompts=False, resources=False) as changes:
                await listener.call_tool("grow", {})
                note = await asyncio.wait_for(anext(changes), 30)
            assert note["method"] == "notifications/tools/list_changed"
            names = {t["name"] for t in await other.list_tools()}  # the other never listened
            assert names == {"add", "grow", "newcomer"}
            assert len(recorder.posts("tools/list")) == 2
            assert other.cache is not None and (other.cache.hits, other.cache.misses) == (0, 2)
    finally:
        await store.aclose()


async def test_a_resource_update_empties_that_resource_s_reads(live_server: LiveServers) -> None:
    from genmcp import StaticResource

    page = StaticResource("docs://page", "page", text="v1", cache_control=("public", 60_000))
    other = StaticResource("docs://other", "other", text="o", cache_control=("public", 60_000))
    suite = Suite(server_name="cached", server_version="1", resources=[page, other])
    recorder = Recorder(mcp_app(suite, path="/mcp"))
    url = live_server(recorder) + "/mcp"
    loop = live_server.last.loop
    async with Client(url, cache=True) as client:
        await client.read_resource("docs://page")
        await client.read_resource("docs://other")
        async with client.listen(
            tools=False, prompts=False, resources=False, uris=["docs://page"]
        ) as updates:
            loop.call_soon_threadsafe(suite.resource_updated, "docs://page")
            await asyncio.wait_for(anext(updates), 30)
        await client.read_resource("docs://page")  # emptied: asked again
        await client.read_resource("docs://other")  # kept
    assert [e.body["params"]["uri"] for e in recorder.posts("resources/read")] == [
        "docs://page", "docs://other", "docs://page",
    ]  # fmt: skip


async def test_the_memory_store_is_bounded() -> None:
    store = MemoryCacheStore(max_entries=2)
    for key in ("a", "b", "c"):
        await store.store("s", "tools", key, key, 60_000)
    assert len(store) == 2
    assert await store.lookup("s", "tools", "a", "c") == (0, None, "c")


async def test_a_foreign_value_under_an_entry_s_key_is_a_miss() -> None:
    store = MemoryCacheStore()
    cache = ResponseCache(store, "http://s/mcp")
    key = "public:" + cache.request_key("tools/list", {})
    for foreign in ("not json", "[1]", '{"generation": 0, "result": 3}'):
        await store.store(cache.space, "tools", key, foreign, 60_000)
        assert await cache.get("tools/list", {}) == (None, 0)
    assert (cache.hits, cache.misses) == (0, 3)


async def test_an_entry_over_max_entry_bytes_is_not_kept() -> None:
    store = MemoryCacheStore()
    cache = ResponseCache(store, "http://s/mcp", max_entry_bytes=200)
    small = {"tools": [], "ttlMs": 60_000, "cacheScope": "public"}
    large = {**small, "tools": [{"name": "x" * 300}]}
    await cache.put("tools/list", {}, large, 0)
    assert len(store) == 0
    await cache.put("tools/list", {}, small, 0)
    assert len(store) == 1


@pytest.mark.parametrize(
    ("hint", "probes"), [(("public", 60_000), 1), (("private", 60_000), 2), (("public", 0), 2)]
)
async def test_a_kept_server_discover_answers_the_next_client_s_probe(
    live_server: LiveServers, hint: Any, probes: int
) -> None:
    @tool(cache_control=("public", 60_000))
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    suite = Suite(server_name="probed", server_version="1", tools=[add],
                  discover_cache_control=hint)  # fmt: skip
    recorder = Recorder(mcp_app(suite, path="/mcp"))
    url = live_server(recorder) + "/mcp"
    store = MemoryCacheStore()
    found = []
    for token in ("alice", "bob"):  # two principals, one store
        async with Client(url, cache=store, token=token) as client:
            assert [t["name"] for t in await client.list_tools()] == ["add"]
            assert client.cache is not None
            found.append((client.era, client.server_info["name"], client.cache.hits))
    assert found == [("2026-07-28", "probed", 0), ("2026-07-28", "probed", 1)]  # tools/list
    assert len(recorder.posts("server/discover")) == probes

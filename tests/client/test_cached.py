"""client.cached: which requests the response cache may answer or keep.

Against a real server: ``cache=False`` asks the server, a 2025 session is never cached, and
a zero ``ttlMs`` keeps nothing. Without a server (no request is sent): a method outside
SEP-2549's list, the retry of an input round, and a client without a cache never go through
it; a string token names the principal private entries belong to.
"""

from __future__ import annotations

from genmcp.client import Client
from genmcp.client.cache import MemoryCacheStore
from genmcp.client.cached import cacheable
from support.server import LiveServers
from tests.client.test_cache import served

DEAD: str = "http://127.0.0.1:9/mcp"
"""A URL nothing answers at: the checks below decide before any request."""


async def test_bypass_zero_ttl_and_2025_sessions_ask_the_server(live_server: LiveServers) -> None:
    url, recorder = served(live_server, "public")
    async with Client(url, cache=MemoryCacheStore(max_entries=8)) as client:
        await client.list_tools()
        await client.list_tools()
        await client.list_tools(cache=False)
        assert client.cache is not None and client.cache.hits == 1
    assert len(recorder.posts("tools/list")) == 2
    async with Client(url, cache=True, protocol="2025-11-25") as legacy:
        await legacy.list_tools()
        await legacy.list_tools()
    assert len(recorder.posts("tools/list")) == 4
    uncached, counted = served(live_server, "public", ttl_ms=0)
    async with Client(uncached, cache=True) as client:
        await client.list_tools()
        await client.list_tools()
    assert len(counted.posts("tools/list")) == 2


async def test_a_round_retry_and_an_uncacheable_method_are_never_the_cache_s() -> None:
    async with Client(DEAD, cache=True) as client:
        assert client.cache is not None
        for method, params in [
            ("tools/call", {"name": "add"}),
            ("resources/read", {"uri": "a://b", "requestState": "s"}),
            ("resources/read", {"uri": "a://b", "inputResponses": {}}),
        ]:
            assert not await cacheable(client.cache, client.connection, method, params)
    async with Client(DEAD) as uncached:
        assert uncached.cache is None
        assert not await cacheable(None, uncached.connection, "tools/list", {})


async def test_a_string_token_names_the_principal_unless_one_is_given() -> None:
    async with (
        Client(DEAD, token="t", cache=True) as alice,
        Client(DEAD, token="t", cache=True) as again,
    ):
        assert alice.cache is not None and again.cache is not None
        assert alice.cache.partition == again.cache.partition
    async with Client(DEAD, token="t", cache=True, cache_principal="bob") as bob:
        assert bob.cache is not None and bob.cache.partition != alice.cache.partition
    async with Client(DEAD, cache=True) as first, Client(DEAD, cache=True) as second:
        assert first.cache is not None and second.cache is not None
        assert first.cache.partition != second.cache.partition  # each client's own

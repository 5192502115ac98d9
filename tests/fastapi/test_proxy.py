"""``mcp_router(proxy=URL, proxy_limits=..., proxy_timeout_s=..., proxy_cache=...)``
(``fastapi/proxy.py``): the gateway's upstream bounds are the user's to set (issue 48: before,
a proxy had only the client's defaults), and so is its response cache (issue 53): two
gateways given one Redis (``redis_url=``, by default; or one ``RedisCacheStore`` as
``proxy_cache=``) ask their upstream once for a page either was asked for;
``proxy_cache=False`` or no Redis, once each.

Real processes' worth of parts on loopback: the upstream is `support.rogue` (a 5 MiB answer,
or an answer that drips forever) under its own uvicorn server, the gateway another, and a
real `genmcp.Client` calls through it. The same upstream answer passes with the defaults and
is a JSON-RPC error naming the bound with a tighter one; the gateway keeps serving (the
example of docs guides/composition.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

from genmcp import StaticResource, Suite, mcp_app, mcp_router
from genmcp.client import Client, ClientLimits, RPCError
from genmcp.client.cache import MemoryCacheStore
from genmcp.client.limits import MIB
from genmcp.compose import Mount
from genmcp.fastapi.proxy import share_cache
from genmcp.storage.memory import MemoryStores
from genmcp.storage.redis import RedisCacheStore
from support.recorder import Recorder
from support.rogue import Rogue, drip, huge_json
from support.server import LiveServers


def gateway_app(upstream: str, **bounds: Any) -> FastAPI:
    app = FastAPI()
    app.include_router(mcp_router(proxy=upstream, **bounds), prefix="/mcp")
    return app


async def test_the_default_bounds_relay_an_answer_a_tighter_proxy_limit_refuses(
    live_server: LiveServers,
) -> None:
    upstream = live_server(Rogue(call=huge_json(2 * MIB))) + "/mcp"
    roomy = live_server(gateway_app(upstream)) + "/mcp"
    tight = live_server(gateway_app(upstream, proxy_limits=ClientLimits(max_message_bytes=MIB)))
    async with Client(roomy) as client:
        relayed = await client.call_tool("big")
    async with Client(tight + "/mcp") as client:
        with pytest.raises(RPCError) as raised:
            await client.call_tool("big")
        listed = [tool["name"] for tool in await client.list_tools()]
    assert len(relayed["content"][0]["text"]) >= 2 * MIB  # the defaults: 32 MiB
    assert raised.value.data == {"upstream": upstream, "limit": "max_message_bytes"}
    assert raised.value.message.startswith(f"upstream {upstream} is unavailable: ")
    assert listed == ["big"]  # the gateway still serves


async def test_a_proxy_deadline_ends_a_call_the_upstream_never_finishes(
    live_server: LiveServers,
) -> None:
    upstream = live_server(Rogue(call=drip)) + "/mcp"
    limits = ClientLimits(deadline_s=0.5)
    gateway = live_server(gateway_app(upstream, proxy_limits=limits, proxy_timeout_s=30)) + "/mcp"
    async with Client(gateway, limits=ClientLimits(deadline_s=120)) as client:
        with pytest.raises(RPCError) as raised:
            await client.call_tool("big")
    assert (raised.value.code, raised.value.data) == (-32001, {"upstream": upstream,
                                                               "limit": "deadline_s"})  # fmt: skip


@pytest.mark.parametrize(
    "option", [{"proxy_limits": ClientLimits()}, {"proxy_timeout_s": 5}, {"proxy_cache": False}]
)
def test_proxy_options_without_a_proxy_are_refused(option: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match="proxy_limits, proxy_timeout_s and proxy_cache"):
        mcp_router(server_name="s", server_version="1", **option)


def page_upstream(live_server: LiveServers) -> tuple[str, Recorder]:
    page = StaticResource("docs://page", "page", text="v1", cache_control=("public", 60_000))
    suite = Suite(server_name="up", server_version="1", resources=[page])
    recorder = Recorder(mcp_app(suite, path="/mcp"))
    return live_server(recorder) + "/mcp", recorder


@pytest.mark.parametrize(
    ("config", "reads"),
    [("redis_url", 1), ("redis_url, proxy_cache=False", 2), ("proxy_cache=store", 1),
     ("no redis", 2)],
)  # fmt: skip
async def test_two_gateways_share_the_upstream_answers_through_redis(
    live_server: LiveServers, redis_url: str, redis_prefix: str, config: str, reads: int
) -> None:
    upstream, recorder = page_upstream(live_server)
    # a store per gateway (each serves on its own loop), on one Redis and one prefix
    stores = [RedisCacheStore.from_url(redis_url, prefix=redis_prefix + "own:") for _ in "ab"]
    gateways = []
    for store in stores:
        options: dict[str, Any] = {
            "redis_url": {"redis_url": redis_url, "redis_prefix": redis_prefix},
            "redis_url, proxy_cache=False": {"redis_url": redis_url, "redis_prefix": redis_prefix,
                                             "proxy_cache": False},
            "proxy_cache=store": {"proxy_cache": store},
            "no redis": {},
        }[config]  # fmt: skip
        gateways.append(live_server.start(gateway_app(upstream, **options)))
    before = len(recorder.posts("resources/read"))
    for gateway in gateways:
        async with Client(gateway.url + "/mcp") as client:
            read = await client.read_resource("docs://page")
            assert read["contents"][0]["text"] == "v1"
    for gateway, store in zip(gateways, stores, strict=True):  # on the loop that used it
        await gateway.run_in_loop(store.aclose())
    assert len(recorder.posts("resources/read")) - before == reads


class CachedStores(MemoryStores):
    """Another backend's bundle that carries a response cache (``WithCache``)."""

    __slots__ = ("cache",)

    def __init__(self, cache: MemoryCacheStore) -> None:
        super().__init__()
        self.cache = cache


def test_the_stores_cache_goes_to_remote_mounts_a_bundle_without_one_changes_nothing() -> None:
    url, shared = "http://127.0.0.1:1/mcp", MemoryCacheStore()
    for stores, expected in ((CachedStores(shared), True), (MemoryStores(), False), (None, False)):
        keywords: dict[str, Any] = {"mounts": (Mount(url=url),)}
        share_cache(stores, keywords)
        (mount,) = keywords["mounts"]
        assert mount.upstream is not None and mount.upstream.client.cache is not None
        assert (mount.upstream.client.cache.store is shared) is expected

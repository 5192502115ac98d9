"""``HTTPUpstream`` over real servers: auth per upstream, the breaker, timeouts, the pool."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from genmcp import OpenAPI, Suite
from genmcp.caller import Caller
from genmcp.fastapi.router import mcp_app
from genmcp.openapi import HTTPUpstream, openapi_tools
from support import inventory
from support.client import ModernClient
from support.server import LiveServers


@pytest.fixture(scope="module")
def api(live: LiveServers) -> Iterator[tuple[str, inventory.State]]:
    app, state = inventory.make_app()
    yield live(app), state


def gateway(live_server: LiveServers, api_url: str, **options: Any) -> str:
    mount = OpenAPI(inventory.SPEC, base_url=api_url, **options)
    return live_server(mcp_app(Suite(server_name="gw", server_version="1", mounts=[mount])))


async def call(base: str, name: str, headers: dict[str, str] | None = None) -> Any:
    async with ModernClient(base, headers=headers) as mcp:
        return await mcp.request("tools/call", {"name": name, "arguments": {}})


def echoed(reply: Any) -> dict[str, Any]:
    return dict(json.loads(json.dumps(reply.result["structuredContent"]
                                      if "structuredContent" in reply.result
                                      else json.loads(reply.result["content"][0]["text"]))))


async def test_no_rule_sends_nothing_whatever_the_caller_carries(
    api: tuple[str, inventory.State], live_server: LiveServers
) -> None:
    base = gateway(live_server, api[0], operations=["whoAmI"])
    reply = await call(base, "whoAmI", {"Authorization": "Bearer the-callers"})
    assert echoed(reply) == {"authorization": None, "api_key": None}


async def test_configured_credentials_are_sent_and_the_bearer_is_not(
    api: tuple[str, inventory.State], live_server: LiveServers
) -> None:
    base = gateway(live_server, api[0], operations=["whoAmI"],
                   credentials={"X-Api-Key": "server-held"})
    reply = await call(base, "whoAmI", {"Authorization": "Bearer the-callers"})
    assert echoed(reply) == {"authorization": None, "api_key": "server-held"}


async def test_forward_bearer_passes_a_bearer_only(
    api: tuple[str, inventory.State], live_server: LiveServers
) -> None:
    base = gateway(live_server, api[0], operations=["whoAmI"], forward_bearer=True,
                   credentials={"X-Api-Key": "fallback"})
    bearer = await call(base, "whoAmI", {"Authorization": "Bearer the-callers"})
    basic = await call(base, "whoAmI", {"Authorization": "Basic dXNlcjpwdw=="})
    assert echoed(bearer) == {"authorization": "Bearer the-callers", "api_key": None}
    assert echoed(basic) == {"authorization": None, "api_key": "fallback"}


def test_credentials_may_be_made_from_the_caller() -> None:
    upstream = HTTPUpstream("http://x", credentials=lambda c: {"X-Tenant": c.tenant or "-"})
    caller = Caller({"tenant": "acme"}, None, "acme")
    assert upstream.auth_headers(caller, "Bearer ignored") == [("X-Tenant", "acme")]


async def test_the_breaker_opens_after_failures_and_stops_calling(
    api: tuple[str, inventory.State], live_server: LiveServers
) -> None:
    base = gateway(live_server, api[0], operations=["boom"], failures=2, cooldown_s=3600)
    before = api[1].hits
    replies = [await call(base, "boom") for _ in range(4)]
    assert [r.error["code"] for r in replies] == [-32603] * 4
    assert api[1].hits - before == 2  # the last two were refused without a request
    assert "failed 2 times in a row" in replies[3].error["message"]


async def test_a_timeout_is_the_upstream_down(
    api: tuple[str, inventory.State], live_server: LiveServers
) -> None:
    base = gateway(live_server, api[0], operations=["slow"], timeout_s=0.2)
    api[1].release.clear()
    try:
        reply = await call(base, "slow")
    finally:
        api[1].release.set()
    assert reply.error["code"] == -32603
    assert "no answer within 0.2 s" in reply.error["message"]


async def test_a_refused_connection_is_the_upstream_down(live_server: LiveServers) -> None:
    dead = LiveServers()
    url = dead(inventory.make_app()[0])
    dead.stop_all()
    base = gateway(live_server, url, operations=["boom"])
    reply = await call(base, "boom")
    assert reply.error["code"] == -32603 and reply.error["data"] == {"upstream": url}


async def test_a_response_over_the_cap_is_an_error_result(
    api: tuple[str, inventory.State]
) -> None:
    (tool,) = openapi_tools(inventory.SPEC, base_url=api[0], operations=["listItems"],
                            max_response_bytes=10)
    upstream = tool.operation.upstream
    try:
        reply = await upstream.send("GET", "/v1/items", query=[], headers=[])
    finally:
        await upstream.aclose()
    assert reply.too_large and reply.status == 200


async def test_one_pool_serves_every_call_of_a_loop(api: tuple[str, inventory.State]) -> None:
    tools = openapi_tools(inventory.SPEC, base_url=api[0], tags=["items"])
    upstream = tools[0].operation.upstream
    try:
        for _ in range(3):
            await upstream.send("GET", "/v1/items/1", query=[], headers=[])
        assert upstream.pools == 1 and upstream.client() is upstream.client()
    finally:
        await upstream.aclose()
    assert upstream.pools == 0

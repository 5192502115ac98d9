"""``mcp_router(proxy=URL, proxy_limits=..., proxy_timeout_s=...)``: the gateway's upstream
bounds are the user's to set (issue 48: before, a proxy had only the client's defaults).

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

from genmcp import mcp_router
from genmcp.client import Client, ClientLimits, RPCError
from genmcp.client.limits import MIB
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

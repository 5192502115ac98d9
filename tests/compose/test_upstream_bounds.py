"""An upstream that crosses its client's bounds, through a gateway (issue 48).

Measured before the bounds: a gateway relayed a 1 GiB answer (growing from 66 MB to 3.7 GB),
relayed an answer carrying another request's id, and never started when its upstream's
listing never ended. Here the upstream is `support.rogue` on loopback, the mount's bounds
are small (`Mount(limits=...)`), and the gateway's own client gets a JSON-RPC error naming
the upstream and the bound, while the gateway keeps serving.
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp import Mount, Suite, Tool, ToolRequest, mcp_app
from genmcp.channel import Channel
from genmcp.client import Client, ClientLimits
from genmcp.client.http import HTTPWire
from genmcp.client.limits import MIB
from genmcp.compose.upstream import Upstream
from genmcp.testing import MCPTestClient, RPCError
from support.rogue import Rogue, drip, endless_pages, huge_json, wrong_id
from support.server import LiveServers


class Local(Tool, name="local", input_schema={"type": "object"}):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> str:
        return "local"


def gateway(url: str, limits: ClientLimits) -> tuple[Suite, Upstream]:
    mount = Mount(url=url, namespace="up", limits=limits, cooldown_s=60, failures=3)
    assert mount.upstream is not None
    return Suite(server_name="gw", server_version="1", tools=[Local], mounts=[mount]), (
        mount.upstream
    )


@pytest.mark.parametrize(
    ("behaviour", "limits", "code", "limit"),
    [
        (huge_json(5 * MIB), ClientLimits(max_message_bytes=MIB), -32603, "max_message_bytes"),
        (drip, ClientLimits(deadline_s=0.5), -32001, "deadline_s"),
    ],
)
async def test_an_upstream_over_a_bound_is_a_json_rpc_error_to_the_gateways_client(
    live_server: LiveServers, behaviour: Any, limits: ClientLimits, code: int, limit: str
) -> None:
    url = live_server(Rogue(call=behaviour)) + "/mcp"
    outer, upstream = gateway(url, limits)
    async with MCPTestClient(outer) as client:
        with pytest.raises(RPCError) as raised:
            await client.call_tool("up_big", {})
        still = await client.call_tool("local", {})
    await outer.aclose()
    wire = upstream.client.connection.wire
    assert isinstance(wire, HTTPWire)
    assert (raised.value.code, raised.value.data) == (code, {"upstream": url, "limit": limit})
    assert raised.value.message.startswith(f"upstream {url} is unavailable: ")
    assert wire.received < 2 * MIB and still.text == "local"
    assert upstream.breaker.failures == 1


async def test_an_answer_with_another_requests_id_is_not_relayed(
    live_server: LiveServers,
) -> None:
    url = live_server(Rogue(call=wrong_id)) + "/mcp"
    outer, _ = gateway(url, ClientLimits())
    async with MCPTestClient(outer) as client:
        with pytest.raises(RPCError) as raised:
            await client.call_tool("up_big", {})
    await outer.aclose()
    assert raised.value.code == -32603 and raised.value.data == {"upstream": url}
    assert "meant for another request" not in str(raised.value)
    assert "not taken" in raised.value.message


@pytest.mark.parametrize(
    ("tools_list", "limits"),
    [
        (endless_pages, ClientLimits(max_pages=30)),
        (huge_json(5 * MIB), ClientLimits(max_message_bytes=MIB)),
    ],
)
async def test_a_gateway_starts_when_its_upstream_misbehaves_at_start(
    live_server: LiveServers, tools_list: Any, limits: ClientLimits
) -> None:
    rogue = Rogue(tools_list=tools_list)
    outer, upstream = gateway(live_server(rogue) + "/mcp", limits)
    gateway_url = live_server(mcp_app(outer)) + "/mcp"
    async with Client(gateway_url) as client:
        tools = [tool["name"] for tool in await client.list_tools()]
        called = await client.call_tool("local")
    await outer.aclose()
    assert tools == ["local"] and called["content"][0]["text"] == "local"
    assert upstream.tools == {} and upstream.breaker.failures >= 1  # counted as down
    assert rogue.pages <= 30

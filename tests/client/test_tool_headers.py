"""client.tool_headers: what a client learns of each tool's ``x-mcp-header`` parameters.

A listed tool's parameters are learned; a tool whose annotations break the rules
(``protocol.client.header_problem``) is dropped with a warning naming it; against the demo
tools on uvicorn, the call of a listed tool carries its header and is answered.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from demo_tools import make_suite
from genmcp import mcp_app
from genmcp.client import Client
from genmcp.client.tool_headers import ToolHeaders
from support.recorder import Recorder
from support.server import LiveServers


def listed(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": properties}}


def test_a_broken_tool_is_dropped_with_a_warning_the_rest_learned(
    caplog: pytest.LogCaptureFixture,
) -> None:
    good = listed("echo", {"region": {"type": "string", "x-mcp-header": "Region"}})
    broken = listed("bad", {"a": {"type": "object", "x-mcp-header": "A"}})
    plain = listed("plain", {"a": {"type": "string"}})
    headers = ToolHeaders()
    with caplog.at_level(logging.WARNING, logger="genmcp.client"):
        kept = headers.kept([good, broken, plain], "http://example.test/mcp")
    assert [tool["name"] for tool in kept] == ["echo", "plain"]
    assert headers.of("echo") == {"region": "Region"} and headers.of("plain") == {}
    assert headers.of("bad") is None and headers.of("never listed") is None
    assert "http://example.test/mcp: dropped tool 'bad'" in caplog.text


async def test_the_call_of_a_listed_tool_carries_its_header(live_server: LiveServers) -> None:
    recorder = Recorder(mcp_app(make_suite(), path="/mcp"))
    url = live_server(recorder) + "/mcp"
    async with Client(url) as client:
        assert "echo" in {tool["name"] for tool in await client.list_tools()}
        result = await client.call_tool("echo", {"region": "eu", "value": 1})
    assert result["structuredContent"] == {"region": "eu", "value": 1}
    (call,) = recorder.posts("tools/call")
    assert call.status == 200 and call.headers["mcp-param-region"] == "eu"

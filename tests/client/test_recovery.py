"""client.recovery: the one retry a request gets, against servers on uvicorn.

A tool call the demo server refuses for its missing ``x-mcp-header`` header (-32020, a tool
the client never listed) is sent again once a listing taught the header; a modern -32022
(a scripted server naming 2026-07-28) is asked again once, and a second one is the caller's.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from demo_tools import make_suite
from genmcp import mcp_app
from genmcp.client import Client, RPCError
from support.recorder import Recorder
from support.server import LiveServers
from tests.client.test_connection import answer
from tests.client.test_http import scripted


async def test_a_call_refused_for_its_header_is_sent_again_after_a_listing(
    live_server: LiveServers,
) -> None:
    recorder = Recorder(mcp_app(make_suite(), path="/mcp"))
    url = live_server(recorder) + "/mcp"
    async with Client(url) as client:
        result = await client.call_tool("echo", {"region": "eu", "value": 1})
    assert result["structuredContent"] == {"region": "eu", "value": 1}
    first, again = recorder.posts("tools/call")
    assert first.status == 400 and first.response["error"]["code"] == -32020
    assert "mcp-param-region" not in first.headers
    assert again.status == 200 and again.headers["mcp-param-region"] == "eu"
    assert len(recorder.posts("tools/list")) == 1


@pytest.mark.parametrize("refusals", [1, 2])
async def test_a_modern_version_error_is_asked_again_once(
    live_server: LiveServers, refusals: int
) -> None:
    lists: list[str] = []

    async def script(method: str, headers: dict[str, str], body: bytes) -> Any:
        if json.loads(body)["method"] == "server/discover":
            return answer(body, result={"resultType": "complete",
                                        "supportedVersions": ["2026-07-28"]})  # fmt: skip
        lists.append(headers.get("mcp-protocol-version", ""))
        if len(lists) <= refusals:
            error = {"code": -32022, "message": "Unsupported protocol version",
                     "data": {"supported": ["2026-07-28"], "requested": "x"}}  # fmt: skip
            payload = {"jsonrpc": "2.0", "id": json.loads(body)["id"], "error": error}
            return 400, "application/json", [json.dumps(payload).encode()]
        return answer(body, result={"resultType": "complete", "tools": []})

    url = live_server(scripted(script)) + "/mcp"
    async with Client(url) as client:
        if refusals == 1:
            assert await client.list_tools() == []
        else:
            with pytest.raises(RPCError) as refused:
                await client.list_tools()
            assert refused.value.code == -32022
    assert lists == ["2026-07-28", "2026-07-28"]

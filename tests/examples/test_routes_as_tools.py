"""examples/routes_as_tools.py over a real server: the HTTP routes and the MCP tools agree."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Final

import httpx
import pytest

from support import examples
from support.client import ModernClient
from support.server import LiveServers

example = examples.load("routes_as_tools")
TOKEN: Final = {"Authorization": "Bearer secret-token"}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(example.app)
    finally:
        live.stop_all()


async def test_http_and_mcp_see_the_same_item_and_the_same_auth(base: str) -> None:
    async with httpx.AsyncClient(base_url=base) as http:
        assert (await http.get("/items/1")).status_code == 401
        over_http = (await http.get("/items/1", headers=TOKEN)).json()
    async with ModernClient(base, headers=TOKEN) as mcp:
        reply = await mcp.request("tools/call", {"name": "get_item", "arguments": {"item_id": 1}})
    assert reply.result["structuredContent"] == over_http
    async with ModernClient(base, headers={"Authorization": "Bearer wrong"}) as mcp:
        denied = await mcp.request("tools/call", {"name": "get_item", "arguments": {"item_id": 1}})
    assert denied.result["isError"] is True
    assert json.loads(denied.result["content"][0]["text"])["status"] == 401


async def test_create_item_validates_before_the_route(base: str) -> None:
    async with ModernClient(base, headers=TOKEN) as mcp:
        bad = await mcp.request(
            "tools/call", {"name": "create_item", "arguments": {"name": "x", "price": -1}}
        )
        made = await mcp.request(
            "tools/call", {"name": "create_item", "arguments": {"name": "x", "price": 1}}
        )
    assert bad.result["isError"] is True and "price" in bad.result["content"][0]["text"]
    assert made.result["structuredContent"]["name"] == "x"

"""A legacy session's standalone GET stream on the one `/mcp` endpoint: list changes until
DELETE, one stream per session, resource updates only for the subscribed URIs.

How every rule here is driven and checked: session_kit.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from genmcp import (
    Channel,
    MCPRouter,
    Result,
    Tool,
    ToolRequest,
    call_tool_result,
)
from support.legacy_client import LegacyClient
from support.server import LiveServers
from tests.sessions.session_kit import (
    VERSIONS,
    Calls,
    broker_topics,
    eventually,
    opened,
)

# -- the GET stream, batches, stray messages ------------------------------------------------


class Extra(Tool, name="extra", description="Added at run time."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="extra"))


@pytest.mark.parametrize("version", VERSIONS)
async def test_get_streams_list_changes_until_delete(
    server: tuple[str, MCPRouter, Calls], connect: Callable[..., LegacyClient], version: str
) -> None:
    router = server[1]
    client = await opened(connect, version)
    assert (await client.request("tools/list")).status == 200
    async with client.get_stream() as stream:
        assert stream.reply.status == 200
        assert stream.reply.is_sse
        await eventually(lambda: broker_topics(router) >= 3)
        router.suite.add_tool(Extra)
        try:
            first = await asyncio.wait_for(anext(aiter(stream)), 5)
        finally:
            router.suite.remove_tool("extra")
        assert first == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
        assert (await client.delete()).status == 200
        rest = await asyncio.wait_for(stream.drain(), 5)
    assert rest.messages == [first, first]  # added, then removed
    await eventually(lambda: broker_topics(router) == 0)


async def test_a_newer_get_replaces_the_open_one(connect: Callable[..., LegacyClient]) -> None:
    client = await opened(connect, "2025-06-18")
    async with client.get_stream() as first:
        assert first.reply.status == 200
        async with client.get_stream() as second:
            assert second.reply.status == 200
            ended = await asyncio.wait_for(first.drain(), 5)
            assert ended.messages == []
            assert not second.done


async def test_get_without_a_session_is_400_and_with_a_modern_header_405(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-11-25")
    async with client.get_stream(headers={"Mcp-Session-Id": None}) as missing:
        assert missing.reply.status == 400
    async with client.get_stream(headers={"MCP-Protocol-Version": "2026-07-28"}) as modern:
        assert modern.reply.status == 405


@pytest.mark.parametrize("version", VERSIONS)
async def test_resource_updates_reach_only_the_sessions_that_subscribed(
    catalog_server: tuple[str, MCPRouter], version: str
) -> None:
    router = catalog_server[1]
    async with (
        LegacyClient(catalog_server[0], version=version) as watcher,
        LegacyClient(catalog_server[0], version=version) as bystander,
    ):
        await watcher.open()
        await bystander.open()
        subscribed = await watcher.request("resources/subscribe", {"uri": "test://notes"})
        assert (subscribed.status, subscribed.result) == (200, {})
        await watcher.request("resources/subscribe", {"uri": "test://other"})
        await watcher.request("resources/unsubscribe", {"uri": "test://other"})
        async with watcher.get_stream() as stream, bystander.get_stream() as quiet:
            await eventually(lambda: broker_topics(router) >= 5)  # changes + 2 x (end, get)
            router.suite.resource_updated("test://other")
            router.suite.resource_updated("test://notes")
            update = await asyncio.wait_for(anext(aiter(stream)), 5)
            assert update == {
                "jsonrpc": "2.0",
                "method": "notifications/resources/updated",
                "params": {"uri": "test://notes"},
            }
            await watcher.delete()
            await bystander.delete()
            assert (await asyncio.wait_for(quiet.drain(), 5)).messages == []
            assert (await asyncio.wait_for(stream.drain(), 5)).messages == [update]


async def test_a_get_stream_hears_only_of_list_changes_its_caller_can_see(
    live_server: LiveServers,
) -> None:
    """``Suite(visibility=)``: a 2025 session's GET stream, like a 2026 listen stream, gets a
    live ``tools/list_changed`` only when what its caller sees moved (examples/tenants.py's
    tokens and role policy: ``delete_ticket`` exists for admins only)."""
    from fastapi import FastAPI

    from genmcp import Suite, mcp_router
    from support import examples
    from support.legacy_http import open_session
    from support.sse import SSEEvent, SSEParser

    tenants = examples.load("tenants")
    served = Suite(server_name="seen", server_version="1", tools=[tenants.SearchDocs],
                   visibility=tenants.by_role)  # fmt: skip
    app = FastAPI()
    app.include_router(mcp_router(suite=served, auth=tenants.DemoTokens()), prefix="/mcp")

    @app.post("/add/{which}")
    async def add(which: str) -> dict[str, str]:
        served.add_tool(tenants.DeleteTicket if which == "admin" else tenants.CreateTicket)
        return {"added": which}

    base = live_server(app)
    heard: dict[str, list[str]] = {"alice-acme": [], "bob-acme": []}

    async def collect(http: httpx.AsyncClient, headers: dict[str, str], into: list[str]) -> None:
        parser = SSEParser()
        async with http.stream("GET", f"{base}/mcp", headers=headers) as response:
            assert response.status_code == 200
            async for chunk in response.aiter_bytes():
                events = parser.feed(chunk)
                into += [json.loads(e.data)["method"] for e in events
                         if isinstance(e, SSEEvent) and e.data]  # fmt: skip

    readers = []
    async with httpx.AsyncClient(timeout=10) as http:
        for token, into in heard.items():
            http.headers["Authorization"] = f"Bearer {token}"
            headers = {**await open_session(http, f"{base}/mcp", initialized=True),
                       "Authorization": f"Bearer {token}"}  # fmt: skip
            readers.append(asyncio.create_task(collect(http, headers, into)))
        await asyncio.sleep(0.3)
        changed = "notifications/tools/list_changed"
        assert (await http.post(f"{base}/add/admin")).status_code == 200  # admins only
        await asyncio.sleep(0.5)
        assert heard == {"alice-acme": [changed], "bob-acme": []}
        assert (await http.post(f"{base}/add/everyone")).status_code == 200
        await asyncio.sleep(0.5)
        assert heard == {"alice-acme": [changed] * 2, "bob-acme": [changed]}
        for reader in readers:
            assert not reader.done()
            reader.cancel()

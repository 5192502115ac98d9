"""A legacy session's standalone GET stream on the one `/mcp` endpoint: list changes until
DELETE, one stream per session, resource updates only for the subscribed URIs.

How every rule here is driven and checked: session_kit.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

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
from tests.transports.legacy.session_kit import (
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

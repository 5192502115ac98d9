"""client.listen: a subscription to one resource's updates, in both eras, against the
everything server on uvicorn (`suite.resource_updated` fires on the server's loop)."""

from __future__ import annotations

import asyncio

import pytest

from genmcp.client import Client
from genmcp.client.listen import listen_filters
from genmcp.fastapi.router import mcp_app
from support.examples import load
from support.server import LiveServers

WATCHED = "test://watched-resource"


@pytest.mark.parametrize("era", [None, "2025-11-25"], ids=["2026-07-28", "2025-11-25"])
async def test_a_resource_subscription_gets_that_resource_s_updates(
    live_server: LiveServers, era: str | None
) -> None:
    suite = load("everything_server").build_suite()
    url = live_server(mcp_app(suite, path="/mcp")) + "/mcp"
    server_loop = live_server.last.loop

    async with Client(url, protocol=era) as client:
        subscription = client.listen(tools=False, prompts=False, resources=False, uris=[WATCHED])
        async with subscription as updates:
            assert updates.acknowledged.get("resourceSubscriptions") == [WATCHED]
            server_loop.call_soon_threadsafe(suite.resource_updated, "test://static-text")
            server_loop.call_soon_threadsafe(suite.resource_updated, WATCHED)
            note = await asyncio.wait_for(anext(updates), 10)
        with pytest.raises(StopAsyncIteration):
            await anext(updates)  # left: the subscription is over

    assert note["method"] == "notifications/resources/updated"
    assert note["params"]["uri"] == WATCHED


@pytest.mark.parametrize("era", [None, "2025-11-25"], ids=["2026-07-28", "2025-11-25"])
async def test_a_quiet_subscription_outlives_the_read_timeout(
    live_server: LiveServers, era: str | None
) -> None:
    suite = load("everything_server").build_suite()
    url = live_server(mcp_app(suite, path="/mcp")) + "/mcp"

    read_s = 2.0  # every request's read too: a hang guard for them, not a budget
    async with Client(url, protocol=era, timeout=read_s) as client:
        async with client.listen(prompts=False, resources=False) as changes:
            await asyncio.sleep(2.5 * read_s)  # nothing on the stream for longer than a read
            await client.call_tool("test_trigger_tool_change", {})
            note = await asyncio.wait_for(anext(changes), 10)

    assert note["method"] == "notifications/tools/list_changed"


def test_the_filters_name_what_is_followed_and_only_that() -> None:
    assert listen_filters(True, True, True, (), ()) == {
        "toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True,
    }  # fmt: skip
    assert listen_filters(False, False, False, ["a://1"], ["t1"]) == {
        "resourceSubscriptions": ["a://1"], "taskIds": ["t1"],
    }  # fmt: skip

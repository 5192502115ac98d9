"""``subscriptions/listen`` over a real server: acknowledgement, filtering, tagging, teardown.

Every server message (the acknowledgement, each notification, the closing result) is
checked against the official 2026-07-28 schema by ModernClient.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi import FastAPI

from genmcp import (
    Channel,
    MCPRouter,
    Prompt,
    PromptRequest,
    Result,
    StaticResource,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    get_prompt_result,
    mcp_router,
)
from support import examples
from support.client import Exchange, ModernClient

KEY = "s" * 48
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
ACK = "notifications/subscriptions/acknowledged"


@dataclass
class Holder:
    suite: Suite | None = None


class Added(Tool, name="added"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="added"))


class Greeting(Prompt, name="greeting"):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return Result(get_prompt_result("Hello"))


class Later(Prompt, name="later"):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return Result(get_prompt_result("Later"))


class TriggerChange(
    Tool,
    name="trigger_change",
    description="Changes what the server serves (for listen tests).",
    input_schema={
        "type": "object",
        "properties": {"kind": {"enum": ["tools", "prompts", "resources", "updated"]}},
        "required": ["kind"],
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Holder) -> Result:
        suite = arg.suite
        assert suite is not None
        kind = request.arguments["kind"]
        if kind == "tools":
            if not suite.remove_tool("added"):
                suite.add_tool(Added)
        elif kind == "prompts":
            if not suite.remove_prompt("later"):
                suite.add_prompt(Later)
        elif kind == "resources":
            if not suite.remove_resource("test://later"):
                suite.add_resource(StaticResource(uri="test://later", name="later", text="l"))
        else:
            suite.resource_updated("test://watched")
        return Result(call_tool_result(text=f"changed {kind}"))


def serve(live_server: Any, **options: Any) -> tuple[str, MCPRouter]:
    holder = Holder()
    router = mcp_router(
        server_name="listen",
        server_version="1",
        secret_key=KEY,
        tools=[(TriggerChange, holder)],
        prompts=[Greeting],
        resources=[
            StaticResource(uri="test://watched", name="watched", text="w"),
            StaticResource(uri="test://other", name="other", text="o"),
        ],
        **options,
    )
    holder.suite = router.suite
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return live_server(app), router


async def next_message(exchange: Exchange, within: float = 5.0) -> dict[str, Any]:
    message: dict[str, Any] = await asyncio.wait_for(anext(exchange), within)
    return message


async def eventually(check: Callable[[], bool], within: float = 5.0) -> None:
    """Wait until ``check()`` holds (state changed by the server thread)."""
    deadline = asyncio.get_running_loop().time() + within
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


def everything(*uris: str) -> dict[str, Any]:
    filters: dict[str, Any] = {
        "toolsListChanged": True,
        "promptsListChanged": True,
        "resourcesListChanged": True,
    }
    if uris:
        filters["resourceSubscriptions"] = list(uris)
    return {"notifications": filters}


async def trigger(client: ModernClient, kind: str) -> None:
    reply = await client.request(
        "tools/call", {"name": "trigger_change", "arguments": {"kind": kind}}
    )
    assert reply.result["content"][0]["text"] == f"changed {kind}"


# -- acknowledgement --------------------------------------------------------------------


async def test_the_acknowledgement_comes_first_with_the_honored_subset(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server)
    client: ModernClient = modern_client(base)
    params = everything("test://watched", "unknown://nope")
    async with client.stream("subscriptions/listen", params, id="listen-1") as exchange:
        assert exchange.status == 200 and exchange.content_type == "text/event-stream"
        ack = await next_message(exchange)
    assert ack["method"] == ACK
    assert ack["params"]["notifications"] == {
        "toolsListChanged": True,
        "promptsListChanged": True,
        "resourcesListChanged": True,
        "resourceSubscriptions": ["test://watched"],
    }
    assert ack["params"]["_meta"] == {SUBSCRIPTION_ID: "listen-1"}


async def test_kinds_the_server_does_not_serve_are_not_acknowledged(
    live_server: Any, modern_client: Any
) -> None:
    router = mcp_router(server_name="t", server_version="1", secret_key=KEY, tools=[Added])
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    client: ModernClient = modern_client(live_server(app))
    async with client.stream("subscriptions/listen", everything("test://x"), id=5) as exchange:
        ack = await next_message(exchange)
    assert ack["params"]["notifications"] == {"toolsListChanged": True}
    assert ack["params"]["_meta"][SUBSCRIPTION_ID] == 5


# -- delivery -----------------------------------------------------------------------------


async def test_a_listen_stream_receives_a_list_change_caused_by_another_request(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server)
    client: ModernClient = modern_client(base)
    tools_only = {"notifications": {"toolsListChanged": True}}
    prompts_only = {"notifications": {"promptsListChanged": True}}
    async with (
        client.stream("subscriptions/listen", tools_only, id="t") as tools,
        client.stream("subscriptions/listen", prompts_only, id=77) as prompts,
    ):
        assert (await next_message(tools))["method"] == ACK
        assert (await next_message(prompts))["method"] == ACK
        await trigger(client, "tools")  # another request changes the tool list
        changed = await next_message(tools)
        assert changed["method"] == "notifications/tools/list_changed"
        assert changed["params"]["_meta"] == {SUBSCRIPTION_ID: "t"}
        listing = await client.request("tools/list")
        assert "added" in [tool["name"] for tool in listing.result["tools"]]
        await trigger(client, "prompts")
        await trigger(client, "tools")
        # Each stream got only its own kind: the next message of each is that kind.
        only_prompts = await next_message(prompts)
        assert only_prompts["method"] == "notifications/prompts/list_changed"
        assert only_prompts["params"]["_meta"] == {SUBSCRIPTION_ID: 77}
        only_tools = await next_message(tools)
        assert only_tools["method"] == "notifications/tools/list_changed"


async def test_resource_list_changes_and_updates_reach_only_who_asked(
    live_server: Any, modern_client: Any
) -> None:
    base, router = serve(live_server)
    client: ModernClient = modern_client(base)
    watched = {"notifications": {"resourceSubscriptions": ["test://watched"]}}
    other = {"notifications": {"resourceSubscriptions": ["test://other"]}}
    listing = {"notifications": {"resourcesListChanged": True}}
    async with (
        client.stream("subscriptions/listen", watched, id="w") as on_watched,
        client.stream("subscriptions/listen", other, id="o") as on_other,
        client.stream("subscriptions/listen", listing, id="l") as on_list,
    ):
        for exchange in (on_watched, on_other, on_list):
            assert (await next_message(exchange))["method"] == ACK
        await trigger(client, "updated")  # test://watched changed
        updated = await next_message(on_watched)
        assert updated["method"] == "notifications/resources/updated"
        assert updated["params"] == {"uri": "test://watched", "_meta": {SUBSCRIPTION_ID: "w"}}
        await trigger(client, "resources")
        assert (await next_message(on_list))["method"] == "notifications/resources/list_changed"
        router.suite.resource_updated("test://other")  # from this thread, not the server's
        from_thread = await next_message(on_other)
        assert from_thread["params"]["uri"] == "test://other"  # and not test://watched before it


async def test_the_example_tells_subscribers_when_the_motd_changes(
    live_server: Any, modern_client: Any
) -> None:
    example = examples.load("resources_prompts")
    client: ModernClient = modern_client(live_server(example.app))
    params = {"notifications": {"resourceSubscriptions": ["motd://today"]}}
    async with client.stream("subscriptions/listen", params, id="m") as exchange:
        assert (await next_message(exchange))["method"] == ACK
        await client.request("tools/call", {"name": "set_motd", "arguments": {"text": "New!"}})
        updated = await next_message(exchange)
        assert updated["params"]["uri"] == "motd://today"
    read = await client.request("resources/read", {"uri": "motd://today"})
    assert read.result["contents"][0]["text"] == "New!"


# -- teardown -----------------------------------------------------------------------------


async def test_a_client_leaving_ends_the_stream_and_its_subscription(
    live_server: Any, modern_client: Any
) -> None:
    base, router = serve(live_server)
    client: ModernClient = modern_client(base)
    async with client.stream("subscriptions/listen", everything()) as exchange:
        await next_message(exchange)
        await eventually(lambda: router.suite.live_listeners == 1)
        assert router.suite.broker.topics == 1  # type: ignore[attr-defined]
    await eventually(lambda: router.suite.live_listeners == 0)
    await eventually(lambda: router.suite.broker.topics == 0)  # type: ignore[attr-defined]
    await trigger(client, "tools")  # publishing to nobody is fine
    assert router.suite.live_workers == 0


async def test_the_server_ends_a_stream_with_the_complete_listen_result(
    live_server: Any, modern_client: Any
) -> None:
    base, router = serve(live_server)
    client: ModernClient = modern_client(base)
    async with client.stream("subscriptions/listen", everything(), id="bye") as exchange:
        await next_message(exchange)
        await live_server.last.run_in_loop(router.suite.aclose())
        final = await next_message(exchange)
        assert final == {
            "jsonrpc": "2.0",
            "id": "bye",
            "result": {
                "resultType": "complete",
                "_meta": {
                    "io.modelcontextprotocol/serverInfo": {"name": "listen", "version": "1"},
                    SUBSCRIPTION_ID: "bye",
                },
            },
        }
        assert await exchange.next_item() is None  # the stream ended
    assert router.suite.live_listeners == 0


async def test_keepalive_comments_flow_on_an_idle_stream(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, keepalive_s=0.05)
    client: ModernClient = modern_client(base)
    async with client.stream("subscriptions/listen", everything()) as exchange:
        await next_message(exchange)
        while not exchange.reply.comments:
            assert await asyncio.wait_for(exchange.next_item(), 2) is not None


# -- malformed requests -------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"notifications": []},
        {"notifications": {"toolsListChanged": "yes"}},
        {"notifications": {"resourceSubscriptions": "test://watched"}},
        {"notifications": {"resourceSubscriptions": [1]}},
        {"notifications": {"resourceSubscriptions": [f"test://{n}" for n in range(1001)]}},
    ],
)
async def test_a_malformed_filter_is_invalid_params(params: dict[str, Any]) -> None:
    from genmcp.protocol.jsonrpc import Request
    from support.answers import answer_of

    suite = Suite(server_name="s", server_version="1", secret_key=KEY, tools=[Added])
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    request = Request(1, "subscriptions/listen", {**params, "_meta": meta})
    response, status = await answer_of(suite, request)
    assert response["error"]["code"] == -32602 and status == 200
    assert suite.live_listeners == 0


# -- ChangeFeed.flushed: when a change is published ------------------------------------------


async def test_flushed_returns_once_every_change_scheduled_is_published() -> None:
    from genmcp.storage.memory import MemoryBroker
    from genmcp.sync.listen import CHANGES, ChangeFeed

    broker = MemoryBroker()
    feed = ChangeFeed(broker)
    feed.bind(asyncio.get_running_loop())
    subscription = broker.subscribe(CHANGES)
    await subscription.ready()
    for n in range(3):
        feed.publish("notifications/resources/updated", {"uri": f"note://{n}"})
    await feed.flushed()
    got = [subscription.receive() for _ in range(3)]
    received = [(await asyncio.wait_for(one, 1))[1]["params"]["uri"] for one in got]
    assert received == ["note://0", "note://1", "note://2"]
    await feed.flushed()  # nothing scheduled: at once


async def test_flushed_is_storage_unavailable_when_a_change_could_not_be_published() -> None:
    from genmcp.storage.guard import StorageUnavailable
    from genmcp.storage.redis import RedisBroker, RedisOptions
    from genmcp.sync.listen import ChangeFeed
    from support.redis_server import free_port

    options = RedisOptions(notice_retry_s=0.3, connect_timeout_s=0.2)
    broker = RedisBroker.from_url(f"redis://127.0.0.1:{free_port()}/0", options=options)
    try:
        feed = ChangeFeed(broker)
        feed.bind(asyncio.get_running_loop())
        feed.publish("notifications/resources/updated", {"uri": "note://1"})
        with pytest.raises(StorageUnavailable):
            await asyncio.wait_for(feed.flushed(), 10)
        await feed.flushed()  # the failed change is behind us: nothing pending
    finally:
        await broker.aclose()

"""Workers, mailboxes, streaming responses, disconnects and failures, over a real server."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from genmcp import (
    Channel,
    Error,
    MCPRouter,
    Result,
    Stream,
    Tool,
    ToolRequest,
    call_tool_result,
    mcp_router,
)
from genmcp.channel import Mailbox
from genmcp.protocol.jsonrpc import Request
from support import examples
from support.client import ModernClient

streaming = examples.load("streaming")


async def eventually(check: Callable[[], bool], within: float = 5.0) -> None:
    """Wait until ``check()`` holds (state changed by the server thread)."""
    deadline = asyncio.get_running_loop().time() + within
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


def serve(live_server: Any, *tools: Any, **options: Any) -> tuple[str, MCPRouter]:
    router = mcp_router(server_name="t", server_version="1", tools=tools, **options)
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return live_server(app), router


# -- the streaming example --------------------------------------------------------------


async def test_progress_notifications_arrive_in_order_before_the_result(
    live_server: Any, modern_client: Any
) -> None:
    client: ModernClient = modern_client(live_server(streaming.app))
    reply = await client.request(
        "tools/call", {"name": "count_to", "arguments": {"n": 5}}, progress_token="tok-7"
    )
    assert reply.is_sse
    assert reply.headers["x-accel-buffering"] == "no"
    progress = [n["params"] for n in reply.notifications]
    assert [p["progress"] for p in progress] == [1, 2, 3, 4, 5]
    assert {p["progressToken"] for p in progress} == {"tok-7"}
    assert {p["total"] for p in progress} == {5}
    assert reply.messages[-1] is reply.response
    assert reply.result["content"] == [{"type": "text", "text": "counted to 5"}]


async def test_without_progress_token_or_log_level_the_answer_is_plain_json(
    live_server: Any, modern_client: Any
) -> None:
    client: ModernClient = modern_client(live_server(streaming.app))
    reply = await client.request("tools/call", {"name": "count_to", "arguments": {"n": 3}})
    assert reply.content_type == "application/json"
    assert reply.notifications == []
    assert reply.result["content"][0]["text"] == "counted to 3"


@pytest.mark.parametrize(("level", "expected"), [("debug", 3), ("info", 0)])
async def test_logs_flow_only_at_or_above_the_requested_level(
    live_server: Any, modern_client: Any, level: str, expected: int
) -> None:
    client: ModernClient = modern_client(live_server(streaming.app))
    reply = await client.request(
        "tools/call", {"name": "count_to", "arguments": {"n": 3}}, log_level=level
    )
    logs = [n for n in reply.notifications if n["method"] == "notifications/message"]
    assert len(logs) == expected
    assert all(n["params"]["level"] == "debug" for n in logs)
    assert all(n["params"]["logger"] == "count_to" for n in logs)


async def test_keepalive_comments_flow_while_slow_work_runs(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, streaming.SlowReportTool, keepalive_s=0.05)
    client: ModernClient = modern_client(base)
    reply = await client.request(
        "tools/call", {"name": "slow_report", "arguments": {"seconds": 0.4}}
    )
    assert reply.is_sse
    assert len(reply.comments) >= 2
    assert reply.result["content"][0]["text"] == "report ready"


async def test_a_stream_is_fed_by_events_from_outside_the_request(
    live_server: Any, modern_client: Any
) -> None:
    base = live_server(streaming.app)
    client: ModernClient = modern_client(base)
    async with client.stream(
        "tools/call", {"name": "watch_orders", "arguments": {"count": 3}}, progress_token=1
    ) as exchange:
        assert exchange.reply.is_sse
        await eventually(lambda: streaming.orders.subscriber_count("orders") == 1)
        async with httpx.AsyncClient() as http:
            for item in ("apple", "pear"):
                assert (await http.post(f"{base}/orders/{item}")).json() == {"notified": 1}
        placed = await client.request(
            "tools/call", {"name": "place_order", "arguments": {"item": "fig"}}
        )
        assert placed.result["content"][0]["text"] == "placed; 1 watcher(s) notified"
        reply = await exchange.drain()
    assert [n["params"]["message"] for n in reply.notifications] == [
        "order: apple",
        "order: pear",
        "order: fig",
    ]
    assert reply.result["structuredContent"] == {"orders": ["apple", "pear", "fig"]}
    assert streaming.orders.subscriber_count("orders") == 0
    await eventually(lambda: streaming.router.suite.live_workers == 0)


async def test_client_disconnect_mid_stream_runs_handle_close_and_ends_the_worker(
    live_server: Any, modern_client: Any
) -> None:
    client: ModernClient = modern_client(live_server(streaming.app))
    async with client.stream(
        "tools/call", {"name": "watch_orders", "arguments": {"count": 5}}
    ) as exchange:
        assert exchange.reply.is_sse
        await eventually(lambda: streaming.orders.subscriber_count("orders") == 1)
        assert streaming.router.suite.live_workers == 1
    # handle_close unsubscribes: nobody is left on the topic, and no worker is alive
    await eventually(lambda: streaming.orders.subscriber_count("orders") == 0)
    await eventually(lambda: streaming.router.suite.live_workers == 0)


# -- failures, cancellation, threads --------------------------------------------------


class Record:
    """What tools observed, shared with the test."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.mailboxes: list[Mailbox] = []
        self.release = threading.Event()


record = Record()


class ForeverTool(Tool, name="forever"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            record.events.append("cancelled")
            raise
        return Result(call_tool_result(text="never"))


class BlockingTool(Tool, name="blocking"):
    def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:  # type: ignore[override]
        released = record.release.wait(10)
        channel.send_progress(1, total=1)
        return Result(call_tool_result(text="released" if released else "timed out"))


class ReleaseTool(Tool, name="release"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        record.release.set()
        return Result(call_tool_result(text="ok"))


class CrashTool(Tool, name="crash"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        raise RuntimeError("boom in call")


class CrashWhileStreamingTool(Tool, name="crash_streaming"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Stream:
        assert channel.mailbox is not None
        channel.start_stream()
        channel.mailbox.send("go")
        return Stream(0)

    async def handle_message(self, message: Any, channel: Channel, state: Any, arg: Any) -> Result:
        raise RuntimeError("boom in handle_message")


class BadReturnTool(Tool, name="bad_return"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        return 42  # a str, a dict or a model would be a convenience return (hooks.converted)


class ProtocolErrorTool(Tool, name="protocol_error"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Error:
        return Error("quota exhausted", code=4290, data={"retryAfterS": 3})


class EchoStreamTool(Tool, name="echo_stream"):
    """Streams until it gets "stop"; keeps its mailbox for the test."""

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Stream:
        assert channel.mailbox is not None
        record.mailboxes.append(channel.mailbox)
        channel.start_stream()
        return Stream([])

    async def handle_message(
        self, message: Any, channel: Channel, state: Any, arg: Any
    ) -> Result | Stream:
        if message == "stop":
            return Result(call_tool_result(structured={"got": state}))
        channel.send_notification("notifications/message", {"level": "info", "data": message})
        return Stream([*state, message])


FAILURE_TOOLS = (
    ForeverTool,
    BlockingTool,
    ReleaseTool,
    CrashTool,
    CrashWhileStreamingTool,
    BadReturnTool,
    ProtocolErrorTool,
    EchoStreamTool,
)


@pytest.fixture
def failing(live_server: Any, modern_client: Any) -> tuple[ModernClient, MCPRouter]:
    record.__init__()  # type: ignore[misc]
    base, router = serve(live_server, *FAILURE_TOOLS)
    return modern_client(base), router


async def test_disconnect_inside_an_async_call_cancels_it(
    failing: tuple[ModernClient, MCPRouter],
) -> None:
    client, router = failing
    # a JSON answer has no headers yet: cancelling the pending request closes the connection
    pending = asyncio.create_task(client.request("tools/call", {"name": "forever"}))
    await eventually(lambda: router.suite.live_workers == 1)
    pending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await pending
    await eventually(lambda: record.events == ["cancelled"])
    await eventually(lambda: router.suite.live_workers == 0)


async def test_a_plain_def_call_runs_in_a_thread_and_does_not_block_the_loop(
    failing: tuple[ModernClient, MCPRouter],
) -> None:
    client, router = failing
    blocked = asyncio.create_task(
        client.request("tools/call", {"name": "blocking"}, progress_token="p")
    )
    await eventually(lambda: router.suite.live_workers == 1)
    # if the blocking call held the event loop, this call could never be answered
    released = await client.request("tools/call", {"name": "release"})
    assert released.result["content"][0]["text"] == "ok"
    reply = await blocked
    assert reply.result["content"][0]["text"] == "released"
    assert [n["params"]["progress"] for n in reply.notifications] == [1]
    assert router.suite.live_workers == 0


async def test_an_exception_in_call_is_logged_and_answered_with_internal_error(
    failing: tuple[ModernClient, MCPRouter], caplog: pytest.LogCaptureFixture
) -> None:
    client, router = failing
    with caplog.at_level(logging.ERROR, logger="genmcp"):
        reply = await client.request("tools/call", {"name": "crash"})
    assert reply.status == 200
    assert reply.error["code"] == -32603
    assert "crash" in reply.error["message"]
    assert "boom in call" not in reply.error["message"]  # no internals to the client
    assert any("boom in call" in (r.exc_text or "") for r in caplog.records)
    assert router.suite.live_workers == 0


async def test_an_exception_while_streaming_ends_the_open_stream_with_an_error_event(
    failing: tuple[ModernClient, MCPRouter],
) -> None:
    client, router = failing
    reply = await client.request("tools/call", {"name": "crash_streaming"})
    assert reply.is_sse
    assert reply.error["code"] == -32603
    await eventually(lambda: router.suite.live_workers == 0)


async def test_an_undocumented_return_raises_callback_return_error(
    failing: tuple[ModernClient, MCPRouter], caplog: pytest.LogCaptureFixture
) -> None:
    client, _ = failing
    with caplog.at_level(logging.ERROR, logger="genmcp"):
        reply = await client.request("tools/call", {"name": "bad_return"})
    assert reply.error["code"] == -32603
    logged = "\n".join(r.exc_text or "" for r in caplog.records)
    assert "CallbackReturnError" in logged
    assert "'bad_return': call() returned 42" in logged


async def test_an_error_outcome_is_a_json_rpc_error_with_the_tools_code(
    failing: tuple[ModernClient, MCPRouter],
) -> None:
    client, _ = failing
    reply = await client.request("tools/call", {"name": "protocol_error"})
    assert reply.error == {"code": 4290, "message": "quota exhausted", "data": {"retryAfterS": 3}}


async def test_suite_send_reaches_a_worker_by_id_and_mailbox_refuses_after_the_end(
    failing: tuple[ModernClient, MCPRouter],
) -> None:
    client, router = failing
    async with client.stream("tools/call", {"name": "echo_stream"}) as exchange:
        await eventually(lambda: len(record.mailboxes) == 1)
        mailbox = record.mailboxes[0]
        assert router.suite.send(mailbox.id, "one")
        assert mailbox.send("two")  # from this (foreign) thread
        assert router.suite.send(mailbox.id, "stop")
        reply = await exchange.drain()
    assert [n["params"]["data"] for n in reply.notifications] == ["one", "two"]
    assert reply.result["structuredContent"] == {"got": ["one", "two"]}
    await eventually(lambda: router.suite.live_workers == 0)
    assert mailbox.closed
    assert mailbox.send("late") is False
    assert router.suite.send(mailbox.id, "late") is False


@pytest.mark.long
async def test_a_thousand_concurrent_streaming_calls_complete_and_leave_no_worker(
    live_server: Any, modern_client: Any
) -> None:
    many = httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=1000))
    client: ModernClient = modern_client(live_server(streaming.app), timeout=60.0, transport=many)

    async def one(i: int) -> int:
        reply = await client.request(
            "tools/call",
            {"name": "count_to", "arguments": {"n": 2, "interval_ms": 1}},
            progress_token=i,
            validate=i % 50 == 0,  # schema-check a sample; checking all takes seconds
        )
        assert [n["params"]["progressToken"] for n in reply.notifications] == [i, i]
        assert reply.result["content"][0]["text"] == "counted to 2"
        return i

    done = await asyncio.gather(*(one(i) for i in range(1000)))
    assert sorted(done) == list(range(1000))
    await eventually(lambda: streaming.router.suite.live_workers == 0)


async def test_app_shutdown_closes_live_streams_through_the_router_lifespan() -> None:
    record.__init__()  # type: ignore[misc]
    router = mcp_router(server_name="t", server_version="1", tools=[EchoStreamTool])
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    async with app.router.lifespan_context(app):
        request = Request(1, "tools/call", {"name": "echo_stream", "_meta": meta})
        call = await router.suite.handle(request, {})
        await eventually(lambda: len(record.mailboxes) == 1)
        assert router.suite.live_workers == 1
        assert call.task is not None
    await eventually(lambda: router.suite.live_workers == 0)
    assert record.mailboxes[0].closed

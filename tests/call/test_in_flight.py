"""call.in_flight through a real Suite: workers and listen streams counted apart, posts reach
a live worker only, a call forgets itself when it ends, and shutdown ends every call."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from genmcp import Channel, Result, Stream, Suite, Tool, ToolRequest, call_tool_result
from genmcp.call.call import Call
from genmcp.call.relay import Relay
from genmcp.events import Answer, Interim
from genmcp.protocol.jsonrpc import Request

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


class Streams(Tool, name="streams"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Stream:
        return Stream(0)

    async def handle_message(self, message: Any, channel: Channel, state: Any, arg: Any) -> Any:
        if message == "stop":
            return Result(call_tool_result(text=f"stopped after {state}"))
        return Stream(state + 1)


def served() -> Suite:
    return Suite(server_name="s", server_version="1", secret_key="k" * 48, tools=[Streams])


async def worker(suite: Suite, request_id: int) -> Call:
    request = Request(request_id, "tools/call", {"name": "streams", "_meta": META})
    return await suite.handle(request, {}, dict(META))


async def listener(suite: Suite) -> Relay:
    params = {"notifications": {"toolsListChanged": True}, "_meta": META}
    relay = Relay(await suite.handle(Request("L", "subscriptions/listen", params), {}))
    assert isinstance(await relay.next(), Interim)  # acknowledged: the stream is open
    return relay


async def eventually(check: Callable[[], bool]) -> None:
    for _ in range(1000):  # a hang guard: 10 s
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not reached")


async def test_workers_and_listeners_are_counted_apart_and_posts_reach_live_workers() -> None:
    suite = served()
    first, second = await worker(suite, 1), await worker(suite, 2)
    relay = await listener(suite)
    assert (suite.live_workers, suite.live_listeners) == (2, 1)
    assert suite.send(first.id, "more") and suite.send(first.id, "stop")
    (answer,) = [event async for event in Relay(first)]
    assert isinstance(answer, Answer)
    assert answer.response["result"]["content"][0]["text"] == "stopped after 1"
    await eventually(lambda: suite.live_workers == 1)
    assert not suite.send(first.id, "late")  # it ended: forgotten
    assert not suite.send("no-such-worker", "x")
    assert not await suite.wait_idle(0.05)  # the second still runs
    assert suite.send(second.id, "stop")
    assert await suite.wait_idle(10)
    assert (suite.live_workers, suite.live_listeners) == (0, 1)  # a listen stream is no work
    await suite.aclose()
    ended = await relay.next()
    assert isinstance(ended, Answer) and ended.response["result"]["resultType"] == "complete"
    await eventually(lambda: suite.live_listeners == 0)


async def test_shutdown_answers_every_call_and_each_forgets_itself() -> None:
    suite = served()
    calls = [await worker(suite, n) for n in range(3)]
    await listener(suite)
    await suite.aclose()
    for call in calls:
        events = [event async for event in Relay(call)]
        assert isinstance(events[-1], Answer) and events[-1].reason == "shutting_down"
    await eventually(lambda: (suite.live_workers, suite.live_listeners) == (0, 0))
    assert not suite.send(calls[0].id, "x")

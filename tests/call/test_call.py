"""The Call through a real Suite: each phase left by disconnect, cancel, crash and shutdown."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from genmcp import (
    Channel,
    InputRequired,
    Result,
    Stream,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
)
from genmcp.call.call import Call
from genmcp.call.lifecycle import Phase
from genmcp.call.relay import Relay
from genmcp.errors import TOOL_CRASH_HINT
from genmcp.events import Answer, Ended, Event, Interim
from genmcp.protocol.jsonrpc import Request
from genmcp.sessions.rounds import ASKED, Asking, InputRounds, outstanding, reply_topic
from genmcp.sessions.sessions import Session
from genmcp.storage.memory import MemoryBroker, MemorySessionRegistry

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}
seen: dict[str, Any] = {}


class Waits(Tool, name="waits"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            seen["cancelled"] = True
            raise
        return Result(call_tool_result(text="late"))


class Sleeps(Tool, name="sleeps"):
    def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        time.sleep(0.2)
        seen["thread_done"] = threading.current_thread().name
        return Result(call_tool_result(text="slept"))


class Streams(Tool, name="streams"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Stream:
        return Stream(0)

    async def handle_message(self, message: Any, channel: Channel, state: Any, arg: Any) -> Any:
        if message == "boom":
            raise RuntimeError("handle_message broke")
        if message == "stop":
            return Result(call_tool_result(text=f"stopped after {state}"))
        seen["handled"] = state + 1
        return Stream(state + 1)

    async def handle_close(self, channel: Channel, state: Any, arg: Any) -> None:
        seen.setdefault("closed", []).append(state)


class Crashes(Tool, name="crashes"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        raise ValueError("the tool broke")


class Asks(Tool, name="asks"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        if request.input_responses is None:
            return InputRequired({"ok": elicit_request("Sure?", {"type": "object"})}, "s")
        return Result(call_tool_result(text=request.input_responses["ok"]["action"]))


@pytest.fixture(autouse=True)
def fresh() -> None:
    seen.clear()


def suite() -> Suite:
    return Suite(
        server_name="s",
        server_version="1",
        secret_key="k" * 48,
        tools=[Waits, Sleeps, Streams, Crashes, Asks],
    )


async def start(suite: Suite, name: str, **options: Any) -> Call:
    request = Request(7, "tools/call", {"name": name, "_meta": META})
    return await suite.handle(request, {}, dict(META), **options)


async def eventually(check: Callable[[], bool]) -> None:
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not reached")


async def events_of(call: Call) -> list[Event]:
    return [event async for event in Relay(call)]


async def test_an_answered_call_is_done_with_its_answer_waiting() -> None:
    call = await suite().handle(Request(1, "tools/list", {"_meta": META}), {})
    assert call.phase is Phase.DONE and call.task is None
    call.disconnect()  # late news: nothing changes
    (answer,) = await events_of(call)
    assert isinstance(answer, Answer) and "tools" in answer.response["result"]


async def test_an_unknown_tool_is_answered_with_its_reason() -> None:
    call = await start(suite(), "nope")
    (answer,) = await events_of(call)
    assert isinstance(answer, Answer) and answer.reason == "unknown_tool"


async def test_disconnect_while_running_cancels_an_async_hook() -> None:
    served = suite()
    call = await start(served, "waits")
    await asyncio.sleep(0.05)
    assert call.phase is Phase.RUNNING and served.live_workers == 1
    call.disconnect()
    assert call.phase is Phase.ABANDONED
    await call.wait()
    assert seen["cancelled"] and call.phase is Phase.DONE and served.live_workers == 0
    assert call.outbox.get_nowait() is None  # nothing emitted: nobody listens


async def test_disconnect_while_running_lets_a_thread_hook_finish_and_drops_it() -> None:
    served = suite()
    call = await start(served, "sleeps")
    await asyncio.sleep(0.05)
    call.disconnect()
    assert served.live_workers == 1  # the thread still runs: counted until it returns
    await call.wait()
    assert "thread_done" in seen and call.phase is Phase.DONE and served.live_workers == 0
    assert call.outbox.get_nowait() is None


async def test_disconnect_before_the_task_ever_ran_still_ends_it() -> None:
    served = suite()
    call = await start(served, "waits")
    call.disconnect()  # the task has not taken a step yet
    await call.wait()
    assert call.phase is Phase.DONE and served.live_workers == 0


async def test_disconnect_while_streaming_runs_handle_close_once() -> None:
    served = suite()
    call = await start(served, "streams")
    await eventually(lambda: call.phase is Phase.STREAMING)
    assert served.send(call.id, "one")
    await eventually(lambda: seen.get("handled") == 1)
    call.disconnect()
    call.disconnect()
    await call.wait()
    assert seen["closed"] == [1] and call.phase is Phase.DONE
    assert not served.send(call.id, "late")


async def test_a_message_that_ends_the_stream_answers() -> None:
    served = suite()
    call = await start(served, "streams")
    await eventually(lambda: call.phase is Phase.STREAMING)
    served.send(call.id, "stop")
    (answer,) = await events_of(call)
    assert isinstance(answer, Answer)
    assert answer.response["result"]["content"][0]["text"] == "stopped after 0"
    assert "closed" not in seen and served.live_workers == 0


async def test_cancel_while_running_ends_the_stream_without_an_answer() -> None:
    call = await start(suite(), "waits")
    await asyncio.sleep(0.05)
    call.cancel()
    assert await events_of(call) == [Ended()]
    await call.wait()
    assert seen["cancelled"]


async def test_cancel_while_streaming_ends_the_stream_then_closes() -> None:
    call = await start(suite(), "streams")
    await eventually(lambda: call.phase is Phase.STREAMING)
    call.cancel()
    assert await events_of(call) == [Ended()]
    await call.wait()
    assert seen["closed"] == [0]


@pytest.mark.parametrize("name", ["crashes"])
async def test_a_crash_in_call_is_an_internal_error(name: str) -> None:
    (answer,) = await events_of(await start(suite(), name))
    assert isinstance(answer, Answer) and answer.reason == "internal_error"
    assert answer.response["error"] == {
        "code": -32603,
        "message": "Internal error in tool 'crashes' " + TOOL_CRASH_HINT,
    }


async def test_a_crash_in_handle_message_is_an_internal_error_and_no_close() -> None:
    served = suite()
    call = await start(served, "streams")
    await eventually(lambda: call.phase is Phase.STREAMING)
    served.send(call.id, "boom")
    (answer,) = await events_of(call)
    assert isinstance(answer, Answer) and answer.response["error"]["code"] == -32603
    assert "closed" not in seen


async def test_shutdown_while_running_answers_with_a_shutdown_error() -> None:
    call = await start(suite(), "waits")
    await asyncio.sleep(0.05)
    call.shutdown()
    (answer,) = await events_of(call)
    assert isinstance(answer, Answer) and answer.reason == "shutting_down"
    assert answer.response["error"]["code"] == -32000
    await call.wait()
    assert seen["cancelled"]


async def test_shutdown_while_streaming_answers_then_closes() -> None:
    served = suite()
    call = await start(served, "streams")
    await eventually(lambda: call.phase is Phase.STREAMING)
    await served.aclose()
    events = await events_of(call)
    assert isinstance(events[-1], Answer) and events[-1].reason == "shutting_down"
    assert seen["closed"] == [0] and call.phase is Phase.DONE


async def test_shutdown_ends_a_listen_stream_with_its_complete_result() -> None:
    served = suite()
    params = {"notifications": {"toolsListChanged": True}, "_meta": META}
    request = Request("L", "subscriptions/listen", params)
    call = await served.handle(request, {})
    relay = Relay(call)
    acknowledged = await relay.next()
    assert isinstance(acknowledged, Interim)
    assert served.live_listeners == 1
    await served.aclose()
    answer = await relay.next()
    assert isinstance(answer, Answer) and answer.response["result"]["resultType"] == "complete"
    await eventually(lambda: served.live_listeners == 0)


def rounds(broker: MemoryBroker, registry: MemorySessionRegistry | None = None) -> InputRounds:
    asking = Asking(broker, MemorySessionRegistry() if registry is None else registry, 2, 5)
    session = Session("S", "2025-06-18", {}, {}, time.time() + 60)
    return InputRounds(asking, session, "tools/call")


async def test_an_input_round_asks_then_runs_the_hook_again() -> None:
    broker, registry = MemoryBroker(), MemorySessionRegistry()
    call = await start(suite(), "asks", asker=rounds(broker, registry))
    relay = Relay(call)
    asked = await relay.next()
    assert isinstance(asked, Interim) and asked.message["method"] == "elicitation/create"
    assert call.phase is Phase.ASKING
    listed = await registry.members("S", ASKED)  # the request waits: listed, with its deadline
    assert outstanding(listed, time.time()) == [asked.message["id"]]
    assert outstanding(listed, time.time() + 6) == []
    answer = {"result": {"action": "decline"}, "error": None}
    await broker.publish(reply_topic("S", asked.message["id"]), answer)
    final = await relay.next()
    assert isinstance(final, Answer)
    assert final.response["result"]["content"][0]["text"] == "decline"
    assert await registry.members("S", ASKED) == frozenset()


async def test_disconnect_while_asking_abandons_the_round() -> None:
    broker, registry = MemoryBroker(), MemorySessionRegistry()
    served = suite()
    call = await start(served, "asks", asker=rounds(broker, registry))
    await Relay(call).next()
    assert call.phase is Phase.ASKING
    assert len(await registry.members("S", ASKED)) == 1
    call.disconnect()
    await call.wait()
    assert call.phase is Phase.DONE and served.live_workers == 0
    assert broker.topics == 0  # type: ignore[attr-defined]
    assert await registry.members("S", ASKED) == frozenset()

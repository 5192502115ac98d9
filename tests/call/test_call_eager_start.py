"""A call's first step runs at once, as the call's own task (an eager task: Python 3.12+'s,
``call.eager`` on 3.11), so a call that answers in it is done when ``Suite.handle`` returns,
with no loop turn; the tool runs as its own task: timeouts, task groups and cancellation
bind to the call, not to the request that started it."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result
from genmcp.call.call import Call
from genmcp.call.lifecycle import Phase
from genmcp.call.relay import Relay
from genmcp.events import Answer, Ended
from genmcp.protocol.jsonrpc import Request

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
EAGER = sys.version_info >= (3, 12)
seen: dict[str, Any] = {}


class Quick(Tool, name="quick"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        seen["task"] = asyncio.current_task()
        return Result(call_tool_result(text="quick"))


class TimesOut(Tool, name="times_out"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        try:
            async with asyncio.timeout(0.02):  # entered in the first step
                await asyncio.sleep(10)
        except TimeoutError:
            return Result(call_tool_result(text="timed out"))
        return Result(call_tool_result(text="slept"))


class Grouped(Tool, name="grouped"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        async with asyncio.TaskGroup() as group:  # entered in the first step
            one = group.create_task(asyncio.sleep(0.01, result=1))
            two = group.create_task(asyncio.sleep(0.02, result=2))
        return Result(call_tool_result(text=str(one.result() + two.result())))


class CancelsItself(Tool, name="cancels_itself"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        served: Suite = seen["suite"]
        served._in_flight.workers[channel.mailbox.id].cancel()  # from inside its own first step
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            seen["cancelled"] = True
            raise
        return Result(call_tool_result(text="not cancelled"))


@pytest.fixture(autouse=True)
def fresh() -> None:
    seen.clear()


async def handle(name: str) -> Call:
    served = Suite(
        server_name="s",
        server_version="1",
        secret_key="k" * 48,
        tools=[Quick, TimesOut, Grouped, CancelsItself],
    )
    seen["suite"] = served
    return await served.handle(Request(1, "tools/call", {"name": name, "_meta": META}), {}, {})


async def answer_of(call: Call) -> Answer | Ended:
    events = [event async for event in Relay(call)]
    last = events[-1]
    assert isinstance(last, (Answer, Ended))
    return last


async def test_a_call_that_answers_in_its_first_step() -> None:
    call = await handle("quick")
    assert call.task is not None
    assert call.phase is Phase.DONE  # done before handle returned: no loop turn to wait for
    assert Relay(call).poll() is not None
    if EAGER:  # never scheduled
        assert call.task.done()
    else:  # its task ends on the next turn (call.eager), with nothing left to run
        await asyncio.sleep(0)
        assert call.task.done() and call.task.result() is None
    assert seen["task"] is call.task  # it ran as the call's own task
    assert seen["task"] is not asyncio.current_task()


async def test_a_timeout_entered_in_the_first_step_stops_the_tool_only() -> None:
    answer = await answer_of(await handle("times_out"))
    assert isinstance(answer, Answer)
    assert answer.response["result"]["content"][0]["text"] == "timed out"
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


async def test_a_task_group_entered_in_the_first_step() -> None:
    answer = await answer_of(await handle("grouped"))
    assert isinstance(answer, Answer)
    assert answer.response["result"]["content"][0]["text"] == "3"


async def test_a_call_cancelled_from_inside_its_first_step_ends_without_an_answer() -> None:
    call = await handle("cancels_itself")
    assert isinstance(await answer_of(call), Ended)
    await call.wait()
    assert seen["cancelled"] is True
    assert call.phase is Phase.DONE
    assert seen["suite"].live_workers == 0

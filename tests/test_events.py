"""genmcp.events: the typed events of a request in flight, and how its end is named.

The types are small frozen values (checked here as values); their contract is the order a
Call emits them in, read here through a Suite driven by MCPTestClient: the events a
middleware taps on the Call's outbox, and the ``Ending`` ``watch`` reports.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest

from genmcp import Channel, Ending, Suite, Tool, ToolRequest, watch
from genmcp.call import Call
from genmcp.channel import CLOSE_STREAM
from genmcp.events import ENDED, STREAM_START, Answer, Ended, Event, Interim, StreamStart
from genmcp.middleware import CallEnd, MCPRequest
from genmcp.middleware.chain import Next
from genmcp.testing import MCPTestClient


def test_the_events_are_frozen_values_without_a_dict() -> None:
    message = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}
    interim = Interim(message)
    assert interim == Interim(dict(message)) and hash(StreamStart()) == hash(STREAM_START)
    assert Answer({"id": 1}) != Answer({"id": 1}, reason="unknown_tool")
    assert Answer({"id": 1}).reason is None
    for event in (interim, STREAM_START, Answer({"id": 1}), ENDED):
        assert isinstance(event, Event)  # the union every reader matches on
        assert not hasattr(event, "__dict__")  # slots: one per message, kept small
        assert getattr(type(event), "__final__", False)  # don't subclass these
        for field in dataclasses.fields(event):
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(event, field.name, None)
    assert STREAM_START == StreamStart() and ENDED == Ended()
    # close_stream's start is its own instance: equal to a stream start, told apart by identity
    assert CLOSE_STREAM == STREAM_START and CLOSE_STREAM is not STREAM_START


def test_an_ending_is_a_string() -> None:
    assert [e.value for e in Ending] == ["answered", "cancelled", "disconnected"]
    assert Ending.CANCELLED == "cancelled" and Ending("disconnected") is Ending.DISCONNECTED
    assert json.dumps({"ended": Ending.ANSWERED}) == '{"ended": "answered"}'


# -- the order a Call emits them in ---------------------------------------------------------


class Slow(Tool, name="slow", description="streams, reports, then answers"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        channel.start_stream()
        channel.send_progress(1, 2)
        channel.send_log("info", "half")
        return "done"


class Hang(Tool, name="hang", description="waits until the client goes away"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        await asyncio.Event().wait()


class Tap:
    """A middleware that records each Call's events, in order, and how it ended."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.ends: list[CallEnd] = []

    async def __call__(self, request: MCPRequest, call_next: Next) -> Call:
        call = await call_next(request)
        call.outbox.tap(self.events.append)
        return watch(call, on_done=self.ends.append)


def suite(tap: Tap) -> Suite:
    return Suite(server_name="events", server_version="1", tools=[Slow, Hang], middleware=[tap])


async def settled(tap: Tap, ends: int) -> None:
    for _ in range(200):
        if len(tap.ends) >= ends:
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"{len(tap.ends)} of {ends} calls reported their end")


async def test_a_call_emits_its_stream_start_messages_then_one_answer() -> None:
    tap = Tap()
    async with MCPTestClient(suite(tap)) as client:
        result = await client.call_tool("slow", {}, progress=True, log_level="info")
        await settled(tap, 1)
    assert result.text == "done"
    kinds = [type(event).__name__ for event in tap.events]
    assert kinds == ["StreamStart", "Interim", "Interim", "Answer"]
    progress, log = (event.message for event in tap.events[1:3])  # type: ignore[union-attr]
    assert (progress["method"], log["method"]) == (
        "notifications/progress",
        "notifications/message",
    )
    answer = tap.events[-1]
    assert isinstance(answer, Answer) and answer.reason is None
    assert answer.response["result"]["content"] == [{"type": "text", "text": "done"}]
    (end,) = tap.ends
    assert (end.ended, end.messages, end.answer) == (Ending.ANSWERED, 2, answer)


async def test_an_error_answer_names_its_reason() -> None:
    tap = Tap()
    async with MCPTestClient(suite(tap)) as client:
        reply = await client.request("tools/call", {"name": "nope", "arguments": {}})
        await settled(tap, 1)
    assert reply.error is not None
    assert [type(event) for event in tap.events] == [Answer]
    answer = tap.events[0]
    assert isinstance(answer, Answer) and answer.reason == "unknown_tool"
    assert answer.response["error"] == reply.error
    assert tap.ends[0].ended is Ending.ANSWERED and tap.ends[0].error == reply.error


async def test_a_client_that_leaves_ends_the_call_without_an_answer() -> None:
    tap = Tap()
    async with MCPTestClient(suite(tap)) as client:
        async with client.open_call("hang", {}) as call:
            await call.disconnect()
        await settled(tap, 1)
    assert not any(isinstance(event, Answer) for event in tap.events)
    (end,) = tap.ends
    assert (end.ended, end.answer, end.messages) == (Ending.DISCONNECTED, None, 0)

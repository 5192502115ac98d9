"""``legacy.signals``: a legacy call in flight stopped from any process, on one subscription.

Two ``CallSignals`` on one broker stand for two processes; the calls are real Calls of a
real Suite (``Suite.handle``). A cancel or a session end reaches the call wherever it runs;
an answered call's id is free at once; the subscription is one per process, not per call.
"""

from __future__ import annotations

import asyncio
from typing import Any

from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result
from genmcp.call.relay import Relay
from genmcp.protocol.jsonrpc import Request
from genmcp.sessions.signals import CallSignals
from genmcp.storage.memory import MemoryBroker

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


class Waits(Tool, name="waits"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        await asyncio.sleep(30)
        return Result(call_tool_result(text="late"))


class Quick(Tool, name="quick"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="done"))


def suite_of(*tools: type[Tool]) -> Suite:
    return Suite(server_name="signals", server_version="1", tools=list(tools))


async def start(suite: Suite, name: str, request_id: int = 1) -> Any:
    request = Request(request_id, "tools/call", {"name": name, "_meta": META})
    return await suite.handle(request, {}, dict(META))


async def ended(call: Any) -> list[Any]:
    """Every event the call emits, once it is done (a cancelled call's ``Ended`` comes
    first, its work winds down after: on 3.12 a loop turn later)."""
    events = [event async for event in Relay(call)]
    await call.wait()
    return events


async def test_a_cancel_sent_to_another_process_stops_the_call_where_it_runs() -> None:
    broker = MemoryBroker()
    here, there = CallSignals(broker), CallSignals(broker)
    await here.listen()
    await there.listen()
    assert here.listening and here.topics == 2
    call = await start(suite_of(Waits), "waits")
    here.track("session-a", 1, call)
    assert here.running("session-a", 1) and not here.running("session-a", "1")
    assert not there.running("session-a", 1)
    await there.cancel("session-a", 1)  # not here: told to every process
    await asyncio.wait_for(ended(call), 2)
    assert here.in_flight == 0
    here.close()
    there.close()
    assert broker.topics == 0


async def test_ending_a_session_stops_its_calls_only() -> None:
    broker = MemoryBroker()
    here, there = CallSignals(broker), CallSignals(broker)
    await here.listen()
    suite = suite_of(Waits)
    mine, other = await start(suite, "waits", 1), await start(suite, "waits", 2)
    here.track("session-a", 1, mine)
    here.track("session-b", 2, other)
    await there.end("session-a")
    await asyncio.wait_for(ended(mine), 2)
    assert here.running("session-b", 2) and not here.running("session-a", 1)
    await here.cancel("session-b", 2)  # a call of this process: cancelled at once
    await asyncio.wait_for(ended(other), 2)
    here.close()


async def test_an_answered_call_frees_its_id_at_once() -> None:
    signals = CallSignals(MemoryBroker())
    call = await start(suite_of(Quick), "quick")
    signals.track("session-a", 1, call)
    await asyncio.wait_for(ended(call), 2)
    assert not signals.running("session-a", 1) and signals.in_flight == 0


async def test_one_subscription_serves_every_call_and_close_drops_it() -> None:
    broker = MemoryBroker()
    signals = CallSignals(broker)
    assert (signals.topics, signals.listening) == (0, False)
    await asyncio.gather(signals.listen(), signals.listen(), signals.listen())
    assert broker.topics == 2 and signals.topics == 2
    signals.close()
    assert (broker.topics, signals.topics, signals.listening) == (0, 0, False)
    await signals.listen()  # the next call opens it again
    assert broker.topics == 2
    signals.close()


async def test_a_cancel_for_an_id_that_is_not_a_string_or_integer_stops_nothing() -> None:
    broker = MemoryBroker()
    here = CallSignals(broker)
    await here.listen()
    call = await start(suite_of(Waits), "waits")
    here.track("session-a", 1, call)
    await CallSignals(broker).cancel("session-a", [1])
    await CallSignals(broker).cancel("session-a", True)
    await asyncio.sleep(0.05)
    assert here.running("session-a", 1) and here.in_flight == 1
    await here.cancel("session-a", 1)
    await asyncio.wait_for(ended(call), 2)
    here.close()

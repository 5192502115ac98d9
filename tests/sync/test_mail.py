"""``sync.mail``: posting to a worker by id, wherever it runs (``Suite.post``).

Two Suites on one broker stand for two processes of an app: a worker id names its Suite's
mail address, so a post made in the other Suite reaches the worker through that address's
inbox. Without a shared broker a post reaches local workers only; an address nobody holds
takes nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any

from genmcp import Channel, Result, Stream, Suite, Tool, ToolRequest, call_tool_result
from genmcp.call.relay import Relay
from genmcp.events import Answer
from genmcp.protocol.jsonrpc import Request
from genmcp.storage.memory import MemoryBroker
from genmcp.sync.mail import address_of

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


class Worker(Tool, name="worker", description="Streams until a message says stop."):
    ids: list[str] = []

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Stream:
        Worker.ids.append(channel.mailbox.id)
        return Stream([])

    async def handle_message(self, message: Any, channel: Channel, state: Any, arg: Any) -> Any:
        if message == "stop":
            return Result(call_tool_result(text=",".join(state)))
        return Stream([*state, message])


def suite_of(broker: MemoryBroker | None = None) -> Suite:
    return Suite(server_name="mail", server_version="1", tools=[Worker], broker=broker)


async def run_worker(suite: Suite) -> tuple[Any, str]:
    before = len(Worker.ids)
    call = await suite.handle(Request(1, "tools/call", {"name": "worker", "_meta": META}), {})
    for _ in range(200):
        if len(Worker.ids) > before:
            return call, Worker.ids[-1]
        await asyncio.sleep(0.005)
    raise AssertionError("the worker never started")


async def answer_of(call: Any) -> str:
    events = [event async for event in Relay(call)]
    [answer] = [event for event in events if isinstance(event, Answer)]
    text: str = answer.response["result"]["content"][0]["text"]
    return text


async def test_a_post_made_in_another_process_reaches_the_worker() -> None:
    broker = MemoryBroker()
    here, there = suite_of(broker), suite_of(broker)
    address = here.mail_address()
    call, worker_id = await run_worker(here)
    assert address_of(worker_id) == address
    assert await there.post(worker_id, "one")
    assert await there.post(worker_id, "two")
    assert await here.post(worker_id, "three")  # and from its own process
    assert await there.post(worker_id, "stop")
    handled = (await asyncio.wait_for(answer_of(call), 2)).split(",")
    assert sorted(handled) == ["one", "three", "two"]  # the local post may overtake the inbox
    assert handled.index("one") < handled.index("two")  # one inbox keeps its order
    await here.aclose()
    await there.aclose()


async def test_an_address_nobody_holds_takes_nothing() -> None:
    broker = MemoryBroker()
    there = suite_of(broker)
    assert not await there.post("nobody-7", "hello")


async def test_without_a_shared_broker_only_local_workers_are_reached() -> None:
    alone = suite_of()
    call, worker_id = await run_worker(alone)
    assert not await alone.post("elsewhere-1", "lost")
    assert await alone.post(worker_id, "kept")
    assert await alone.post(worker_id, "stop")
    assert await asyncio.wait_for(answer_of(call), 2) == "kept"
    assert not await alone.post(worker_id, "too late")  # the worker ended


def test_a_worker_id_names_its_suites_address() -> None:
    assert address_of("0a1b2c3d4e5f-12") == "0a1b2c3d4e5f"
    assert address_of("no-dash-here-3") == "no-dash-here"

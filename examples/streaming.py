"""Streaming tools: a worker fed from outside the request, slow work, progress.

* ``watch_orders`` subscribes its worker's mailbox to an in-process pub/sub
  topic, then returns ``Stream``: every order event published by anyone (here:
  the ``place_order`` tool, a background job, an HTTP route) reaches
  ``handle_message``, which reports it as progress until the awaited number of
  orders has arrived. If the client goes away first, ``handle_close``
  unsubscribes.
* ``slow_report`` opens the response stream at once with ``start_stream`` so
  keepalive comments flow while it works.
* ``count_to`` reports progress as it counts.

Run it with ``uvicorn --app-dir examples streaming:app``.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

from fastapi import FastAPI

from genmcp import (
    Channel,
    Result,
    Stream,
    Tool,
    ToolRequest,
    call_tool_result,
    mcp_router,
)
from genmcp.channel import Mailbox


class PubSub:
    """A tiny in-process publish/subscribe hub that posts to worker mailboxes."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Mailbox]] = defaultdict(set)

    def subscribe(self, topic: str, mailbox: Mailbox) -> None:
        self._subscribers[topic].add(mailbox)

    def unsubscribe(self, topic: str, mailbox: Mailbox) -> None:
        self._subscribers[topic].discard(mailbox)

    def subscriber_count(self, topic: str) -> int:
        return len(self._subscribers[topic])

    def publish(self, topic: str, message: Any) -> int:
        """Post ``message`` to every subscriber; returns how many took it."""
        return sum(mailbox.send(message) for mailbox in list(self._subscribers[topic]))


orders = PubSub()


class WatchOrdersTool(
    Tool,
    name="watch_orders",
    description="Streams order events as progress until `count` orders have been placed.",
    input_schema={
        "type": "object",
        "properties": {"count": {"type": "integer", "minimum": 1, "maximum": 1000}},
        "required": ["count"],
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Stream:
        assert channel.mailbox is not None
        orders.subscribe("orders", channel.mailbox)
        channel.start_stream()
        return Stream({"seen": [], "count": request.arguments["count"]})

    async def handle_message(
        self, message: Any, channel: Channel, state: Any, arg: Any
    ) -> Result | Stream:
        seen = [*state["seen"], message["item"]]
        channel.send_progress(len(seen), total=state["count"], message=f"order: {message['item']}")
        if len(seen) < state["count"]:
            return Stream({**state, "seen": seen})
        assert channel.mailbox is not None
        orders.unsubscribe("orders", channel.mailbox)
        return Result(call_tool_result(structured={"orders": seen}))

    async def handle_close(self, channel: Channel, state: Any, arg: Any) -> None:
        assert channel.mailbox is not None
        orders.unsubscribe("orders", channel.mailbox)


class PlaceOrderTool(
    Tool,
    name="place_order",
    description="Places an order; watchers see it.",
    input_schema={
        "type": "object",
        "properties": {"item": {"type": "string", "minLength": 1}},
        "required": ["item"],
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        delivered = orders.publish("orders", {"item": request.arguments["item"]})
        return Result(call_tool_result(text=f"placed; {delivered} watcher(s) notified"))


class SlowReportTool(
    Tool,
    name="slow_report",
    description="Works for a while; the stream opens at once so keepalives flow.",
    input_schema={
        "type": "object",
        "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 60}},
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        channel.start_stream()
        await asyncio.sleep(request.arguments.get("seconds", 1.0))
        return Result(call_tool_result(text="report ready"))


class CountToTool(
    Tool,
    name="count_to",
    description="Counts to n, reporting progress at each step.",
    input_schema={
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 1, "maximum": 100},
            "interval_ms": {"type": "integer", "minimum": 0, "maximum": 1000},
        },
        "required": ["n"],
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        n = request.arguments["n"]
        pause = request.arguments.get("interval_ms", 10) / 1000
        for step in range(1, n + 1):
            await asyncio.sleep(pause)
            channel.send_progress(step, total=n)
            channel.send_log("debug", {"step": step}, logger="count_to")
        return Result(call_tool_result(text=f"counted to {n}"))


router = mcp_router(
    server_name="genmcp-streaming",
    server_version="0.1.0",
    tools=[WatchOrdersTool, PlaceOrderTool, SlowReportTool, CountToTool],
    keepalive_s=15.0,
)
app = FastAPI(title="genmcp streaming example")
app.include_router(router, prefix="/mcp")


@app.post("/orders/{item}")
async def place_order(item: str) -> dict[str, int]:
    """An ordinary route (or a background job) feeding the streaming tool."""
    return {"notified": orders.publish("orders", {"item": item})}

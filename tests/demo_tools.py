"""Tools the developer-experience tests serve: in process, over stdio and over HTTP.

`make_suite()` builds a fresh Suite (its own `Stats`) for in-process tests; the module-level
`suite`, `router` and `app` are what `genmcp run demo_tools:...` serves in a subprocess.

Tools: `add` (plain), `count` (progress and logs), `nap` (async sleep, cancellable),
`follow` (a stream that ends on a mailbox message, `handle_close` recorded), `confirm`
(multi round-trip elicitation), `boom` (raises), `stats` (what the process saw so far),
`echo` (returns its arguments as structured content; one argument travels in a header),
`chatty` (prints, logs and writes to file descriptor 1: none of it may reach stdio's stdout).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI

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
    mcp_router,
)

SECRET = "demo-tools-secret-key-that-is-long-enough-to-sign"

NUMBERS = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}


@dataclass
class Stats:
    """What one Suite's tools saw; the `stats` tool reports it."""

    cancelled: int = 0
    closed: int = 0
    started: int = 0
    suite: Suite | None = None

    def report(self) -> dict[str, int]:
        live = self.suite.live_workers - 1 if self.suite else -1  # not counting `stats` itself
        return {
            "cancelled": self.cancelled,
            "closed": self.closed,
            "started": self.started,
            "live_workers": live,
        }


class AddTool(Tool, name="add", description="Adds two numbers.", input_schema=NUMBERS):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        total = request.arguments["a"] + request.arguments["b"]
        return Result(call_tool_result(text=str(total)))


class CountTool(
    Tool,
    name="count",
    description="Counts to n, reporting progress and logging each step.",
    input_schema={
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0}, "delay": {"type": "number"}},
        "required": ["n"],
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        n, delay = request.arguments["n"], request.arguments.get("delay", 0)
        for step in range(1, n + 1):
            channel.send_progress(step, n, f"step {step}")
            channel.send_log("info", {"step": step}, logger="count")
            await asyncio.sleep(delay)
        return Result(call_tool_result(text=f"counted to {n}"))


class NapTool(
    Tool,
    name="nap",
    description="Sleeps, then answers; a cancelled nap is counted.",
    input_schema={"type": "object", "properties": {"seconds": {"type": "number"}}},
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Stats) -> Result:
        arg.started += 1
        channel.send_progress(0, message="asleep")
        try:
            await asyncio.sleep(request.arguments.get("seconds", 30))
        except asyncio.CancelledError:
            arg.cancelled += 1
            print("nap: cancelled", file=sys.stderr, flush=True)
            raise
        return Result(call_tool_result(text="rested"))


class FollowTool(Tool, name="follow", description="Streams until a mailbox message arrives."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Stats) -> Stream:
        arg.started += 1
        channel.send_progress(0, message=f"worker {channel.mailbox.id if channel.mailbox else ''}")
        return Stream({"seen": 0})

    async def handle_message(
        self, message: Any, channel: Channel, state: Any, arg: Stats
    ) -> Result | Stream:
        if message == "stop":
            return Result(call_tool_result(structured={"seen": state["seen"]}))
        channel.send_progress(state["seen"] + 1, message=str(message))
        return Stream({"seen": state["seen"] + 1})

    async def handle_close(self, channel: Channel, state: Any, arg: Stats) -> None:
        arg.closed += 1
        print("follow: handle_close", file=sys.stderr, flush=True)


class ConfirmTool(
    Tool,
    name="confirm",
    description="Asks the user to confirm, then answers with what they chose.",
    input_schema={
        "type": "object",
        "properties": {"question": {"type": "string"}},
        "required": ["question"],
    },
):
    async def call(
        self, request: ToolRequest, channel: Channel, arg: Any
    ) -> Result | InputRequired:
        answer = (request.input_responses or {}).get("ok")
        if answer is None:
            schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
            ask = elicit_request(request.arguments["question"], schema)
            return InputRequired({"ok": ask}, state={"round": 1})
        if answer.get("action") != "accept":
            return Result(call_tool_result(text=f"not confirmed ({answer.get('action')})"))
        confirmed = bool((answer.get("content") or {}).get("ok"))
        rounds = request.request_state["round"] + 1
        return Result(call_tool_result(structured={"confirmed": confirmed, "rounds": rounds}))


class BoomTool(Tool, name="boom", description="Always fails (a server bug)."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        raise RuntimeError("boom")


class StatsTool(Tool, name="stats", description="What the tools of this process saw."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Stats) -> Result:
        return Result(call_tool_result(structured=arg.report()))


class EchoTool(
    Tool,
    name="echo",
    description="Returns its arguments.",
    input_schema={
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "value": {},
        },
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(structured=request.arguments))


class ChattyTool(Tool, name="chatty", description="Prints, logs and writes to fd 1."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        print("chatty: print() to stdout")
        logging.getLogger("demo").warning("chatty: a log record")
        os.write(1, b"chatty: raw write to fd 1\n")
        return Result(call_tool_result(text="said things"))


def make_suite(stats: Stats | None = None, **options: Any) -> Suite:
    """A fresh Suite serving every demo tool; `stats` collects what they saw."""
    stats = stats or Stats()
    stats.suite = Suite(
        server_name="demo",
        server_version="1.0.0",
        secret_key=SECRET,
        tools=[
            AddTool,
            CountTool,
            (NapTool, stats),
            (FollowTool, stats),
            ConfirmTool,
            BoomTool,
            (StatsTool, stats),
            EchoTool,
            ChattyTool,
        ],
        **options,
    )
    return stats.suite


suite = make_suite()
router = mcp_router(suite=make_suite())
app = FastAPI()
app.include_router(mcp_router(suite=make_suite()), prefix="/mcp")
not_a_server = 42

"""The tools the relay's tests drive: they answer at once, after a silent wait, after a log,
after starting their stream, or with a rate-limit error (tests/call/test_relay.py for the
reader, tests/transports/http/test_relay.py for the HTTP writer)."""

from __future__ import annotations

import asyncio
from typing import Any, Final

from genmcp import Channel, MCPError, Result, Tool, ToolRequest, call_tool_result

WAIT: Final = {"type": "object", "properties": {"seconds": {"type": "number"}}}
META: Final = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


class Now(Tool, name="now", description="Answers in its first step."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="now"))


class Later(Tool, name="later", description="Sleeps, sends nothing, answers.", input_schema=WAIT):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        await asyncio.sleep(float(request.arguments.get("seconds", 0.05)))
        return Result(call_tool_result(text="later"))


class Talks(Tool, name="talks", description="Logs, then answers."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        await asyncio.sleep(0.01)
        channel.send_log("info", "working")
        return Result(call_tool_result(text="talked"))


class Starts(Tool, name="starts", description="Starts its stream, sleeps, answers."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        channel.start_stream()
        await asyncio.sleep(0.05)
        return Result(call_tool_result(text="started"))


class Busy(Tool, name="busy", description="Refuses: rate limited, retry in 2.5 s."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        raise MCPError("rate_limited", "slow down", {"retryAfter": 2.5})


TOOLS: Final = (Now, Later, Talks, Starts, Busy)

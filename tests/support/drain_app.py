"""The streaming example's tools behind a router that drains streams for 1 s at shutdown
(tests/transports/http/test_sse_shutdown.py: a call longer than the drain is stopped), and
``late:app``-style ``late_app``: the default drain (30 s) with a tool whose stream opens
only after a delay (a stream that joins the shutdown after the signal)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
from streaming import SlowReportTool, WatchOrdersTool

app = FastAPI()
app.include_router(
    mcp_router(
        server_name="drain", server_version="1", tools=[WatchOrdersTool, SlowReportTool],
        drain_s=1.0,
    ),
    prefix="/mcp",
)


class LateStreamTool(
    Tool,
    name="late_stream",
    description="Works `delay` s before its stream opens, then `seconds` more.",
    input_schema={
        "type": "object",
        "properties": {"delay": {"type": "number"}, "seconds": {"type": "number"}},
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        await asyncio.sleep(request.arguments.get("delay", 0.5))
        channel.start_stream()
        await asyncio.sleep(request.arguments.get("seconds", 0.5))
        return Result(call_tool_result(text="late report ready"))


late_app = FastAPI()
late_app.include_router(
    mcp_router(server_name="late", server_version="1", tools=[SlowReportTool, LateStreamTool]),
    prefix="/mcp",
)

"""The streaming example's tools behind a router that drains streams for 1 s at shutdown
(tests/transports/http/test_sse_shutdown.py: a call longer than the drain is stopped)."""

from __future__ import annotations

import sys
from pathlib import Path

from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from genmcp import mcp_router
from streaming import SlowReportTool, WatchOrdersTool

app = FastAPI()
app.include_router(
    mcp_router(
        server_name="drain", server_version="1", tools=[WatchOrdersTool, SlowReportTool],
        drain_s=1.0,
    ),
    prefix="/mcp",
)

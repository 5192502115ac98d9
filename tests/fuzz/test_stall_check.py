"""The fuzz harness's stall check (`scenarios.pings_during`) sees a loop held by a tool call.

No wall-clock budget: the check judges the slowest ping against the costly call's own
duration. Here the costly call holds the server's loop on purpose (`time.sleep` in an async
tool, what a validation run on the loop did), and the same call without the hold (an
`asyncio.sleep`) passes, on the same server, in the same run.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from fuzz.cases import modern_request
from fuzz.runner import READ_LIMIT_S, Target
from fuzz.scenarios import STALL_PIECES, _call, _modern, pings_during
from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
from support.server import LiveServers

HOLD_S = 0.5  # what VALIDATION_BUDGET_S lets one validation take


class Holds(Tool, name="holds", input_schema={"type": "object"}):
    """Holds the loop for `HOLD_S` (a blocking sleep in an async tool)."""

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        time.sleep(HOLD_S)  # noqa: ASYNC251 (the point: the loop is held)
        return Result(call_tool_result(text="held"))


class Waits(Tool, name="waits", input_schema={"type": "object"}):
    """Takes as long without holding the loop."""

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        await asyncio.sleep(HOLD_S)
        return Result(call_tool_result(text="waited"))


@pytest.mark.timeout(60)
async def test_the_stall_check_sees_a_held_loop(live_server: LiveServers) -> None:
    app = FastAPI()
    app.include_router(
        mcp_router(server_name="t", server_version="1", tools=[Holds, Waits]), prefix="/mcp"
    )
    base_url = live_server(app)
    probe = _modern("hostile_schema.stall", modern_request("server/discover", request_id=2))
    async with httpx.AsyncClient(timeout=READ_LIMIT_S) as client:
        target = Target(base_url, client)
        held, outcomes = await pings_during(target, _modern("t", _call("holds", {})), probe)
        waited, _ = await pings_during(target, _modern("t", _call("waits", {})), probe)
    assert '"held"' in outcomes[0].answer.body.decode()
    print(f"held: {held}; waited: {waited}")
    assert not held.chunked() and held.pieces() < 2, held  # one ping waited for most of it
    assert waited.chunked(), waited
    assert waited.answered >= STALL_PIECES

"""`genmcp.client.Client` against the official Python SDK's server (`mcp` 2.3) on uvicorn.

Interop, both eras: the SDK's `MCPServer` serves 2026-07-28 and 2025 sessions on one
endpoint; the client probes (2026-07-28) or is told 2025-11-25, lists, calls, gets
progress, answers the SDK's elicitation (a 2025 server request) and cancels a call.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from genmcp.client import Client
from support.server import LiveServers


class Confirm(BaseModel):
    ok: bool


def sdk_app(cancelled: threading.Event) -> Any:
    server = MCPServer("sdk-server", version="9.9")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool()
    async def steps(n: int, ctx: Context) -> str:  # type: ignore[type-arg]
        for i in range(n):
            await ctx.report_progress(i + 1, n, f"step {i + 1}")
        return "done"

    @server.tool()
    async def ask(ctx: Context) -> str:  # type: ignore[type-arg]
        answer = await ctx.elicit("Sure?", Confirm)
        return f"{answer.action} {getattr(answer, 'data', None)}"

    @server.tool()
    async def nap(ctx: Context) -> str:  # type: ignore[type-arg]
        await ctx.report_progress(0, 1, "asleep")
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "rested"

    return server.streamable_http_app()


@pytest.fixture
def cancelled() -> threading.Event:
    return threading.Event()


@pytest.fixture
def sdk(live_server: LiveServers, cancelled: threading.Event) -> str:
    return live_server(sdk_app(cancelled)) + "/mcp"


@pytest.mark.parametrize("era", [None, "2025-11-25"], ids=["2026-07-28", "2025-11-25"])
async def test_list_call_and_progress(sdk: str, era: str | None) -> None:
    progress: list[Any] = []
    async with Client(sdk, protocol=era) as client:
        tools = {tool["name"] for tool in await client.list_tools()}
        added = await client.call_tool("add", {"a": 1, "b": 2})
        await client.call_tool("steps", {"n": 2}, on_progress=lambda *a: progress.append(a))

    assert client.era == (era or "2026-07-28")
    assert client.server_info == {"name": "sdk-server", "version": "9.9"}
    assert {"add", "steps", "ask", "nap"} <= tools
    assert added["structuredContent"] == {"result": 3}
    assert progress == [(1, 2, "step 1"), (2, 2, "step 2")]


async def test_the_sdk_s_elicitation_is_answered_in_a_session(sdk: str) -> None:
    def accept(params: dict[str, Any]) -> dict[str, Any]:
        assert params["message"] == "Sure?"
        return {"action": "accept", "content": {"ok": True}}

    async with Client(sdk, protocol="2025-11-25", elicitation=accept) as client:
        result = await client.call_tool("ask", {})

    assert result["content"][0]["text"] == "accept ok=True"


@pytest.mark.exclusive
@pytest.mark.parametrize("era", [None, "2025-11-25"], ids=["2026-07-28", "2025-11-25"])
async def test_cancelling_reaches_the_sdk_s_tool(
    sdk: str, era: str | None, cancelled: threading.Event
) -> None:
    async with Client(sdk, protocol=era) as client:
        asleep = asyncio.Event()
        call = asyncio.create_task(client.call_tool("nap", {}, on_progress=lambda *_: asleep.set()))
        await asyncio.wait_for(asleep.wait(), 10)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert await asyncio.to_thread(cancelled.wait, 10)

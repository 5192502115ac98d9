"""A 2025 session upstream's requests mid-call, relayed as input rounds of the outer client.

The upstream is the official Python SDK's server (``mcp`` 2.3, ``ctx.elicit``: an
``elicitation/create`` request on the call's stream), mounted by URL with
``protocol="2025-11-25"``; the outer Suite is served by uvicorn too. A 2026-07-28 outer
client gets ``input_required`` and retries; a 2025 session outer client is asked on its
own stream; an outer client that never retries leaves the upstream call waiting a bounded
time. A genmcp upstream that ends its POST stream early (SSE polling) closes the outer's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from genmcp import Channel, Mount, Result, Suite, Tool, ToolRequest, call_tool_result, mcp_app
from genmcp.client import Client, RPCError
from support.server import LiveServers


class Confirm(BaseModel):
    ok: bool


def sdk_app() -> Any:
    server = MCPServer("sdk-server", version="9.9")

    @server.tool()
    async def ask(ctx: Context) -> str:  # type: ignore[type-arg]
        await ctx.report_progress(1, 2, "asking")
        answer = await ctx.elicit("Sure?", Confirm)
        return f"{answer.action} {getattr(answer, 'data', None)}"

    return server.streamable_http_app()


class Polled(Tool, name="polled"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        channel.close_stream()  # the client resumes with GET and Last-Event-ID
        await asyncio.sleep(0.1)
        return Result(call_tool_result(text="after the poll"))


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Mount]]:
    live = LiveServers()
    try:
        sdk = live(sdk_app()) + "/mcp"
        polled = live(mcp_app(Suite(server_name="p", server_version="1", tools=[Polled])))
        mount = Mount(url=sdk, namespace="sdk", protocol="2025-11-25", timeout_s=30)
        other = Mount(url=polled + "/mcp", namespace="p", protocol="2025-11-25", timeout_s=30)
        outer = Suite(server_name="gateway", server_version="1", mounts=[mount, other])
        yield live(mcp_app(outer)) + "/mcp", mount
    finally:
        live.stop_all()


async def test_a_modern_outer_client_answers_with_a_retry(served: tuple[str, Mount]) -> None:
    url, _ = served
    progress: list[Any] = []
    async with Client(url, capabilities={"elicitation": {}}) as client:
        asked = await client.call_tool("sdk_ask", {}, on_progress=lambda *a: progress.append(a))
        (key, request), *_ = asked["inputRequests"].items()
        done = await client.call_tool(
            "sdk_ask", {}, input_responses={key: {"action": "accept", "content": {"ok": True}}},
            request_state=asked["requestState"],
        )  # fmt: skip
    assert client.era == "2026-07-28"
    assert asked["resultType"] == "input_required"
    assert request["method"] == "elicitation/create"
    assert request["params"]["message"] == "Sure?"
    assert progress == [(1, 2, "asking")]
    assert done["content"][0]["text"] == "accept ok=True"


async def test_a_session_outer_client_is_asked_on_its_stream(served: tuple[str, Mount]) -> None:
    url, _ = served

    def answer(params: dict[str, Any]) -> dict[str, Any]:
        assert params["message"] == "Sure?"
        return {"action": "accept", "content": {"ok": False}}

    async with Client(url, protocol="2025-11-25", elicitation=answer) as client:
        done = await client.call_tool("sdk_ask", {})
    assert done["content"][0]["text"] == "accept ok=False"


async def test_a_call_left_waiting_is_dropped_and_its_retry_told_so(
    served: tuple[str, Mount],
) -> None:
    url, mount = served
    assert mount.upstream is not None
    pending = mount.upstream.pending
    pending.wait_s = 0.2
    try:
        async with Client(url, capabilities={"elicitation": {}}) as client:
            asked = await client.call_tool("sdk_ask", {})
            held = len(pending)
            await asyncio.sleep(0.5)
            with pytest.raises(RPCError) as gone:
                await client.call_tool(
                    "sdk_ask", {}, input_responses={"upstream-1": {"action": "decline"}},
                    request_state=asked["requestState"],
                )  # fmt: skip
    finally:
        pending.wait_s = 300.0
    assert held == 1 and len(pending) == 0
    assert gone.value.code == -32602
    assert "call the tool again" in gone.value.message


async def test_an_upstream_stream_closed_for_polling_closes_the_outer_one(
    served: tuple[str, Mount],
) -> None:
    url, _ = served
    resumed: list[bool] = []
    async with Client(url, protocol="2025-11-25") as client:
        done = await client.call_tool("p_polled", {}, on_resume=lambda: resumed.append(True))
    assert done["content"][0]["text"] == "after the poll"
    assert resumed == [True]

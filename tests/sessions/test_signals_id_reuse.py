"""A legacy client may reuse a request id once it has the answer (JSON-RPC ids name requests
in flight): the id is free the moment the call answers, not a loop turn later when its task
ends. Driven in-process (genmcp.testing over ASGI), where the next request follows the answer
with no network turn in between, so the window is certain to be hit."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from genmcp import Result, Tool, call_tool_result, mcp_router


class Add(
    Tool,
    name="add",
    description="Adds two numbers.",
    input_schema={
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    },
):
    async def call(self, request, channel, arg):  # type: ignore[no-untyped-def]
        total = request.arguments["a"] + request.arguments["b"]
        return Result(call_tool_result(text=str(total)))


async def test_an_answered_id_may_be_sent_again_at_once() -> None:
    app = FastAPI()
    app.include_router(
        mcp_router(server_name="ids", server_version="1", tools=[Add]), prefix="/mcp"
    )
    headers = {"accept": "application/json, text/event-stream"}
    transport = httpx.ASGITransport(app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=transport, base_url="http://127.0.0.1", headers=headers
        ) as http,
    ):
        init = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        opened = await http.post(
            "/mcp", json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}
        )
        session = {
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post("/mcp", json=note, headers=session)).status_code == 202
        for n in range(5):
            call = {"name": "add", "arguments": {"a": n, "b": 1}}
            message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call}
            reply = (await http.post("/mcp", json=message, headers=session)).json()
            assert "error" not in reply, reply
            assert reply["result"]["content"][0]["text"] == str(n + 1)

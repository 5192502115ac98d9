"""Issue 17: a dependency resolved in a tool that uses ``Depends(auth)`` reuses the auth the
route already ran for this HTTP request (FastAPI's per-request cache), never runs it twice."""

from __future__ import annotations

from typing import Annotated, Any

import httpx
from fastapi import Depends, FastAPI, Header

from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
from support.server import LiveServer

CALLS: list[str] = []


def auth(authorization: Annotated[str, Header()] = "") -> dict[str, str]:
    CALLS.append(authorization)
    return {"principal": authorization.removeprefix("Bearer ")}


def account(user: Annotated[dict[str, str], Depends(auth)]) -> str:
    return f"account of {user['principal']}"


def uncached(user: Annotated[dict[str, str], Depends(auth, use_cache=False)]) -> str:
    return user["principal"]


class Whoami(Tool, name="whoami"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        first = await channel.resolve(account)
        again = await channel.resolve(account)  # cached for the request as well
        return Result(call_tool_result(text=f"{first}|{again}"))


class Fresh(Tool, name="fresh"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=await channel.resolve(uncached)))


def post(base: str, name: str) -> Any:
    body = {
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}},
    }  # fmt: skip
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": name,
        "authorization": "Bearer ann",
    }
    return httpx.post(base + "/mcp", json=body, headers=headers).json()


def test_auth_runs_once_per_request_unless_a_dependency_opts_out() -> None:
    app = FastAPI()
    router = mcp_router(server_name="a", server_version="1", tools=[Whoami, Fresh], auth=auth)
    app.include_router(router, prefix="/mcp")
    with LiveServer(app) as base:
        CALLS.clear()
        reply = post(base, "whoami")
        assert reply["result"]["content"][0]["text"] == "account of ann|account of ann"
        assert CALLS == ["Bearer ann"]  # the route's run, reused
        CALLS.clear()
        assert post(base, "fresh")["result"]["content"][0]["text"] == "ann"
        assert CALLS == ["Bearer ann", "Bearer ann"]  # use_cache=False: FastAPI runs it again

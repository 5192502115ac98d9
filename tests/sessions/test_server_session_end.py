"""``LegacyServer.ended``: requests in flight when their 2025 session is deleted.

A real uvicorn server, a real HTTP client: 40 ``tools/call`` of a tool that waits are in
flight when the session is deleted. Each is answered ``session_not_found`` (404, a JSON-RPC
error with its id), never an empty ``200 text/event-stream`` a client cannot tell from a
network failure. A request its client cancels still ends with no response, as the spec says.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
from fastapi import FastAPI

from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.sessions.lookup import SESSION_ENDED
from support.legacy_http import open_session
from support.server import LiveServers

IN_FLIGHT = 40


class Waiting:
    """How many calls of ``Waits`` started; ``all_in`` is set once ``IN_FLIGHT`` did."""

    def __init__(self) -> None:
        self.started, self.all_in, self.lock = 0, threading.Event(), threading.Lock()

    def one(self) -> None:
        with self.lock:
            self.started += 1
            if self.started >= IN_FLIGHT:
                self.all_in.set()


WAITING = Waiting()


class Waits(Tool, name="waits", description="Waits until stopped."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        WAITING.one()
        await asyncio.sleep(60)
        return Result(call_tool_result(text="late"))


def waits_app() -> FastAPI:
    app = FastAPI()
    router = mcp_router(server_name="s", server_version="1", tools=[Waits])
    app.include_router(router, prefix="/mcp")
    return app


def call(request_id: int) -> dict[str, Any]:
    params = {"name": "waits", "arguments": {}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def test_calls_in_flight_when_their_session_is_deleted_are_404_never_empty(
    live_server: LiveServers,
) -> None:
    """Issue 48, finding 12 (before: some of them were an empty 200 event stream)."""
    url = live_server(waits_app()) + "/mcp"
    limits = httpx.Limits(max_connections=IN_FLIGHT + 2)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        headers = await open_session(http, url, initialized=True)
        calls = [
            asyncio.ensure_future(http.post(url, json=call(i), headers=headers))
            for i in range(1, IN_FLIGHT + 1)
        ]
        assert await asyncio.to_thread(WAITING.all_in.wait, 20)
        assert (await http.delete(url, headers=headers)).status_code == 200
        replies = await asyncio.gather(*calls)
    empty = [reply.headers.get("content-type") for reply in replies if not reply.content]
    assert empty == []  # before: some were "200 text/event-stream" with no event at all
    outcomes = sorted((reply.status_code, reply.json()["id"]) for reply in replies)
    assert outcomes == [(404, i) for i in range(1, IN_FLIGHT + 1)]
    assert {reply.json()["error"]["message"] for reply in replies} == {SESSION_ENDED}


async def test_a_call_its_client_cancels_still_ends_with_no_response(
    live_server: LiveServers,
) -> None:
    WAITING.started, WAITING.all_in = IN_FLIGHT - 1, threading.Event()  # one call to wait for
    url = live_server(waits_app()) + "/mcp"
    async with httpx.AsyncClient(timeout=30) as http:
        headers = await open_session(http, url, initialized=True)
        pending = asyncio.ensure_future(http.post(url, json=call(7), headers=headers))
        assert await asyncio.to_thread(WAITING.all_in.wait, 20)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 7}}  # fmt: skip
        assert (await http.post(url, json=cancel, headers=headers)).status_code == 202
        reply = await pending
    assert (reply.status_code, reply.content) == (200, b"")
    assert reply.headers["content-type"] == "text/event-stream"

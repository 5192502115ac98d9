"""transports.http.relay: the HTTP writer's one JSON-or-SSE choice (the reader: tests/call).

``respond`` is read over a real uvicorn server with httpx: a call that answers at once and
one that answers after a wait without sending anything are both JSON; one that sends first,
or starts its stream, is SSE with the answer last; an error answer gets its reason's status
(and ``Retry-After``); a 2025 session's call cancelled before it sent anything is an empty
``text/event-stream``; a client that leaves before the first event cancels the call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
from fastapi import FastAPI

from genmcp import Suite, mcp_router
from genmcp.call.relay import Relay
from genmcp.protocol.jsonrpc import Request
from support.client import ModernClient
from support.legacy_http import ACCEPT, open_session
from support.relay_tools import META, TOOLS
from support.server import LiveServers


def _suite() -> Suite:
    return Suite(server_name="relay", server_version="1", tools=TOOLS)


async def _handle(name: str, meta: dict[str, Any] = META, **arguments: Any) -> Relay:
    request = Request(1, "tools/call", {"name": name, "arguments": arguments, "_meta": meta})
    return Relay(await _suite().handle(request, {}, dict(meta)))


# -- the HTTP writer's choice ----------------------------------------------------------


def _client(live_server: LiveServers, make: Callable[..., ModernClient]) -> ModernClient:
    app = FastAPI()
    app.include_router(mcp_router(suite=_suite()), prefix="/mcp")
    return make(live_server(app))


async def test_an_answer_in_the_first_step_is_json(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    reply = await _client(live_server, modern_client).request("tools/call", {"name": "now"})
    assert (reply.status, reply.content_type, reply.is_sse) == (200, "application/json", False)
    assert reply.result["content"][0]["text"] == "now"


async def test_an_answer_after_a_silent_wait_is_still_json(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    client = _client(live_server, modern_client)
    reply = await client.request("tools/call", {"name": "later", "arguments": {"seconds": 0.2}})
    assert (reply.status, reply.content_type) == (200, "application/json")
    assert reply.result["content"][0]["text"] == "later"


async def test_a_call_that_sends_first_is_streamed_with_its_answer_last(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    client = _client(live_server, modern_client)
    reply = await client.request("tools/call", {"name": "talks"}, log_level="info")
    assert (reply.status, reply.is_sse) == (200, True)
    assert reply.headers["cache-control"] == "no-store"
    assert [m.get("method") for m in reply.messages] == ["notifications/message", None]
    assert reply.messages[-1]["result"]["content"][0]["text"] == "talked"


async def test_a_started_stream_is_sse_even_with_nothing_sent_before_the_answer(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    reply = await _client(live_server, modern_client).request("tools/call", {"name": "starts"})
    assert reply.is_sse and len(reply.messages) == 1
    assert reply.result["content"][0]["text"] == "started"


async def test_an_error_answer_gets_its_reasons_status_and_retry_after(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    client = _client(live_server, modern_client)
    reply = await client.request("tools/call", {"name": "busy"}, validate=False)
    assert (reply.status, reply.content_type) == (429, "application/json")
    assert reply.headers["retry-after"] == "3"
    assert reply.error["message"] == "slow down"


async def test_leaving_before_the_first_event_disconnects_the_call(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    suite = _suite()
    app = FastAPI()
    app.include_router(mcp_router(suite=suite), prefix="/mcp")
    client = modern_client(live_server(app), timeout=0.3)
    try:
        await client.request("tools/call", {"name": "later", "arguments": {"seconds": 30}})
    except httpx.ReadTimeout:
        pass
    else:
        raise AssertionError("the call answered: it was meant to sleep")
    assert await live_server.last.run_in_loop(suite.wait_idle(within_s=5))


async def test_a_legacy_call_cancelled_before_it_sent_anything_is_an_empty_stream(
    live_server: LiveServers,
) -> None:
    app = FastAPI()
    app.include_router(mcp_router(suite=_suite(), legacy=True), prefix="/mcp")
    url = live_server(app) + "/mcp"
    async with httpx.AsyncClient(timeout=10) as http:
        headers = await open_session(http, url, initialized=True)
        call = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "later", "arguments": {"seconds": 30}},
        }
        posting = asyncio.ensure_future(
            http.post(url, json=call, headers={**headers, "Accept": ACCEPT})
        )
        await asyncio.sleep(0.3)  # the call sleeps, having sent nothing
        cancel = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 7},
        }
        assert (await http.post(url, json=cancel, headers=headers)).status_code == 202
        reply = await asyncio.wait_for(posting, 5)
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "text/event-stream"
    assert reply.content == b""

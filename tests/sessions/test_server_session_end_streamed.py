"""A 2025 call already streaming its answer when its session ends: a final error, no leak.

A real uvicorn server, a real HTTP client reading real SSE: the tool sends a progress
notification (the POST's answer becomes an event stream) and then waits. When its session
ends (a DELETE, or the session id's expiry) the stream's last event is a JSON-RPC error
with the call's id saying the session ended (before: the stream ended with no response,
which a client cannot tell from a network failure), the tool's task is cancelled, and the
server tracks no call of it any more.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import httpx
from fastapi import FastAPI

from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.sessions.lookup import SESSION_ENDED
from genmcp.sessions.server import LegacyServer
from support.legacy_http import open_session
from support.server import LiveServers
from support.sse import SSEEvent, SSEParser

INVALID_REQUEST = -32600


class Seen:
    """What the server's tool did, told across the server's thread."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self.finished = threading.Event()


SEEN = Seen()


class Streams(Tool, name="streams", description="Reports progress, then waits until stopped."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        channel.send_progress(1, 2, "started")
        try:
            await asyncio.Event().wait()  # only a cancellation ends it
        except asyncio.CancelledError:
            SEEN.cancelled.set()
            raise
        SEEN.finished.set()
        return Result(call_tool_result(text="never"))


def streams_app(session_max_age_s: float = 86_400.0) -> tuple[FastAPI, LegacyServer]:
    suite = Suite(server_name="s", server_version="1", tools=[Streams])
    legacy = LegacyServer(suite, session_max_age_s=session_max_age_s)
    app = FastAPI()
    app.include_router(mcp_router(suite=suite, legacy=legacy), prefix="/mcp")
    return app, legacy


CALL = {
    "jsonrpc": "2.0",
    "id": 9,
    "method": "tools/call",
    "params": {"name": "streams", "arguments": {}, "_meta": {"progressToken": "p"}},
}


async def streamed_call(
    http: httpx.AsyncClient, url: str, headers: dict[str, str], end: Any
) -> list[dict[str, Any]]:
    """POST the call, read its stream's first event (the progress), run ``end()``, then
    read the stream to its end; every message it carried, in order."""
    messages: list[dict[str, Any]] = []
    parser = SSEParser()
    async with http.stream("POST", url, json=CALL, headers=headers) as reply:
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/event-stream")
        ending: asyncio.Future[Any] | None = None
        async for chunk in reply.aiter_bytes():
            messages += [
                json.loads(item.data)
                for item in parser.feed(chunk)
                if isinstance(item, SSEEvent) and item.data
            ]
            if messages and ending is None:
                ending = asyncio.ensure_future(end())
        assert ending is not None
        await ending
    return messages


async def test_a_streaming_call_whose_session_is_deleted_ends_with_an_error(
    live_server: LiveServers,
) -> None:
    SEEN.__init__()  # type: ignore[misc]
    app, legacy = streams_app()
    url = live_server(app) + "/mcp"
    async with httpx.AsyncClient(timeout=30) as http:
        headers = await open_session(http, url, initialized=True)

        async def delete() -> None:
            assert (await http.delete(url, headers=headers)).status_code == 200

        messages = await asyncio.wait_for(streamed_call(http, url, headers, delete), 60)
    assert messages[0]["method"] == "notifications/progress"
    last = messages[-1]  # before: the stream ended after the progress, with no response
    assert (last["id"], last["error"]["code"]) == (9, INVALID_REQUEST)
    assert last["error"]["message"] == SESSION_ENDED
    assert len(messages) == 2
    assert await asyncio.to_thread(SEEN.cancelled.wait, 20)
    assert not SEEN.finished.is_set()
    assert legacy.signals.in_flight == 0


async def test_a_streaming_call_whose_session_expires_ends_with_an_error(
    live_server: LiveServers,
) -> None:
    SEEN.__init__()  # type: ignore[misc]
    app, legacy = streams_app(session_max_age_s=4)
    url = live_server(app) + "/mcp"
    async with httpx.AsyncClient(timeout=30) as http:
        headers = await open_session(http, url, initialized=True)

        async def nothing() -> None:
            return None  # the session's id expires by itself

        messages = await asyncio.wait_for(streamed_call(http, url, headers, nothing), 60)
        after = await http.post(url, json={**CALL, "id": 10}, headers=headers)
    assert after.status_code == 404  # the session did expire
    assert messages[0]["method"] == "notifications/progress"
    last = messages[-1]  # before: the call outlived its session (no end until the hang guard)
    assert (last["id"], last["error"]["code"]) == (9, INVALID_REQUEST)
    assert last["error"]["message"] == SESSION_ENDED
    assert await asyncio.to_thread(SEEN.cancelled.wait, 20)
    assert legacy.signals.in_flight == 0

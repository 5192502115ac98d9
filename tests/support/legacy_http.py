"""Raw legacy (2025-11-25) HTTP exchanges with a deployment: open a session, read SSE events.

Shared by the scale-out tests that talk to several processes (tests/storage/test_nginx.py,
test_resume.py) with a plain httpx client, so every byte they send is visible in the test.
"""

from __future__ import annotations

from typing import Final

import httpx

from support.sse import SSEEvent, SSEParser

VERSION: Final = "2025-11-25"
ACCEPT: Final = "application/json, text/event-stream"


async def open_session(
    http: httpx.AsyncClient, url: str, *, initialized: bool = False, version: str = VERSION
) -> dict[str, str]:
    """``initialize`` at ``url`` (revision ``version``); the headers every later request of
    the session sends.

    With ``initialized`` the ``notifications/initialized`` follows (and must be 202).
    """
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    reply = await http.post(url, json=body, headers={"Accept": ACCEPT})
    assert reply.status_code == 200, reply.text
    headers = {
        "Mcp-Session-Id": reply.headers["mcp-session-id"],
        "MCP-Protocol-Version": version,
        "Accept": ACCEPT,
    }
    if initialized:
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post(url, json=note, headers=headers)).status_code == 202
    return headers


async def sse_events(response: httpx.Response, stop_after: int | None = None) -> list[SSEEvent]:
    """The data events of an SSE response (stop after ``stop_after`` of them, if given)."""
    parser, got = SSEParser(), []
    async for chunk in response.aiter_bytes():
        got += [e for e in parser.feed(chunk) if isinstance(e, SSEEvent) and e.data]
        if stop_after is not None and len(got) >= stop_after:
            break
    return got


async def all_sse_events(response: httpx.Response) -> list[SSEEvent]:
    """Every event of an SSE response, to its end: priming events (an id, empty data) too."""
    parser, got = SSEParser(), []
    async for chunk in response.aiter_bytes():
        got += [e for e in parser.feed(chunk) if isinstance(e, SSEEvent)]
    return got

"""``MCPEndpoint``: one request, one exchange, from the guard to the answer (real uvicorn, httpx).

Every step reads the request's exchange (its ASGI triple, headers and assigns): the Origin
guard (403), a method other than POST (405 with ``Allow``), the content type (415), the body
cap (413), a notification (202), a JSON-RPC response where a request belongs (400), a
legacy session's ``DELETE`` (200, the session ends), a GET of a session that is unknown
(404) and one that is known: a stream written by the one SSE writer, primed with
``retry:`` for 2025-11-25, carrying the Suite's change notifications with their ids and
ending when the session is deleted.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI

from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.sessions import LegacyServer
from support.legacy_http import ACCEPT, EventReader, open_session
from support.server import LiveServer

RETRY_MS: Final = 300
MODERN: Final = {"MCP-Protocol-Version": "2026-07-28", "Accept": ACCEPT}


class Plain(Tool, name="plain", description="Answers."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="ok"))


class Extra(Tool, name="extra", description="Added at run time."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="extra"))


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, str, Suite]]:
    """``(url with legacy sessions, url without, the first one's Suite)``."""
    suite = Suite(server_name="endpoint", server_version="1", tools=[Plain])
    app = FastAPI()
    legacy = LegacyServer(suite, stream_retry_ms=RETRY_MS)
    app.include_router(mcp_router(suite=suite, legacy=legacy), prefix="/mcp")
    app.include_router(
        mcp_router(
            server_name="modern",
            server_version="1",
            tools=[Plain],
            legacy=False,
            max_body_bytes=1024,
        ),
        prefix="/modern",
    )
    with LiveServer(app) as base:
        yield f"{base}/mcp", f"{base}/modern", suite


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=10) as client:
        yield client


def _rpc(reply: httpx.Response) -> Any:
    assert reply.headers["content-type"] == "application/json"
    return reply.json()


async def test_a_foreign_origin_is_refused_before_anything_else(
    served: tuple[str, str, Suite], http: httpx.AsyncClient
) -> None:
    url = served[0]
    reply = await http.post(url, content=b"{}", headers={"Origin": "https://evil.example"})
    assert reply.status_code == 403 and reply.headers["connection"] == "close"
    assert _rpc(reply)["error"]["code"] < 0


async def test_methods_other_than_post_are_405_with_what_is_allowed(
    served: tuple[str, str, Suite], http: httpx.AsyncClient
) -> None:
    legacy_url, modern_url, _ = served
    assert (await http.put(legacy_url)).headers["allow"] == "GET, POST, DELETE"
    modern_get = await http.get(legacy_url, headers=MODERN)  # a 2026-07-28 GET has no stream
    assert (modern_get.status_code, modern_get.headers["allow"]) == (405, "GET, POST, DELETE")
    no_sessions = await http.get(modern_url)
    assert (no_sessions.status_code, no_sessions.headers["allow"]) == (405, "POST")


async def test_a_body_that_is_not_json_or_too_large_is_refused(
    served: tuple[str, str, Suite], http: httpx.AsyncClient
) -> None:
    modern_url = served[1]
    text = await http.post(modern_url, content=b"hi", headers={"Content-Type": "text/plain"})
    assert text.status_code == 415
    big = await http.post(modern_url, content=b" " * 2048, headers=MODERN)
    assert big.status_code == 413 and _rpc(big)["error"]["code"] < 0


async def test_a_notification_is_accepted_and_a_response_is_not(
    served: tuple[str, str, Suite], http: httpx.AsyncClient
) -> None:
    modern_url = served[1]
    note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}
    assert (await http.post(modern_url, json=note, headers=MODERN)).status_code == 202
    response = {"jsonrpc": "2.0", "id": 3, "result": {}}
    reply = await http.post(modern_url, json=response, headers=MODERN)
    assert reply.status_code == 400 and _rpc(reply)["id"] == 3


async def test_a_get_of_an_unknown_session_is_404(
    served: tuple[str, str, Suite], http: httpx.AsyncClient
) -> None:
    url = served[0]
    headers = {"Mcp-Session-Id": "nope", "MCP-Protocol-Version": "2025-11-25", "Accept": ACCEPT}
    reply = await http.get(url, headers=headers)
    assert reply.status_code == 404 and _rpc(reply)["error"]["code"] < 0


async def test_a_sessions_get_stream_is_primed_carries_changes_and_ends_with_the_session(
    served: tuple[str, str, Suite], http: httpx.AsyncClient
) -> None:
    url, _, suite = served
    headers = await open_session(http, url, initialized=True)
    async with http.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
        reader = EventReader(response)
        priming = await reader.next()
        assert priming is not None and (priming.data, priming.retry) == ("", RETRY_MS)
        assert (priming.id or "").startswith("get~")
        suite.add_tool(Extra)
        [added] = await reader.take(1)
        assert json.loads(added.data)["method"] == "notifications/tools/list_changed"
        assert (added.id or "").startswith("get~")
        deleted = await http.delete(url, headers=headers)
        assert deleted.status_code == 200
        ended = await asyncio.wait_for(reader.next(), 5)
        assert ended is None  # the stream ended with its session
    suite.remove_tool("extra")

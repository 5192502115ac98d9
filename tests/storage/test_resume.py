"""Resumable legacy streams across real processes: SSE ids, Last-Event-ID, a killed owner.

Two uvicorn processes of `bench/scale/app.py` share a redis-server of the test's own. A
legacy client streams `ticker` on process 0 and resumes with `GET` + `Last-Event-ID` on
process 1: it gets the events it missed and the response; when process 0 was killed
mid-stream, a JSON-RPC error once its heartbeat lapses (never silence); an id of another
session replays nothing of it.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import httpx
import pytest

from support.redis_server import OwnRedis, require_redis_server
from support.sse import SSEEvent, SSEParser
from support.topology import Processes

VERSION: Final = "2025-11-25"
ACCEPT: Final = "application/json, text/event-stream"


@pytest.fixture
def processes() -> Iterator[Processes]:
    redis = OwnRedis(require_redis_server())
    redis.start()
    env = {"REDIS_URL": redis.url, "GENMCP_HEARTBEAT_S": "0.3", "GENMCP_HEARTBEAT_TTL_S": "1"}
    procs = Processes(2, env).start()
    yield procs
    procs.stop()
    redis.close()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=15) as client:
        yield client


async def session(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": VERSION,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    reply = await http.post(url, json=body, headers={"Accept": ACCEPT})
    headers = {
        "Mcp-Session-Id": reply.headers["mcp-session-id"],
        "MCP-Protocol-Version": VERSION,
        "Accept": ACCEPT,
    }
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post(url, json=note, headers=headers)).status_code == 202
    return headers


async def events(response: httpx.Response, stop_after: int | None = None) -> list[SSEEvent]:
    parser, got = SSEParser(), []
    async for chunk in response.aiter_bytes():
        got += [e for e in parser.feed(chunk) if isinstance(e, SSEEvent) and e.data]
        if stop_after is not None and len(got) >= stop_after:
            break
    return got


def call(request_id: int, n: int, every: float) -> dict[str, Any]:
    params = {"name": "ticker", "arguments": {"n": n, "every": every}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def test_a_stream_resumed_on_another_process_replays_what_was_missed(
    processes: Processes, http: httpx.AsyncClient
) -> None:
    first, second = (f"{u}/mcp" for u in processes.urls())
    headers = await session(http, first)
    async with http.stream("POST", first, json=call(7, 3, 0.05), headers=headers) as response:
        streamed = await events(response)
    assert [json.loads(e.data).get("method") for e in streamed] == ["notifications/message"] * 3 + [
        None
    ]
    assert json.loads(streamed[-1].data)["result"]["content"][0]["text"] == "3 ticks"
    assert all(e.id for e in streamed) and len({e.id for e in streamed}) == 4
    resume = {**headers, "Last-Event-ID": streamed[0].id or ""}
    async with http.stream("GET", second, headers=resume) as response:
        assert response.status_code == 200
        replayed = await events(response)
    assert [(e.id, e.data) for e in replayed] == [(e.id, e.data) for e in streamed[1:]]
    # the same id under another session names nothing of that one: a plain GET stream opens
    other = {**await session(http, second), "Last-Event-ID": streamed[0].id or ""}
    async with http.stream("GET", second, headers=other) as response:
        replayed_elsewhere = await events(response)
    assert len(replayed_elsewhere) == 1 and "no longer kept" in replayed_elsewhere[0].data


async def test_a_client_resuming_after_its_process_was_killed_gets_an_error(
    processes: Processes, http: httpx.AsyncClient
) -> None:
    first, second = (f"{u}/mcp" for u in processes.urls())
    headers = await session(http, first)
    async with http.stream("POST", first, json=call(8, 100, 0.1), headers=headers) as response:
        seen = await events(response, stop_after=2)
        processes.kill(0)  # mid-stream: SIGKILL, nothing is cleaned up
    started = time.monotonic()
    resume = {**headers, "Last-Event-ID": seen[-1].id or ""}
    async with http.stream("GET", second, headers=resume) as response:
        rest = await events(response)
    final = json.loads(rest[-1].data)
    assert final["id"] == 8 and final["error"]["code"] == -32603
    assert "the process running it was lost" in final["error"]["message"]
    assert time.monotonic() - started < 5  # heartbeat TTL 1 s here (10 s by default)
    assert all(json.loads(e.data).get("method") == "notifications/message" for e in rest[:-1])

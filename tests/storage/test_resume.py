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
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from support.legacy_http import open_session, sse_events
from support.redis_server import OwnRedis, require_redis_server
from support.topology import Processes


@pytest.fixture
def processes() -> Iterator[Processes]:
    redis = OwnRedis(require_redis_server())
    redis.start()
    env = {"REDIS_URL": redis.url, "GENMCP_HEARTBEAT_S": "0.3", "GENMCP_HEARTBEAT_TTL_S": "1"}
    procs = Processes(2, env).start()
    yield procs
    procs.stop()
    redis.close()


def call(request_id: int, n: int, every: float) -> dict[str, Any]:
    params = {"name": "ticker", "arguments": {"n": n, "every": every}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def test_a_stream_resumed_on_another_process_replays_what_was_missed(
    processes: Processes, http: httpx.AsyncClient
) -> None:
    first, second = (f"{u}/mcp" for u in processes.urls())
    headers = await open_session(http, first, initialized=True)
    async with http.stream("POST", first, json=call(7, 3, 0.05), headers=headers) as response:
        streamed = await sse_events(response)
    assert [json.loads(e.data).get("method") for e in streamed] == ["notifications/message"] * 3 + [
        None
    ]
    assert json.loads(streamed[-1].data)["result"]["content"][0]["text"] == "3 ticks"
    assert all(e.id for e in streamed) and len({e.id for e in streamed}) == 4
    resume = {**headers, "Last-Event-ID": streamed[0].id or ""}
    async with http.stream("GET", second, headers=resume) as response:
        assert response.status_code == 200
        replayed = await sse_events(response)
    assert [(e.id, e.data) for e in replayed] == [(e.id, e.data) for e in streamed[1:]]
    # the same id under another session names nothing of that one: a plain GET stream opens
    other = {
        **await open_session(http, second, initialized=True),
        "Last-Event-ID": streamed[0].id or "",
    }
    async with http.stream("GET", second, headers=other) as response:
        replayed_elsewhere = await sse_events(response)
    assert len(replayed_elsewhere) == 1 and "no longer kept" in replayed_elsewhere[0].data


async def test_a_client_resuming_after_its_process_was_killed_gets_an_error(
    processes: Processes, http: httpx.AsyncClient
) -> None:
    first, second = (f"{u}/mcp" for u in processes.urls())
    headers = await open_session(http, first, initialized=True)
    async with http.stream("POST", first, json=call(8, 100, 0.1), headers=headers) as response:
        seen = await sse_events(response, stop_after=2)
        processes.kill(0)  # mid-stream: SIGKILL, nothing is cleaned up
    started = time.monotonic()
    resume = {**headers, "Last-Event-ID": seen[-1].id or ""}
    async with http.stream("GET", second, headers=resume) as response:
        rest = await sse_events(response)
    final = json.loads(rest[-1].data)
    assert final["id"] == 8 and final["error"]["code"] == -32603
    assert "the process running it was lost" in final["error"]["message"]
    assert time.monotonic() - started < 5  # heartbeat TTL 1 s here (10 s by default)
    assert all(json.loads(e.data).get("method") == "notifications/message" for e in rest[:-1])

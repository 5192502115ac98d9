"""Resumable legacy streams across real processes: SSE ids, Last-Event-ID, a killed owner.

Two uvicorn processes of `bench/scale/app.py` share a redis-server of the test's own. A
legacy client streams `ticker` on process 0 and resumes with `GET` + `Last-Event-ID` on
process 1: it gets the events it missed and the response; when process 0 was killed
mid-stream, a JSON-RPC error once its heartbeat lapses (never silence); an id of another
session opens that session's plain stream, nothing replayed. SSE polling: `poll` closes its
own stream at once (after the priming event) and runs on; the client resumes on process 1
and gets the rest and the result; after the call's process was killed, its result if it
finished there, else an error; after it was stopped (SIGTERM), the shutdown error the call
answered with. A session's standalone GET stream, left stale on process 0, is resumed on
process 1: the change it missed, then live, and the stale one ends.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from support.legacy_http import EventReader, all_sse_events, open_session, sse_events
from support.redis_server import OwnRedis, require_redis_server
from support.topology import Processes

pytestmark = pytest.mark.long  # processes killed mid-stream, about 7 s (make test-long)


@pytest.fixture(scope="module")
def processes() -> Iterator[Processes]:
    """Four processes: 0 and 1 stay up; 2 and 3 are each stopped by one test, and resumed
    from on 1 (no restarts between tests)."""
    redis = OwnRedis(require_redis_server())
    redis.start()
    env = {"REDIS_URL": redis.url, "GENMCP_HEARTBEAT_S": "0.3", "GENMCP_HEARTBEAT_TTL_S": "1"}
    procs = Processes(4, env).start()
    yield procs
    procs.stop()
    redis.close()


def call(request_id: int, n: int, every: float, tool: str = "ticker") -> dict[str, Any]:
    params = {"name": tool, "arguments": {"n": n, "every": every}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def test_a_stream_resumed_on_another_process_replays_what_was_missed(
    processes: Processes, http: httpx.AsyncClient
) -> None:
    first, second = (f"{u}/mcp" for u in processes.urls()[:2])
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
        assert response.status_code == 200
        try:  # the plain stream: open, and nothing of the other session's to say
            replayed_elsewhere = await asyncio.wait_for(sse_events(response, stop_after=1), 0.5)
        except TimeoutError:
            replayed_elsewhere = []
    assert [e for e in replayed_elsewhere if e.data] == []


async def test_a_stream_its_tool_closed_is_resumed_on_another_process(
    processes: Processes, http: httpx.AsyncClient
) -> None:
    first, second = (f"{u}/mcp" for u in processes.urls()[:2])
    headers = await open_session(http, first, initialized=True)
    body = call(9, 2, 0.05, tool="poll")
    async with http.stream("POST", first, json=body, headers=headers) as response:
        assert response.status_code == 200
        posted = await all_sse_events(response)
    [priming] = posted  # the tool closed its stream: no result on it
    assert priming.data == "" and priming.id and priming.retry == 1000
    resume = {**headers, "Last-Event-ID": priming.id}
    async with http.stream("GET", second, headers=resume) as response:
        assert response.status_code == 200
        rest = await sse_events(response)
    methods = [json.loads(e.data).get("method") for e in rest]
    assert methods == ["notifications/message", "notifications/message", None]
    final = json.loads(rest[-1].data)
    assert final["id"] == 9
    assert final["result"]["content"][0]["text"] == "2 ticks after the close"
    assert all(e.id and e.id.split("~")[0] == priming.id.split("~")[0] for e in rest)


async def resumed(http: httpx.AsyncClient, url: str, headers: dict[str, str], after: Any) -> Any:
    """The messages a GET with ``Last-Event-ID: after`` gets at ``url``."""
    async with http.stream("GET", url, headers={**headers, "Last-Event-ID": after}) as response:
        assert response.status_code == 200
        return [json.loads(e.data) for e in await sse_events(response)]


async def test_a_client_resuming_after_its_process_was_killed_gets_the_result_or_an_error(
    processes: Processes, http: httpx.AsyncClient
) -> None:
    urls = [f"{u}/mcp" for u in processes.urls()]
    first, second = urls[2], urls[1]
    headers = await open_session(http, first, initialized=True)
    primed = {}
    for request_id, n in ((10, 0), (11, 100)):  # closed streams: 10 answers at once, 11 runs
        body = call(request_id, n, 0.1, tool="poll")
        async with http.stream("POST", first, json=body, headers=headers) as response:
            [priming] = await all_sse_events(response)
            primed[request_id] = priming.id
    answered = await resumed(http, first, headers, primed[10])  # 10 has answered, there
    async with http.stream("POST", first, json=call(8, 100, 0.1), headers=headers) as response:
        seen = await sse_events(response, stop_after=2)
        processes.kill(2)  # mid-stream: SIGKILL, nothing is cleaned up
    rest = await resumed(http, second, headers, seen[-1].id)
    assert rest[-1]["id"] == 8 and rest[-1]["error"]["code"] == -32603
    assert "the process running it was lost" in rest[-1]["error"]["message"]
    assert all(m.get("method") == "notifications/message" for m in rest[:-1])
    assert await resumed(http, second, headers, primed[10]) == answered  # its result
    assert answered[-1]["result"]["content"][0]["text"] == "0 ticks after the close"
    lost = (await resumed(http, second, headers, primed[11]))[-1]
    assert lost["id"] == 11 and lost["error"]["code"] == -32603
    assert "the process running it was lost" in lost["error"]["message"]


async def test_a_closed_call_stopped_with_its_process_resumes_to_the_shutdown_error(
    processes: Processes, http: httpx.AsyncClient
) -> None:
    urls = [f"{u}/mcp" for u in processes.urls()]
    first, second = urls[3], urls[1]
    headers = await open_session(http, first, initialized=True)
    async with http.stream("POST", first, json=call(12, 100, 0.1, "poll"), headers=headers) as got:
        [priming] = await all_sse_events(got)
    processes.terminate(3)  # SIGTERM: the call answers as the server stops, into the log
    final = (await resumed(http, second, headers, priming.id))[-1]
    assert final["id"] == 12 and final["error"]["code"] == -32000  # shutting_down
    assert final["error"]["message"].startswith("Server shutting down")


LIST_CHANGED = "notifications/tools/list_changed"


def entry(event: Any) -> tuple[int, int]:
    """The change log entry a GET stream's event id names (``get~<ms>-<seq>``)."""
    assert event is not None and (event.id or "").startswith("get~"), event
    ms, seq = event.id.removeprefix("get~").split("-")
    return int(ms), int(seq)


async def test_a_get_stream_resumed_on_another_process_replays_what_it_missed(
    processes: Processes, http: httpx.AsyncClient
) -> None:
    bases = processes.urls()[:2]
    first, second = (f"{u}/mcp" for u in bases)
    headers = await open_session(http, first, initialized=True)
    async with http.stream("GET", first, headers=headers) as stale:
        old = EventReader(stale)
        priming = await old.next()
        assert priming is not None and (priming.data, priming.retry) == ("", 1000)
        assert (await http.post(f"{bases[1]}/admin/extra/a")).status_code == 200  # elsewhere
        added = await old.next()
        assert added is not None and json.loads(added.data)["method"] == LIST_CHANGED
        assert entry(added) > entry(priming)
        # the client reads no more (a stale connection): it misses the next change
        assert (await http.delete(f"{bases[1]}/admin/extra")).status_code == 200
        resume = {**headers, "Last-Event-ID": added.id or ""}
        async with http.stream("GET", second, headers=resume) as response:
            assert response.status_code == 200
            new = EventReader(response)
            [missed] = await new.take(1)
            assert json.loads(missed.data)["method"] == LIST_CHANGED
            assert entry(missed) > entry(added)
            left = await old.rest()  # replaced: the stale stream ends (after what it had)
            assert all(e.id == missed.id for e in left)
            assert (await http.post(f"{bases[0]}/admin/extra/b")).status_code == 200
            [live] = await new.take(1)  # followed live, from a change made on process 0
            assert json.loads(live.data)["method"] == LIST_CHANGED
            assert entry(live) > entry(missed)
    assert (await http.delete(f"{bases[0]}/admin/extra")).status_code == 200
    # an id the log does not hold: live, after what makes the client refetch its list
    lost = {**headers, "Last-Event-ID": "get~1-0"}
    async with http.stream("GET", second, headers=lost) as response:
        [resync] = await EventReader(response).take(1)
    assert json.loads(resync.data)["method"] == LIST_CHANGED and entry(resync) > entry(live)

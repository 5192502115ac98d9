"""SSE polling (SEP-1699) in one process, with the in-memory backend: real uvicorn, raw SSE.

A 2025-11-25 session's streamed POST opens with a priming event (an id, the configured
``retry:``, empty data). A tool that calls ``channel.close_stream()`` has its POST stream
ended there, with no response, and runs on; the client's ``GET`` with ``Last-Event-ID``
replays what came after that id and follows the call live to its response. Older revisions
and 2026-07-28 requests are not primed and get the response on the POST stream. A closed
call that is cancelled ends its resumed stream without a response; a client that leaves its
stream stops the call, and resuming it gets an error, never silence. The in-process test
client resumes a closed stream the same way.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI

from genmcp import Channel, Result, Stream, Suite, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.sessions import LegacyServer
from genmcp.testing import MCPTestClient
from support.legacy_http import ACCEPT, all_sse_events, open_session, sse_events
from support.server import LiveServer
from support.sse import SSEEvent

RETRY_MS: Final = 250
LOG: Final = "notifications/message"
TICKS: Final = {"type": "object", "properties": {"before": {"type": "integer"}}}


class Polled(
    Tool, name="polled", description="Ticks, closes its stream, ticks, answers.", input_schema=TICKS
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        before = int(request.arguments.get("before", 0))
        channel.start_stream()
        for tick in range(before):
            channel.send_notification(LOG, {"level": "info", "data": {"before": tick}})
        assert channel.close_stream()
        for tick in range(2):
            await asyncio.sleep(0.05)  # the client resumes meanwhile
            channel.send_notification(LOG, {"level": "info", "data": {"after": tick}})
        return Result(call_tool_result(text="answered after the close"))


class ClosedThenAnswered(
    Tool, name="closed_then_answered", description="Closes its stream and answers at once."
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        channel.close_stream()  # no await after it: the call ends in its first step
        return Result(call_tool_result(text="answered in the first step"))


class Ticks(Tool, name="ticks", description="Sends a log every 50 ms for 5 s, then answers."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        for tick in range(100):
            channel.send_notification(LOG, {"level": "info", "data": {"tick": tick}})
            await asyncio.sleep(0.05)
        return Result(call_tool_result(text="never read"))


class Held(Tool, name="held", description="Closes its stream and waits to be cancelled."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Stream:
        channel.close_stream()
        return Stream(None)

    async def handle_message(self, message: Any, channel: Channel, state: Any, arg: Any) -> Result:
        return Result(call_tool_result(text="never"))


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Suite]]:
    tools = [Polled, ClosedThenAnswered, Ticks, Held]
    suite = Suite(server_name="polling", server_version="1", tools=tools)
    with LiveServer(app_of(suite, stream_retry_ms=RETRY_MS)) as base:
        yield f"{base}/mcp", suite


def app_of(suite: Suite, **options: Any) -> FastAPI:
    app = FastAPI()
    legacy = LegacyServer(suite, **options)
    app.include_router(mcp_router(suite=suite, legacy=legacy), prefix="/mcp")
    return app


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=10) as client:
        yield client


def tool_call(request_id: int, name: str, **arguments: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def data_of(events: list[SSEEvent]) -> list[dict[str, Any]]:
    return [json.loads(e.data) for e in events]


async def post(
    http: httpx.AsyncClient, url: str, body: dict[str, Any], headers: dict[str, str]
) -> list[SSEEvent]:
    async with http.stream("POST", url, json=body, headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        return await all_sse_events(response)


async def resume(
    http: httpx.AsyncClient, url: str, headers: dict[str, str], after: str | None
) -> list[SSEEvent]:
    async with http.stream("GET", url, headers={**headers, "Last-Event-ID": after or ""}) as got:
        assert got.status_code == 200
        return await sse_events(got)


async def test_a_closed_stream_is_primed_and_resumed_to_its_response(
    served: tuple[str, Suite], http: httpx.AsyncClient
) -> None:
    url, suite = served
    headers = await open_session(http, url, initialized=True)
    posted = await post(http, url, tool_call(1, "polled", before=1), headers)
    priming, *sent = posted
    assert (priming.data, priming.retry) == ("", RETRY_MS) and priming.id
    assert [m["params"]["data"] for m in data_of(sent)] == [{"before": 0}]  # then it closed
    assert suite.live_workers == 1  # ... and runs on
    rest = await resume(http, url, headers, priming.id)  # from the start: the log, then live
    messages = data_of(rest)
    assert [m.get("params", {}).get("data") for m in messages] == [
        {"before": 0},
        {"after": 0},
        {"after": 1},
        None,
    ]
    assert messages[-1]["id"] == 1
    assert messages[-1]["result"]["content"][0]["text"] == "answered after the close"
    assert rest[0].id == sent[0].id  # the same event, under the same id
    assert len({e.id for e in [priming, *rest]}) == 5
    assert data_of(await resume(http, url, headers, rest[1].id)) == messages[2:]
    assert await resume(http, url, headers, rest[-1].id) == []  # seen to its end: ends at once
    assert suite.live_workers == 0


async def test_a_call_that_closes_its_stream_and_answers_in_its_first_step_is_resumable(
    served: tuple[str, Suite], http: httpx.AsyncClient
) -> None:
    # a call started eagerly (3.12, and 3.11 through call.eager) is done when the session
    # answers the POST: its stream was still opened, so its events are logged with ids
    url, _suite = served
    headers = await open_session(http, url, initialized=True)
    [priming] = await post(http, url, tool_call(7, "closed_then_answered"), headers)
    assert priming.data == "" and priming.id
    [answer] = data_of(await resume(http, url, headers, priming.id))
    assert answer["id"] == 7
    assert answer["result"]["content"][0]["text"] == "answered in the first step"


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26"])
async def test_older_revisions_are_not_primed_and_get_the_response_on_the_post(
    served: tuple[str, Suite], http: httpx.AsyncClient, version: str
) -> None:
    url, _ = served
    headers = await open_session(http, url, initialized=True, version=version)
    posted = await post(http, url, tool_call(2, "polled"), headers)
    assert all(e.data and e.retry is None and e.id for e in posted)  # resumable, not polled
    assert data_of(posted)[-1]["result"]["content"][0]["text"] == "answered after the close"


async def test_a_modern_request_gets_the_response_on_its_stream(
    served: tuple[str, Suite], http: httpx.AsyncClient
) -> None:
    url, _ = served
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    }
    body = tool_call(3, "polled")
    body["params"]["_meta"] = meta
    headers = {
        "Accept": ACCEPT,
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "polled",
    }
    posted = await post(http, url, body, headers)
    assert all(e.data and e.id is None and e.retry is None for e in posted)
    final = data_of(posted)[-1]
    assert final["id"] == 3 and final["result"]["content"][0]["text"] == "answered after the close"


async def test_cancelling_a_closed_call_ends_its_resumed_stream_unanswered(
    served: tuple[str, Suite], http: httpx.AsyncClient
) -> None:
    url, suite = served
    headers = await open_session(http, url, initialized=True)
    [priming] = await post(http, url, tool_call(4, "held"), headers)
    resumed = asyncio.create_task(resume(http, url, headers, priming.id))
    await asyncio.sleep(0.1)  # the resumed stream is following the call
    assert not resumed.done() and suite.live_workers == 1
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}}
    assert (await http.post(url, json=cancel, headers=headers)).status_code == 202
    assert await asyncio.wait_for(resumed, 2) == []  # ended, with no response
    assert suite.live_workers == 0


async def test_resuming_a_stream_the_client_left_gets_an_error_not_silence(
    served: tuple[str, Suite], http: httpx.AsyncClient
) -> None:
    url, suite = served
    headers = await open_session(http, url, initialized=True)
    async with http.stream("POST", url, json=tool_call(5, "ticks"), headers=headers) as response:
        seen = await sse_events(response, stop_after=2)  # then the client goes away
    for _ in range(50):
        if suite.live_workers == 0:
            break
        await asyncio.sleep(0.02)
    assert suite.live_workers == 0  # the call stopped with its stream
    rest = await asyncio.wait_for(resume(http, url, headers, seen[-1].id), 2)
    final = data_of(rest)[-1]
    assert final["id"] == 5 and final["error"]["code"] == -32603
    assert "its stream closed before the response" in final["error"]["message"]


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2026-07-28"])
async def test_the_test_client_resumes_a_closed_stream(version: str) -> None:
    suite = Suite(server_name="polling", server_version="1", tools=[Polled])
    async with MCPTestClient(app_of(suite), protocol_version=version) as client:
        result = await client.call_tool("polled", {"before": 1})
    assert result.text == "answered after the close"
    logged = [n["params"]["data"] for n in result.notifications]
    assert logged == [{"before": 0}, {"after": 0}, {"after": 1}]


async def test_another_sessions_last_event_id_opens_the_stream_with_nothing_replayed(
    served: tuple[str, Suite], http: httpx.AsyncClient
) -> None:
    url, _ = served
    alice = await open_session(http, url, initialized=True)
    bob = await open_session(http, url, initialized=True)
    posted = await post(http, url, tool_call(6, "polled", before=1), alice)
    foreign = posted[0].id
    assert foreign
    async with http.stream("GET", url, headers={**bob, "Last-Event-ID": foreign}) as got:
        assert got.status_code == 200
        assert got.headers["content-type"].startswith("text/event-stream")
        try:
            events = await asyncio.wait_for(sse_events(got, stop_after=1), 0.5)
        except TimeoutError:
            events = []  # the plain stream: open, and nothing to say yet
    assert not [e for e in events if e.data and "error" in json.loads(e.data)], events
    mine = await resume(http, url, alice, foreign)  # its own session still resumes it
    assert data_of(mine)[-1]["id"] == 6

"""Resumable standalone GET streams in one process, with the in-memory backend: real uvicorn,
raw SSE.

Every event of a legacy session's GET stream carries an SSE id naming its entry in the
Suite's change log; a 2025-11-25 stream opens with a priming event. A GET with
``Last-Event-ID`` replays what the session missed while away (resource updates only for the
URIs it subscribed to), then follows live, and ends the stale stream it replaces. An id the
log no longer holds (trimmed, or never there) opens the stream live with the notifications
that make the client refetch: ``list_changed`` per list, ``resources/updated`` per
subscribed URI. Older revisions get ids without priming.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI

from genmcp import (
    Channel,
    Result,
    StaticResource,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    mcp_router,
)
from genmcp.sessions import LegacyServer
from support.legacy_http import EventReader, open_session
from support.server import LiveServer
from support.sse import SSEEvent

RETRY_MS: Final = 300
MAXLEN: Final = 8
TOOLS: Final = "notifications/tools/list_changed"
RESOURCES: Final = "notifications/resources/list_changed"
UPDATED: Final = "notifications/resources/updated"
WATCHED: Final = "test://watched"
OTHER: Final = "test://other"


class Plain(Tool, name="plain", description="Answers."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="ok"))


class Extra(Tool, name="extra", description="Added and removed at run time."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="extra"))


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Suite]]:
    resources = [
        StaticResource(uri=WATCHED, name="watched", text="w"),
        StaticResource(uri=OTHER, name="other", text="o"),
    ]
    suite = Suite(server_name="get", server_version="1", tools=[Plain], resources=resources)
    app = FastAPI()
    legacy = LegacyServer(suite, stream_retry_ms=RETRY_MS, stream_maxlen=MAXLEN)
    app.include_router(mcp_router(suite=suite, legacy=legacy), prefix="/mcp")
    with LiveServer(app) as base:
        yield f"{base}/mcp", suite


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=10) as client:
        yield client


async def session(http: httpx.AsyncClient, url: str, version: str = "2025-11-25") -> Any:
    """A session's headers, subscribed to WATCHED."""
    headers = await open_session(http, url, initialized=True, version=version)
    body = {"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": WATCHED}}
    assert (await http.post(url, json=body, headers=headers)).status_code == 200
    return headers


def method(event: SSEEvent) -> Any:
    message = json.loads(event.data)
    return message["method"], message.get("params", {}).get("uri")


def seq(event: SSEEvent) -> int:
    assert event.id is not None and event.id.startswith("get~")
    return int(event.id.removeprefix("get~").split("-")[0])


async def test_a_resumed_get_stream_replays_what_it_missed_then_follows_live(
    served: tuple[str, Suite], http: httpx.AsyncClient
) -> None:
    url, suite = served
    headers = await session(http, url)
    async with http.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200
        reader = EventReader(response)
        priming = await reader.next()
        assert priming is not None and (priming.data, priming.retry) == ("", RETRY_MS)
        suite.add_tool(Extra)
        [added] = await reader.take(1)
        assert method(added) == (TOOLS, None) and seq(added) > seq(priming)
    # away: three changes, one of them for a URI this session did not subscribe to
    suite.remove_tool("extra")
    suite.resource_updated(OTHER)
    suite.resource_updated(WATCHED)
    resume = {**headers, "Last-Event-ID": added.id or ""}
    async with http.stream("GET", url, headers=resume) as response:
        assert response.status_code == 200
        reader = EventReader(response)
        missed = await reader.take(2)
        assert [method(e) for e in missed] == [(TOOLS, None), (UPDATED, WATCHED)]
        assert seq(added) < seq(missed[0]) < seq(missed[1])
        suite.resource_updated(WATCHED)  # live again
        [live] = await reader.take(1)
        assert method(live) == (UPDATED, WATCHED) and seq(live) > seq(missed[1])
    resume = {**headers, "Last-Event-ID": missed[0].id or ""}  # from the middle, again
    async with http.stream("GET", url, headers=resume) as response:
        again = await EventReader(response).take(2)
    assert [(e.id, e.data) for e in again] == [(e.id, e.data) for e in (missed[1], live)]


async def test_a_resume_ends_the_stale_stream_it_replaces(
    served: tuple[str, Suite], http: httpx.AsyncClient
) -> None:
    url, suite = served
    headers = await session(http, url)
    async with http.stream("GET", url, headers=headers) as stale:
        old = EventReader(stale)
        priming = await old.next()
        assert priming is not None and priming.id
        resume = {**headers, "Last-Event-ID": priming.id}
        async with http.stream("GET", url, headers=resume) as fresh:
            assert fresh.status_code == 200
            assert await old.rest() == []  # replaced: ended, nothing more on it
            suite.resource_updated(WATCHED)
            [event] = await EventReader(fresh).take(1)
            assert method(event) == (UPDATED, WATCHED)


async def test_an_id_the_log_no_longer_holds_opens_live_with_what_makes_the_client_refetch(
    served: tuple[str, Suite], http: httpx.AsyncClient
) -> None:
    url, suite = served
    headers = await session(http, url)
    async with http.stream("GET", url, headers=headers) as response:
        priming = await EventReader(response).next()
    assert priming is not None and priming.id
    for _ in range(MAXLEN + 2):  # trims the log past the client's id
        suite.resource_updated(OTHER)
    await asyncio.sleep(0.05)
    for lost in (priming.id, "get~99999999999999-0"):  # trimmed; never there
        async with http.stream("GET", url, headers={**headers, "Last-Event-ID": lost}) as got:
            assert got.status_code == 200
            reader = EventReader(got)
            resync = await reader.take(3)
            expected = [(TOOLS, None), (RESOURCES, None), (UPDATED, WATCHED)]
            assert [method(e) for e in resync] == expected
            assert resync[0].id is None and resync[1].id is None and resync[2].id
            suite.add_tool(Extra)
            suite.remove_tool("extra")
            live = await reader.take(2)
            assert [method(e) for e in live] == [(TOOLS, None)] * 2
            assert seq(resync[2]) < seq(live[0]) < seq(live[1])
    # an id of nobody's making is no resume: the plain stream, primed
    async with http.stream("GET", url, headers={**headers, "Last-Event-ID": "x~1"}) as got:
        primed = await EventReader(got).next()
    assert primed is not None and primed.data == "" and primed.retry == RETRY_MS


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26"])
async def test_older_revisions_get_ids_without_a_priming_event(
    served: tuple[str, Suite], http: httpx.AsyncClient, version: str
) -> None:
    url, suite = served
    headers = await session(http, url, version)
    async with http.stream("GET", url, headers=headers) as response:
        reader = EventReader(response)
        await asyncio.sleep(0.05)  # open: no priming event comes
        suite.resource_updated(WATCHED)
        [first] = await reader.take(1)
    assert first.data and first.retry is None and method(first) == (UPDATED, WATCHED)
    suite.resource_updated(WATCHED)
    async with http.stream("GET", url, headers={**headers, "Last-Event-ID": first.id or ""}) as got:
        [missed] = await EventReader(got).take(1)
    assert method(missed) == (UPDATED, WATCHED) and seq(missed) > seq(first)

"""A 2025 session's POST stream while its Redis is away (issue 29, item 7).

One uvicorn process of bench/scale/app.py on a redis-server of the test's own (append-only,
so a restart is on its data). A ``ticker`` call streams log events; Redis is killed after
the first of them. The stream promised ids (every event so far had one), so it never sends an
event without one: it ends there, before its answer. Once Redis is back, a ``GET`` with the
last id resumes it, and the events sent while Redis was away (held by the journal, stored in
order once it came back) arrive there: every tick exactly once, in order, then the answer.
Both a polled (2025-11-25, primed) and an unpolled (2025-06-18) stream; then the journal
alone on a real ``RedisBroker``: held events stored in order, or dropped (and said) after the
log's TTL.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import httpx
import pytest

from genmcp.sessions.journal import Journal, JournalTasks
from genmcp.sessions.resume import log_key, stream_of
from genmcp.sessions.stream_log import Unlogged
from genmcp.storage.redis import RedisBroker
from support.redis_server import OwnRedis, require_redis_server
from support.topology import Processes

pytestmark = pytest.mark.long  # a Redis killed and restarted, about 6 s (make test-long)

ACCEPT: Final = "application/json, text/event-stream"
TICKS: Final = 10


@pytest.fixture(scope="module")
def redis() -> Iterator[OwnRedis]:
    server = OwnRedis(require_redis_server(), persist=True)
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def url(redis: OwnRedis) -> Iterator[str]:
    procs = Processes(1, {"REDIS_URL": redis.url, "GENMCP_PREFIX": "outage:"}).start()
    try:
        yield procs.urls()[0] + "/mcp/"
    finally:
        procs.stop()


async def events(reply: httpx.Response) -> AsyncIterator[tuple[str | None, dict[str, Any]]]:
    """(id, message) of each SSE event with data (the priming event has none)."""
    event_id: str | None = None
    async for line in reply.aiter_lines():
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:") and line[5:].strip():
            yield event_id, json.loads(line[5:])
            event_id = None
        elif not line:
            event_id = None


async def session(http: httpx.AsyncClient, url: str, version: str) -> dict[str, str]:
    reply = await http.post(url, headers={"Accept": ACCEPT}, json={
        "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "outage", "version": "1"}}})  # fmt: skip
    assert reply.status_code == 200, reply.text
    headers = {"Accept": ACCEPT, "MCP-Protocol-Version": version,
               "Mcp-Session-Id": reply.headers["mcp-session-id"]}  # fmt: skip
    await http.post(
        url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
    )
    return headers


def tick(message: dict[str, Any]) -> int | None:
    if message.get("method") == "notifications/message":
        number: int = message["params"]["data"]["tick"]
        return number
    return None


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18"])
async def test_a_stream_cut_off_by_a_redis_outage_ends_resumably_and_loses_nothing(
    redis: OwnRedis, url: str, version: str
) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        headers = await session(http, url, version)
        call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": "ticker", "arguments": {"n": TICKS, "every": 0.1}}}  # fmt: skip
        seen: list[int] = []
        last_id: str | None = None
        async with http.stream("POST", url, json=call, headers=headers) as reply:
            assert reply.status_code == 200
            async for event_id, message in events(reply):
                assert event_id is not None, f"an event without an id: {message}"
                assert "result" not in message, "answered although Redis was away"
                last_id = event_id
                number = tick(message)
                if number is not None:
                    seen.append(number)
                    if number == 2:
                        redis.stop()  # the next ticks cannot be logged
        assert seen[:2] == [1, 2] and len(seen) < TICKS, seen
        await asyncio.sleep(0.6)  # the call ticks on while Redis is away
        redis.start()  # on its data: the session and the logged events are back
        assert last_id is not None
        answer: dict[str, Any] | None = None
        deadline = time.monotonic() + 20
        while answer is None:
            resume = {**headers, "Accept": "text/event-stream", "Last-Event-ID": last_id}
            async with http.stream("GET", url, headers=resume) as reply:
                if reply.status_code == 503:  # the store not reachable yet: retry, as told
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.2)
                    continue
                assert reply.status_code == 200, await reply.aread()
                async for event_id, message in events(reply):
                    assert event_id is not None, f"an event without an id: {message}"
                    last_id = event_id
                    number = tick(message)
                    if number is not None:
                        seen.append(number)
                    elif "result" in message or "error" in message:
                        answer = message
    assert seen == list(range(1, TICKS + 1)), seen  # each tick once, in order
    assert answer["id"] == 7 and answer["result"]["content"][0]["text"] == f"{TICKS} ticks"


def note(n: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": {"tick": n}}}


async def test_held_events_are_stored_in_order_once_redis_answers(redis: OwnRedis) -> None:
    """The journal itself, on a real RedisBroker: the event after Redis left raises
    ``Unlogged`` (the stream ends); it and the later ones are stored, in order, when the
    outage ends (``settle``)."""
    broker = RedisBroker.from_url(redis.url, prefix="held:")
    journal = Journal(
        broker, "s1", 5, "owner-1", maxlen=100, ttl_s=60, tasks=JournalTasks(), retry_ms=None
    )
    try:
        assert await journal.name(note(1), final=False) is not None
        redis.stop()
        with pytest.raises(Unlogged):
            await journal.name(note(2), final=False)
        await journal.record(note(3), final=False)
        answer = {"jsonrpc": "2.0", "id": 5, "result": {}}
        await journal.record(answer, final=True)
        settling = asyncio.create_task(journal.settle())
        await asyncio.sleep(0.5)
        assert not settling.done()  # still away: held
        redis.start()
        await asyncio.wait_for(settling, 10)
        logged = await broker.read_after(log_key("s1", stream_of(5)), "0")
        messages = [json.loads(entry["m"]) for _, entry in logged]
        assert messages == [note(1), note(2), note(3), answer]
        assert [entry.get("f") for _, entry in logged] == [None, None, None, "1"]
    finally:
        await broker.aclose()
        if redis.process is None:
            redis.start()


async def test_held_events_are_dropped_and_said_after_the_logs_ttl(
    redis: OwnRedis, caplog: pytest.LogCaptureFixture
) -> None:
    broker = RedisBroker.from_url(redis.url, prefix="held:")
    journal = Journal(
        broker, "s1", 6, "owner-1", maxlen=100, ttl_s=1, tasks=JournalTasks(), retry_ms=None
    )
    try:
        assert await journal.name(note(1), final=False) is not None
        redis.stop()
        with pytest.raises(Unlogged):
            await journal.name(note(2), final=False)
        # the TTL (1 s) bounds the retries: 10 s is a hang guard (no budget, issue 45) that
        # only a settle retrying on past the TTL fails; the log says it gave up at the TTL
        await asyncio.wait_for(journal.settle(), 10)
        assert "event log unreachable for 1 s: 1 events of stream" in caplog.text
        assert "dropped" in caplog.text
    finally:
        await broker.aclose()
        if redis.process is None:
            redis.start()

"""``Journal``: what the SSE writer logs of a legacy POST stream, and SSE polling's close.

Read against the in-memory event log (``MemoryBroker``) and a real Suite's Calls; the wire
side (a POST stream closed and resumed over uvicorn) is ``test_legacy_polling.py``. The
journal primes a 2025-11-25 stream with ``retry:``, not an older one; only a primed stream is
closed, and only by ``channel.CLOSE_STREAM`` (a plain stream start, equal but not the same
object, is not a close); each message is logged and named ``<stream>~<entry>``; a stream
that ends before its response logs a final error (or a bare end when cancelled); and a
closed stream's Call is logged to its answer by :meth:`Journal.follow`, which
``JournalTasks.logged`` waits for.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result
from genmcp.call.relay import Relay
from genmcp.channel import CLOSE_STREAM
from genmcp.events import STREAM_START
from genmcp.protocol.jsonrpc import Request
from genmcp.sessions.journal import Journal, JournalTasks
from genmcp.sessions.resume import log_key, stream_of
from genmcp.storage.memory import MemoryBroker
from genmcp.transports.http.sse import ShutdownHub

SESSION: Final = "s1"
META: Final = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/logLevel": "info",
}


TASKS: Final = JournalTasks()


def journal_of(events: MemoryBroker, retry_ms: int | None = 250, request_id: int = 5) -> Journal:
    return Journal(
        events, SESSION, request_id, "owner-1", maxlen=100, ttl_s=60, tasks=TASKS,
        retry_ms=retry_ms,
    )  # fmt: skip


async def entries(events: MemoryBroker, request_id: int = 5) -> list[dict[str, str]]:
    return [e for _, e in await events.read_after(log_key(SESSION, stream_of(request_id)), "0")]


async def test_a_polled_stream_is_primed_and_closed_only_by_close_stream() -> None:
    events = MemoryBroker()
    polled = journal_of(events)
    assert not polled.closes(CLOSE_STREAM)  # not primed yet
    priming = await polled.prime()
    assert priming is not None and priming.startswith(f"id: {stream_of(5)}~".encode())
    assert priming.endswith(b"\nretry: 250\ndata:\n\n")
    assert polled.closes(CLOSE_STREAM)
    assert CLOSE_STREAM == STREAM_START and not polled.closes(STREAM_START)
    assert await entries(events) == [{"o": "owner-1"}]  # the priming entry has no message


async def test_an_older_revisions_stream_is_not_primed_and_never_closed() -> None:
    older = journal_of(MemoryBroker(), retry_ms=None)
    assert await older.prime() is None
    assert not older.closes(CLOSE_STREAM)


async def test_each_message_is_logged_and_named_by_its_entry() -> None:
    events = MemoryBroker()
    named = journal_of(events)
    note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info"}}
    event_id = await named.name(note, final=False)
    assert event_id is not None and event_id.startswith(stream_of(5) + "~")
    assert not named.done
    answer = {"jsonrpc": "2.0", "id": 5, "result": {}}
    await named.name(answer, final=True)
    assert named.done
    logged = await entries(events)
    assert [json.loads(e["m"]) for e in logged] == [note, answer] and logged[-1]["f"] == "1"


async def test_a_stream_that_ends_before_its_response_logs_how_it_ended() -> None:
    events = MemoryBroker()
    left, cancelled = journal_of(events, request_id=1), journal_of(events, request_id=2)
    left.unfinished(cancelled=False)
    cancelled.unfinished(cancelled=True)
    for _ in range(100):
        if len(await entries(events, 1)) == len(await entries(events, 2)) == 1:
            break
        await asyncio.sleep(0.01)
    [error] = await entries(events, 1)
    assert json.loads(error["m"])["error"]["code"] < 0 and error["f"] == "1"
    assert await entries(events, 2) == [{"o": "owner-1", "f": "1"}]


class Ticks(Tool, name="ticks", description="Logs twice, then answers."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        for tick in range(2):
            await asyncio.sleep(0.01)
            channel.send_log("info", {"tick": tick})
        return Result(call_tool_result(text="done"))


async def test_a_closed_streams_call_is_logged_to_its_answer() -> None:
    events = MemoryBroker()
    suite = Suite(server_name="polling", server_version="1", tools=[Ticks])
    request = Request(5, "tools/call", {"name": "ticks", "arguments": {}, "_meta": META})
    call = await suite.handle(request, {}, dict(META))
    stopped = asyncio.Event()

    async def exit_signal() -> None:
        await stopped.wait()

    journal_of(events).follow(Relay(call), ShutdownHub(exit_signal))
    await TASKS.logged(within_s=5)
    logged = [json.loads(e["m"]) for e in await entries(events)]
    assert [m.get("method") for m in logged] == ["notifications/message"] * 2 + [None]
    assert logged[-1]["result"]["content"][0]["text"] == "done"
    assert call.task is None or call.task.done()

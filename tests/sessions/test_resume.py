"""``legacy.resume``: what a ``GET`` with ``Last-Event-ID`` replays of a legacy POST stream.

Event ids name their entry (``<stream>~<entry>``, the stream being the request id in
base64url), and only ids of that shape are ours. The replay reads a real event log (the
in-memory broker's) the way the journal writes it: entries with a message (``m``), the
owner's address (``o``) and the final flag (``f``). Over real HTTP:
test_get_stream_resume.py, test_resume_polling.py and tests/scenarios/.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from genmcp.sessions.resume import ResumedStream, log_key, parse_event_id, stream_of
from genmcp.storage.memory import MemoryBroker


@pytest.mark.parametrize("request_id", [7, 0, -3, "abc", "with spaces ~ and é", ""])
def test_an_event_id_names_its_request_and_entry(request_id: Any) -> None:
    stream = stream_of(request_id)
    assert "=" not in stream and "~" not in stream
    assert parse_event_id(f"{stream}~12-3") == (stream, "12-3", request_id)


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "no-tilde",
        f"{stream_of(1)}~12",  # an entry is <ms>-<seq>
        f"{stream_of(1)}~a-b",
        f"{stream_of(1)}~1-2~3-4",
        "!!!~1-2",
        f"{stream_of(True)}~1-2",  # JSON true is no request id
        f"{stream_of(1.5)}~1-2",
        f"{stream_of([1])}~1-2",
        "bm90IGpzb24~1-2",  # base64 of text that is not JSON
    ],
)
def test_ids_we_did_not_make_are_refused(text: str | None) -> None:
    assert parse_event_id(text) is None


def test_each_stream_of_a_session_has_its_own_log() -> None:
    assert log_key("s1", stream_of(1)) != log_key("s1", stream_of(2)) != log_key("s2", stream_of(1))


class Log:
    """A legacy POST stream's log, written as the journal writes it."""

    def __init__(self, request_id: Any, owner: str = "proc-1") -> None:
        self.broker, self.request_id, self.owner = MemoryBroker(), request_id, owner
        self.stream = stream_of(request_id)
        self.key = log_key("s1", self.stream)

    async def write(self, message: Any = None, *, final: bool = False) -> str:
        entry = {"o": self.owner}
        if message is not None:
            entry["m"] = json.dumps(message)
        if final:
            entry["f"] = "1"
        return await self.broker.append(self.key, entry, maxlen=100, ttl_s=60)

    def resume(self, after: str, *, local: str | None = "proc-1") -> ResumedStream:
        event = (self.stream, after, self.request_id)
        return ResumedStream(self.broker, self.broker, "s1", event, local=local)


async def replay(stream: ResumedStream) -> list[tuple[str | None, Any]]:
    return [pair async for pair in stream.sse()]


async def test_a_resume_replays_what_came_after_its_id_up_to_the_answer() -> None:
    log = Log(5)
    prime = await log.write()
    progress = await log.write({"method": "notifications/progress"})
    answer = await log.write({"id": 5, "result": {}}, final=True)
    assert await asyncio.wait_for(replay(log.resume(prime)), 2) == [
        (f"{log.stream}~{progress}", {"method": "notifications/progress"}),
        (f"{log.stream}~{answer}", {"id": 5, "result": {}}),
    ]
    assert await replay(log.resume(answer)) == []  # the client had the answer already


async def test_an_id_the_log_does_not_hold_gets_an_error_not_silence() -> None:
    log = Log("r1")
    await log.write({"method": "notifications/progress"})
    [(event_id, lost)] = await replay(log.resume("999-0"))
    assert event_id is None and lost["id"] == "r1"
    assert "no longer kept" in lost["error"]["message"]


async def test_a_stream_whose_owner_is_gone_ends_with_an_error() -> None:
    log = Log(9, owner="proc-dead")
    first = await log.write({"method": "notifications/progress"})
    [(event_id, lost)] = await asyncio.wait_for(replay(log.resume(first, local="proc-1")), 2)
    assert event_id is None and lost["id"] == 9
    assert "process running it was lost" in lost["error"]["message"]


async def test_a_resume_follows_a_call_this_process_still_runs() -> None:
    log = Log(3)
    first = await log.write({"method": "notifications/progress", "n": 1})
    stream = log.resume(first)
    replaying = asyncio.ensure_future(replay(stream))
    await asyncio.sleep(0.15)  # it polls the log while the call runs here
    later = await log.write({"id": 3, "result": {"late": True}}, final=True)
    assert await asyncio.wait_for(replaying, 2) == [
        (f"{log.stream}~{later}", {"id": 3, "result": {"late": True}})
    ]


async def test_closing_a_resumed_stream_stops_the_follow() -> None:
    log = Log(4)
    first = await log.write({"method": "notifications/progress"})
    stream = log.resume(first)
    replaying = asyncio.ensure_future(replay(stream))
    await asyncio.sleep(0.05)
    stream.close()
    assert await asyncio.wait_for(replaying, 2) == []

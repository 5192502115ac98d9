"""call.relay: the reader every transport drains a Call with, and the codec of each era.

Read against a Suite directly (no transport): after the call's first step ``poll`` has the
answer of a call that answers in it, and None, without waiting, for one that has not spoken;
iterated, the relay yields every event in order and stops after the answer; a 2025
session's codec translates what goes out.
"""

from __future__ import annotations

import asyncio
from typing import Any

from genmcp import Suite
from genmcp.call.relay import MODERN, LegacyCodec, Relay
from genmcp.events import Answer, Interim, StreamStart
from genmcp.protocol.jsonrpc import Request
from support.relay_tools import META, Later, Now, Starts, Talks


def _suite() -> Suite:
    return Suite(server_name="relay", server_version="1", tools=(Now, Later, Talks, Starts))


async def _handle(name: str, meta: dict[str, Any] = META, **arguments: Any) -> Relay:
    request = Request(1, "tools/call", {"name": name, "arguments": arguments, "_meta": meta})
    return Relay(await _suite().handle(request, {}, dict(meta)))


# -- the reader's first-event step ----------------------------------------------------


async def _first_step(relay: Relay) -> None:
    if relay.call.task is not None:
        await asyncio.sleep(0)  # the one step respond lets the call take


async def test_poll_has_the_answer_of_a_call_that_answers_in_its_first_step() -> None:
    relay = await _handle("now")
    await _first_step(relay)
    event = relay.poll()
    assert type(event) is Answer and relay.done
    assert event.response["result"]["content"][0]["text"] == "now"


async def test_poll_is_none_without_waiting_for_a_call_that_has_not_spoken() -> None:
    relay = await _handle("later", seconds=5)
    await _first_step(relay)
    assert relay.poll() is None and not relay.done
    relay.close()  # the reader leaves: the call is disconnected
    await asyncio.wait_for(relay.call.wait(), 2)


async def test_the_reader_yields_every_event_in_order_then_stops() -> None:
    relay = await _handle("starts")
    kinds = [type(event) async for event in relay]
    assert kinds == [StreamStart, Answer] and relay.done


async def test_the_reader_yields_a_notification_before_the_answer() -> None:
    relay = await _handle("talks", {**META, "io.modelcontextprotocol/logLevel": "info"})
    events = [event async for event in relay]
    assert [type(event) for event in events] == [Interim, Answer]


def test_the_modern_codec_is_the_identity() -> None:
    message = {"jsonrpc": "2.0", "method": "notifications/message", "params": {}}
    answer = Answer({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete"}})
    assert MODERN.interim(message) is message and MODERN.final(answer) is answer


def test_the_legacy_codec_drops_what_a_2025_client_does_not_know() -> None:
    codec = LegacyCodec("tools/call", "2025-06-18")
    result = {"content": [], "resultType": "complete", "_meta": {"k": 1}}
    final = codec.final(Answer({"jsonrpc": "2.0", "id": 3, "result": result}))
    assert final.response["id"] == 3 and "resultType" not in final.response["result"]
    failure = {"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "x"}}
    error = codec.final(Answer(failure, "invalid_params"))
    assert error.reason == "invalid_params" and error.response["error"]["code"] == -32602

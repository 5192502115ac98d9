"""client.limits: the bounds a server is held to, against a misbehaving server on loopback.

Each test is a finding of issue 48 (measured on the code before the bounds): a 1 GiB answer
read whole (4 GB of memory), a listing whose `nextCursor` never ends (89,516 pages, never
returned), a call that never ends (a drip, an endless stream), an answer with another
request's id taken as the result. The server (`support.rogue`) generates its bodies as it
sends them; the bounds here are small and the bodies a few times larger, and what the
client read (`HTTPWire.received`) shows it stopped near the bound, not at the body's end.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from genmcp.client import (
    Client,
    ClientError,
    ClientLimits,
    DeadlineExceeded,
    LimitExceeded,
    ListingTooLong,
    MessageTooLarge,
    ResponseMismatch,
)
from genmcp.client.http import HTTPWire
from genmcp.client.limits import MIB, within
from support.rogue import Rogue, chatter, drip, huge_event, huge_json, wrong_id
from support.server import LiveServers

SMALL = ClientLimits(max_message_bytes=MIB)


def received(client: Client) -> int:
    wire = client.connection.wire
    assert isinstance(wire, HTTPWire)
    return wire.received


def test_the_defaults_and_what_is_refused() -> None:
    limits = ClientLimits()
    assert (limits.max_message_bytes, limits.max_pages, limits.max_items) == (
        32 * MIB, 1000, 100_000,
    )  # fmt: skip
    assert limits.deadline_s == 300.0
    assert ClientLimits(deadline_s=None).deadline_s is None
    for wrong in ({"max_pages": 0}, {"max_items": True}, {"deadline_s": 0}):
        with pytest.raises(ValueError, match="ClientLimits"):
            ClientLimits(**wrong)


@pytest.mark.parametrize("behaviour", [huge_json(5 * MIB), huge_event(5 * MIB)])
async def test_an_answer_over_the_bound_ends_before_its_body(
    live_server: LiveServers, behaviour: Any
) -> None:
    rogue = Rogue(call=behaviour)
    url = live_server(rogue) + "/mcp"
    async with Client(url, limits=SMALL) as client:
        with pytest.raises(MessageTooLarge) as raised:
            await client.call_tool("big")
        read = received(client)

    assert raised.value.limit == "max_message_bytes" and raised.value.value == MIB
    assert "ClientLimits(max_message_bytes=...)" in str(raised.value)
    assert read < 2 * MIB  # of the 5 MiB sent: stopped near the bound, not at the end


LONG_LINE = """
import sys
sys.stdin.readline()
sys.stdout.write('{"jsonrpc": "2.0", "id": 1, "result": {"text": "' + 'x' * 3 * 2**20 + '"}}\\n')
sys.stdout.flush()
sys.stdin.readline()
"""


async def test_a_stdio_line_over_the_bound_ends_the_reading() -> None:
    command = [sys.executable, "-c", LONG_LINE]
    async with Client(command, protocol="2026-07-28", limits=SMALL) as client:
        with pytest.raises(MessageTooLarge, match="a line longer than the client's 1048576 bytes"):
            await client.call_tool("big")
        with pytest.raises(ClientError, match="is not running"):
            await client.call_tool("again")


async def test_a_declared_length_over_the_bound_is_refused_unread(live_server: LiveServers) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(5 * MIB).encode())]})  # fmt: skip
        await send({"type": "http.response.body", "body": b"{" + b" " * 1000, "more_body": True})
        while (await receive())["type"] != "http.disconnect":
            pass  # the rest never comes: the client must not wait for it

    url = live_server(app) + "/mcp"
    async with Client(url, limits=SMALL, protocol="2026-07-28") as client:
        with pytest.raises(MessageTooLarge, match=f"a body of {5 * MIB} bytes"):
            await client.call_tool("big")
        assert received(client) == 0


@pytest.mark.parametrize("behaviour", [drip, chatter])
async def test_a_call_that_never_ends_meets_the_deadline(
    live_server: LiveServers, behaviour: Any
) -> None:
    rogue = Rogue(call=behaviour)
    url = live_server(rogue) + "/mcp"
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    # the read timeout never fires: bytes keep coming (a drip, notifications)
    async with Client(url, timeout=30, limits=ClientLimits(deadline_s=0.5)) as client:
        with pytest.raises(DeadlineExceeded) as raised:
            await client.call_tool("big", on_progress=on_progress)
    assert raised.value.limit == "deadline_s" and raised.value.value == 0.5
    assert "tools/call" in str(raised.value)
    assert (len(progress) > 0) == (behaviour is chatter)


async def test_time_in_the_clients_own_callbacks_is_not_counted() -> None:
    async with within(0.2, "http://x", "tools/call") as clock:
        async with clock.paused():
            await asyncio.sleep(0.4)  # a person answering a form: past the deadline
    with pytest.raises(DeadlineExceeded):
        async with within(0.2, "http://x", "tools/call"):
            await asyncio.sleep(0.4)


async def test_an_answer_with_another_requests_id_is_not_taken(live_server: LiveServers) -> None:
    rogue = Rogue(call=wrong_id)
    url = live_server(rogue) + "/mcp"
    async with Client(url) as client:
        with pytest.raises(ResponseMismatch) as raised:
            await client.call_tool("big")
    assert "with the response to 10" in str(raised.value) and "not taken" in str(raised.value)


def test_each_bound_is_a_client_error() -> None:
    for kind in (MessageTooLarge, ListingTooLong, DeadlineExceeded):
        assert issubclass(kind, LimitExceeded) and issubclass(kind, ClientError)
    assert issubclass(ResponseMismatch, ClientError)

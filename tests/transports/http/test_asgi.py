"""``transports.http.asgi``: the raw ASGI plumbing under the endpoint, driven through ASGI itself.

Each helper gets the ``receive``/``send`` callables of the ASGI interface (a queue of the
messages a server would hand over, a list of what was sent): headers looked up by name, the
body read whole or refused past its cap, JSON and empty answers, refusals that drain what the
client still sends, and the one ticking task that times body reads out. The same helpers
under a real uvicorn are tests/transports/http/test_asgi_refusal.py and test_asgi_disconnect.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from genmcp.transports.http.asgi import (
    BodyDeadlines,
    HeaderView,
    content_type_problem,
    disconnected,
    drain,
    read_body,
    send_empty,
    send_json,
    send_refusal,
)

Receive = Callable[[], Awaitable[dict[str, Any]]]


def body_of(*chunks: bytes, then: str | None = None) -> Receive:
    """A ``receive`` that hands over ``chunks`` as one body (then ``then``, if given)."""
    messages: list[dict[str, Any]] = [
        {"type": "http.request", "body": chunk, "more_body": n < len(chunks) - 1}
        for n, chunk in enumerate(chunks)
    ]
    if then is not None:
        messages.append({"type": then})

    async def receive() -> dict[str, Any]:
        if not messages:
            await asyncio.sleep(3600)  # a client that sends nothing more
        return messages.pop(0)

    return receive


class Sent:
    """A ``send`` that keeps what it was given."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def __call__(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    @property
    def status(self) -> int:
        status: int = self.messages[0]["status"]
        return status

    @property
    def headers(self) -> dict[bytes, bytes]:
        return dict(self.messages[0]["headers"])

    @property
    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.messages[1:])


def test_headers_are_found_by_lower_case_name_and_the_last_repeat_wins() -> None:
    headers = HeaderView([(b"content-type", b"application/json"), (b"x-a", b"1"), (b"x-a", b"2")])
    assert headers["content-type"] == "application/json"
    assert headers.get("x-a") == "2" and headers.get("missing", "none") == "none"
    assert sorted(headers) == ["content-type", "x-a"] and len(headers) == 2
    assert HeaderView([(b"x-l", "café".encode("latin-1"))])["x-l"] == "café"
    with pytest.raises(KeyError):
        headers["absent"]
    assert "x-a" in headers and "absent" not in headers and 1 not in headers  # no KeyError


@pytest.mark.parametrize(
    ("content_type", "refused"),
    [
        (None, False),
        ("application/json", False),
        ("Application/JSON; charset=utf-8", False),
        ("application/vnd.api+json", False),
        ("text/plain", True),
        ("application/x-www-form-urlencoded", True),
    ],
)
def test_only_json_bodies_are_accepted(content_type: str | None, refused: bool) -> None:
    raw = [] if content_type is None else [(b"content-type", content_type.encode())]
    problem = content_type_problem(HeaderView(raw))
    assert (problem is not None) is refused
    if problem is not None:
        assert problem.reason == "unsupported_media_type" and content_type in str(problem)


async def test_a_body_is_read_whole_across_chunks() -> None:
    body = await read_body(body_of(b'{"a":', b"1", b"}"), HeaderView([]), limit=100)
    assert body == b'{"a":1}'


async def test_a_body_past_the_cap_is_refused_declared_or_counted() -> None:
    declared = HeaderView([(b"content-length", b"101")])
    assert await read_body(body_of(b"x"), declared, limit=100) is None  # not even read
    assert await read_body(body_of(b"x" * 60, b"x" * 41), HeaderView([]), limit=100) is None
    assert await read_body(body_of(b"x" * 60, b"x" * 40), HeaderView([]), limit=100) == b"x" * 100


async def test_a_client_that_leaves_mid_body_gives_an_empty_body() -> None:
    messages = [
        {"type": "http.request", "body": b"part", "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def leaves() -> dict[str, Any]:
        return messages.pop(0)

    assert await read_body(leaves, HeaderView([]), limit=100) == b""


def trickle() -> Receive:
    """A ``receive`` of a body that says more follows, then never sends it."""
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": b"a", "more_body": True}

    return receive


async def test_json_and_empty_answers_declare_their_length() -> None:
    sent = Sent()
    await send_json(sent, {"jsonrpc": "2.0", "id": 1, "result": {}}, 200, [("retry-after", "2")])
    assert sent.status == 200
    assert sent.headers[b"content-type"] == b"application/json"
    assert int(sent.headers[b"content-length"]) == len(sent.body)
    assert sent.headers[b"retry-after"] == b"2"
    assert json.loads(sent.body) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    empty = Sent()
    await send_empty(empty, 202)
    assert (empty.status, empty.headers, empty.body) == (202, {b"content-length": b"0"}, b"")


async def test_a_refusal_answers_at_once_then_drains_the_unread_body() -> None:
    sent = Sent()
    receive = body_of(b"x" * 10, b"y" * 10)
    headers = HeaderView([(b"content-length", b"20")])
    await send_refusal(sent, receive, headers, {"error": "too big"}, 413)
    assert sent.status == 413 and sent.headers[b"connection"] == b"close"
    assert sent.messages[1]["more_body"] is True  # the answer went out before the drain
    assert json.loads(sent.messages[1]["body"]) == {"error": "too big"}
    assert sent.messages[-1] == {"type": "http.response.body", "body": b""}


@pytest.mark.parametrize(
    "headers",
    [[], [(b"expect", b"100-continue"), (b"content-length", b"20")]],
    ids=["no body follows", "a client waiting for 100 Continue"],
)
async def test_a_refusal_with_nothing_to_drain_ends_at_once(
    headers: list[tuple[bytes, bytes]],
) -> None:
    sent = Sent()
    await send_refusal(sent, body_of(), HeaderView(headers), {"error": "no"}, 415)
    assert len(sent.messages) == 2 and "more_body" not in sent.messages[1]


async def test_drain_is_bounded_in_bytes_and_time() -> None:
    assert await drain(body_of(b"a" * 10, b"b" * 10), max_bytes=100, max_s=1.0)
    assert not await drain(body_of(b"a" * 60, b"b" * 60, b"c"), max_bytes=100, max_s=1.0)
    assert not await drain(trickle(), max_bytes=100, max_s=0.05)

    async def leaves() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    assert await drain(leaves, max_bytes=100, max_s=1.0)  # a client gone is a drained one


async def test_disconnected_returns_when_the_client_leaves() -> None:
    receive = body_of(b"ignored", then="http.disconnect")
    await asyncio.wait_for(disconnected(receive), 1)


async def test_body_deadlines_cancel_a_read_past_its_time_and_only_that_one() -> None:
    deadlines = BodyDeadlines(0.1)

    async def read(seconds: float) -> str:
        task = deadlines.enter()
        try:
            await asyncio.sleep(seconds)
            return "read"
        except asyncio.CancelledError:
            if deadlines.timed_out(task):
                return "timed out"
            raise
        finally:
            deadlines.leave(task)

    fast, slow = await asyncio.gather(read(0.01), read(5))
    assert (fast, slow) == ("read", "timed out")
    other = asyncio.ensure_future(read(5))
    await asyncio.sleep(0.01)
    other.cancel()  # cancelled by someone else: not taken for a timeout
    with pytest.raises(asyncio.CancelledError):
        await other

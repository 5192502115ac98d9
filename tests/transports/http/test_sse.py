"""The one SSE writer, over a real uvicorn server: framing, keepalives, timeouts, leaving, stopping.

``write_feed`` (the legacy GET stream's writer) is served by a bare ASGI app around a source
the test controls, and read with httpx or a raw socket: the headers, ``id:`` lines, the
priming event with ``retry:``, keepalive comments, the source closed when the client
leaves, a clean end when the server stops (the hub's exit signal), and ``SendTimeout`` for
a reader that stops reading. ``SSEStream`` (a Call's POST stream) is read through
``mcp_router``: keepalives between events, no ids without a journal, and a client that
leaves mid-stream ends the call (``handle_close``).
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Final

import httpx
from fastapi import FastAPI

from genmcp import Channel, Result, Stream, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.transports.http.keepalive import keepalive_wheel
from genmcp.transports.http.sse import SendTimeout, ShutdownHub, StreamOptions, write_feed
from support.client import ModernClient
from support.server import LiveServers
from support.sse import SSEComment, SSEEvent, SSEParser, read_items

RETRY_MS: Final = 250


@dataclass
class Feed:
    """A feed server's source and what became of it."""

    pairs: list[tuple[str | None, Any]]
    then_wait: bool = True  # after the pairs, wait forever (a live stream) instead of ending
    outcomes: list[str] = field(default_factory=list)
    closed: list[bool] = field(default_factory=list)
    stop: asyncio.Event | None = None  # set (on the server's loop) to signal shutdown

    async def source(self) -> AsyncIterator[tuple[str | None, Any]]:
        try:
            for pair in self.pairs:
                yield pair
            if self.then_wait:
                await asyncio.Event().wait()
        finally:
            self.closed.append(True)

    async def exit_signal(self) -> None:
        if self.stop is None:
            self.stop = asyncio.Event()
        await self.stop.wait()


def feed_app(feed: Feed, keepalive_s: float = 60.0, send_timeout_s: float | None = 5.0) -> Any:
    options = StreamOptions(keepalive_s, send_timeout_s, 1.0, ShutdownHub(feed.exit_signal))

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        try:
            await write_feed(feed.source(), receive, send, options, retry_ms=RETRY_MS)
        except SendTimeout:
            feed.outcomes.append("send timeout")
        else:
            feed.outcomes.append("returned")

    return app


def wait_until(check: Callable[[], bool], timeout: float = 5.0) -> None:
    began = time.monotonic()
    while not check():
        assert time.monotonic() - began < timeout, "not in time"
        time.sleep(0.01)


async def test_a_feed_writes_ids_the_priming_event_and_ends_cleanly(
    live_server: LiveServers,
) -> None:
    feed = Feed([("get~1-0", None), ("get~2-0", {"n": 1}), (None, {"n": 2})], then_wait=False)
    url = live_server(feed_app(feed), lifespan="off")
    async with httpx.AsyncClient(timeout=5) as http:
        reply = await http.get(url)
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert (reply.headers["cache-control"], reply.headers["x-accel-buffering"]) == (
        "no-store",
        "no",
    )
    assert reply.content == (
        b'id: get~1-0\nretry: 250\ndata:\n\nid: get~2-0\ndata: {"n":1}\n\ndata: {"n":2}\n\n'
    )
    wait_until(lambda: feed.outcomes == ["returned"] and feed.closed == [True])


async def test_a_quiet_feed_sends_keepalives_and_a_leaving_client_closes_its_source(
    live_server: LiveServers,
) -> None:
    feed = Feed([])
    url = live_server(feed_app(feed, keepalive_s=0.1), lifespan="off")
    async with (
        httpx.AsyncClient(timeout=5) as http,
        http.stream("GET", url) as response,
    ):
        items = await read_items(response.aiter_bytes(), 2)
    assert all(type(item) is SSEComment and item.text.startswith("ping - ") for item in items)
    wait_until(lambda: feed.closed == [True])  # the client left: the source was closed
    assert feed.outcomes == ["returned"]


async def test_a_stream_that_wrote_since_its_keepalive_was_scheduled_sends_no_ping(
    live_server: LiveServers,
) -> None:
    # a keepalive is for silence: when the wheel's turn comes for a stream that wrote an
    # item since, the stream is due again keepalive_s after that write and writes nothing
    queues: list[asyncio.Queue[Any]] = []

    async def source(queue: asyncio.Queue[Any]) -> AsyncIterator[tuple[str | None, Any]]:
        while True:
            yield None, await queue.get()

    async def never() -> None:
        await asyncio.Event().wait()

    options = StreamOptions(60.0, 5.0, 1.0, ShutdownHub(never))

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        queue: asyncio.Queue[Any] = asyncio.Queue()
        queues.append(queue)  # before the response's headers: the client sees it there
        await write_feed(source(queue), receive, send, options, retry_ms=RETRY_MS)

    async def put(message: Any) -> None:
        queues[0].put_nowait(message)

    async def turn_comes() -> float:
        wheel = keepalive_wheel()
        [stream] = list(wheel._where)  # the one open stream, as the wheel holds it
        stream.keepalive_due()  # what the wheel does when the stream's turn comes
        due = wheel.due(stream)
        assert due is not None, "the stream left the wheel"
        return due - stream.wrote_at

    server = live_server.start(app, lifespan="off")
    async with (
        httpx.AsyncClient(timeout=10) as http,
        http.stream("GET", server.url) as response,
    ):
        chunks, parser = response.aiter_bytes(), SSEParser()

        async def next_item() -> SSEEvent | SSEComment:
            items: list[SSEEvent | SSEComment] = []
            while not items:
                items = parser.feed(await anext(chunks))
            assert len(items) == 1, items
            return items[0]

        await server.run_in_loop(put({"n": 1}))
        first = await next_item()
        assert type(first) is SSEEvent and json.loads(first.data) == {"n": 1}
        after_write_s = await server.run_in_loop(turn_comes())
        assert 60 <= after_write_s <= 61, after_write_s  # from the write, on the 1 s grid
        await server.run_in_loop(put({"n": 2}))
        second = await next_item()  # the next thing written: the item, not a ping
        assert type(second) is SSEEvent and json.loads(second.data) == {"n": 2}, second


async def test_a_feed_ends_cleanly_when_the_server_stops(live_server: LiveServers) -> None:
    feed = Feed([("get~1-0", {"n": 1})])
    server = live_server.start(feed_app(feed), lifespan="off")
    async with (
        httpx.AsyncClient(timeout=5) as http,
        http.stream("GET", server.url) as response,
    ):
        chunks = response.aiter_bytes()
        assert await anext(chunks) == b'id: get~1-0\ndata: {"n":1}\n\n'
        stop = feed.stop
        assert stop is not None
        server.loop.call_soon_threadsafe(stop.set)
        rest = [chunk async for chunk in chunks]  # the response ends: no read error
    assert b"".join(rest) == b""
    wait_until(lambda: feed.outcomes == ["returned"] and feed.closed == [True])


async def test_a_reader_that_stops_reading_is_a_send_timeout(live_server: LiveServers) -> None:
    big = {"pad": "x" * 60_000}
    feed = Feed([(f"get~{n}-0", big) for n in range(200)])
    server = live_server.start(feed_app(feed, send_timeout_s=0.3), lifespan="off")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        sock.connect(("127.0.0.1", server.port))
        sock.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        wait_until(lambda: feed.outcomes == ["send timeout"], timeout=10)
    finally:
        sock.close()
    wait_until(lambda: feed.closed == [True])


# -- a Call's stream --------------------------------------------------------------------


@dataclass
class Seen:
    closed: int = 0


class Slow(Tool, name="slow", description="Logs, sleeps 0.35 s, answers."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Seen) -> Result:
        channel.send_log("info", "begun")
        await asyncio.sleep(0.35)
        return Result(call_tool_result(text="slow"))


class Held(Tool, name="held", description="Streams until the client leaves."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Seen) -> Stream:
        channel.send_log("info", "held")
        return Stream(None)

    async def handle_close(self, channel: Channel, state: Any, arg: Seen) -> None:
        arg.closed += 1


def _client(
    live_server: LiveServers, make: Callable[..., ModernClient], seen: Seen
) -> ModernClient:
    router = mcp_router(
        server_name="sse", server_version="1", tools=[(Slow, seen), (Held, seen)], keepalive_s=0.1
    )
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return make(live_server(app))


async def test_a_call_stream_sends_keepalives_between_events_and_no_ids(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    client = _client(live_server, modern_client, Seen())
    reply = await client.request("tools/call", {"name": "slow"}, log_level="info")
    assert reply.is_sse and len(reply.comments) >= 2
    assert all(comment.startswith("ping - ") for comment in reply.comments)
    assert [event.id for event in reply.events] == [None, None]
    assert json.loads(reply.events[-1].data)["result"]["content"][0]["text"] == "slow"


async def test_leaving_a_call_stream_ends_the_call(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    seen = Seen()
    client = _client(live_server, modern_client, seen)
    async with client.stream("tools/call", {"name": "held"}, log_level="info") as exchange:
        first = await anext(aiter(exchange))
        assert first["method"] == "notifications/message"
    wait_until(lambda: seen.closed == 1)


async def test_the_shutdown_hub_tells_each_stream_once_even_one_that_joins_after_the_signal() -> (
    None
):
    # a second broadcast would read, to a stream draining already, as its drain running out
    # (the rolling restart's "Server shutting down" for calls that had time to answer)
    exiting = asyncio.Event()

    async def exit_signal() -> None:
        await exiting.wait()

    hub = ShutdownHub(exit_signal)
    told: list[str] = []

    def early() -> None:
        told.append("early")

    def left() -> None:
        told.append("left")

    def late() -> None:
        told.append("late")

    hub.join(early)
    hub.join(left)
    hub.leave(left)  # a stream that ended before the signal is not told
    await asyncio.sleep(0)
    assert told == []
    exiting.set()
    for _ in range(3):
        await asyncio.sleep(0)
    assert told == ["early"]
    hub.join(late)  # a stream opened after the signal
    for _ in range(3):
        await asyncio.sleep(0)
    assert told == ["early", "late"]  # told alone: no one told before is told again

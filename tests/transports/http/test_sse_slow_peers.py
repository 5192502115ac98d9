"""Slow peers (issue 12, item 2): a reader that never reads is a disconnect, and bounded.

A real uvicorn server with ``send_timeout_s`` small; raw socket clients with a tiny receive
buffer send a ``tools/call`` whose tool floods progress notifications, then never read. The
server must notice through ``send_timeout_s`` once the socket buffers are full (no earlier:
a send waited that long; and not through the tool's end or the keepalive, 60 s away, which
the 20 s hang guards leave out: no budget, issue 45), cancel the tool (or run
``handle_close`` for a stream), release what the call queued, and never count the tool as
completed. The Outbox bound holds before that: a tool that sends 50,000
notifications without yielding keeps at most ``OUTBOX_CAPACITY`` of them queued, and the
sends past it return False.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

import pytest
from fastapi import FastAPI

from genmcp import Channel, Result, Stream, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.events import Answer, Interim
from genmcp.outbox import OUTBOX_CAPACITY, Outbox
from support.client import ModernClient
from support.server import LiveServers

SECRET: Final = "slow-peers-test-secret-key-0123456789abcdef"
SEND_TIMEOUT_S: Final = 0.5
GUARD_S: Final = 20.0  # a hang guard: far above send_timeout_s, far below the 60 s other paths
FLOOD: Final = 50_000
ARGS: Final = {"type": "object", "properties": {"n": {"type": "integer"}}}


@dataclass
class Seen:
    started: int = 0
    started_at: float = 0.0
    completed: int = 0
    cancelled: int = 0
    closed: int = 0
    dropped: list[int] = field(default_factory=list)
    queued: int = 0
    outbox: Outbox | None = None
    ended_at: float = 0.0


class Flood(Tool, name="flood", description="Sends n progress notifications.", input_schema=ARGS):
    """Yields every 100 sends, so a disconnect can cancel it."""

    async def call(self, request: ToolRequest, channel: Channel, arg: Seen) -> Result:
        arg.started += 1
        arg.started_at = time.monotonic()
        try:
            for step in range(request.arguments.get("n", FLOOD)):
                channel.send_progress(step, message="x" * 200)
                if step % 100 == 0:
                    await asyncio.sleep(0.001)
            await asyncio.sleep(60)  # still running when a reader that never reads is cut
        except asyncio.CancelledError:
            arg.cancelled += 1
            arg.ended_at = time.monotonic()
            raise
        arg.completed += 1
        return Result(call_tool_result(text="flooded"))


class Burst(Tool, name="burst", description="n notifications, no yield, then streams."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Seen) -> Stream:
        arg.started += 1
        arg.started_at = time.monotonic()
        sent = [channel.send_progress(step, message="y" * 200) for step in range(FLOOD)]
        arg.dropped.append(sent.count(False))
        arg.outbox = channel._outbox  # to measure what it holds before and after
        arg.queued = len(arg.outbox)
        return Stream(None)

    async def handle_message(self, message: Any, channel: Channel, state: Any, arg: Seen) -> Result:
        arg.completed += 1
        return Result(call_tool_result(text="done"))

    async def handle_close(self, channel: Channel, state: Any, arg: Seen) -> None:
        arg.closed += 1
        arg.ended_at = time.monotonic()


@pytest.fixture
def served() -> Iterator[tuple[int, Seen, Any]]:
    seen = Seen()
    router = mcp_router(
        server_name="slow",
        server_version="1",
        tools=[(Flood, seen), (Burst, seen)],
        secret_key=SECRET,
        send_timeout_s=SEND_TIMEOUT_S,
        keepalive_s=60,
    )
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    live = LiveServers()
    try:
        yield live.start(app).port, seen, router.suite
    finally:
        live.stop_all()


def call_bytes(port: int, tool: str) -> bytes:
    client = ModernClient(f"http://127.0.0.1:{port}")
    body, headers = client.build("tools/call", {"name": tool, "arguments": {}}, progress_token=7)
    raw = json.dumps(body).encode()
    lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{lines}"
    return f"{head}Content-Length: {len(raw)}\r\n\r\n".encode() + raw


def never_reading(port: int, tool: str) -> socket.socket:
    """A client that sends one call and never reads (a 4 KiB receive buffer)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(call_bytes(port, tool))
    return sock


def wait_for(check: Any, timeout: float) -> float:
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < timeout, "not detected in time"
        time.sleep(0.01)
    return time.monotonic()


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_a_reader_that_never_reads_is_a_disconnect(served: tuple[int, Seen, Any]) -> None:
    port, seen, suite = served
    before = rss_kib()
    sock = never_reading(port, "flood")
    try:
        wait_for(lambda: seen.started == 1, 5)
        wait_for(lambda: seen.cancelled == 1, GUARD_S)  # the tool itself sleeps 60 s more
        wait_for(lambda: suite.live_workers == 0, GUARD_S)
        took = seen.ended_at - seen.started_at  # buffers fill in ms, then one send blocks
        assert took >= SEND_TIMEOUT_S  # a send waited the timeout: not cut before it
        assert seen.completed == 0
        print(
            f"\nnever-reading SSE reader: cancelled {took:.2f} s after the tool started "
            f"(send_timeout_s={SEND_TIMEOUT_S}), RSS {before} -> {rss_kib()} KiB, "
            f"live_workers {suite.live_workers}"
        )
    finally:
        sock.close()


def test_the_outbox_is_bounded_and_handle_close_runs(served: tuple[int, Seen, Any]) -> None:
    port, seen, suite = served
    sock = never_reading(port, "burst")
    try:
        wait_for(lambda: seen.closed == 1, GUARD_S)  # the keepalive would come after 60 s
        took = seen.ended_at - seen.started_at
        wait_for(lambda: suite.live_workers == 0, GUARD_S)
        assert seen.dropped == [FLOOD - OUTBOX_CAPACITY]
        assert seen.queued == OUTBOX_CAPACITY
        assert seen.outbox is not None and len(seen.outbox) == 0  # released at the disconnect
        assert seen.completed == 0
        assert took >= SEND_TIMEOUT_S  # a send waited the timeout: not cut before it
        print(
            f"\nburst of {FLOOD}: {seen.queued} queued, {seen.dropped[0]} dropped, "
            f"handle_close after {took:.2f} s, 0 left queued"
        )
    finally:
        sock.close()


async def test_the_outbox_bound_holds_for_senders_in_threads() -> None:
    outbox = Outbox(capacity=100)

    def flood() -> list[bool]:
        return [outbox.put(Interim({"jsonrpc": "2.0", "method": "n"})) for _ in range(10_000)]

    sent = await asyncio.to_thread(flood)
    await asyncio.sleep(0.05)  # the handed-over events land on the loop
    assert (sent.count(True), len(outbox), outbox.dropped) == (100, 100, 9_900)
    server_request = Interim({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create"})
    assert outbox.put(server_request) and outbox.put(Answer({"jsonrpc": "2.0", "id": 1}))
    outbox.clear()
    assert len(outbox) == 0


BODY_TIMEOUT_S: Final = 1.0


@pytest.fixture
def body_port() -> Iterator[int]:
    router = mcp_router(
        server_name="slow-body",
        server_version="1",
        tools=[(Flood, Seen())],
        secret_key=SECRET,
        body_timeout_s=BODY_TIMEOUT_S,
    )
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    live = LiveServers()
    try:
        yield live.start(app).port
    finally:
        live.stop_all()


def test_a_body_sent_at_10_bytes_a_second_gets_408(body_port: int) -> None:
    request = call_bytes(body_port, "flood")
    head, body = request.split(b"\r\n\r\n", 1)
    with socket.create_connection(("127.0.0.1", body_port), timeout=10) as sock:
        sock.sendall(head + b"\r\n\r\n")
        start = time.monotonic()
        answer, sent = b"", 0
        sock.setblocking(False)
        closed = False
        while time.monotonic() - start < 10 * BODY_TIMEOUT_S:  # a hang guard
            time.sleep(0.1)  # 10 bytes a second, longer than the guard: a per-byte idle
            # timer would never fire, only the deadline on the whole body answers 408
            try:  # read first: a byte sent after the server closed is answered with a reset
                chunk = sock.recv(65536)
            except BlockingIOError:
                chunk = None
            except ConnectionResetError:
                break  # reset after its answer (read already, or lost: the asserts say which)
            if chunk == b"":
                break  # the server closed the connection after its answer
            if chunk:
                answer += chunk
            if sent < len(body) - 1 and not closed:  # never the last byte: never complete
                try:
                    sock.send(body[sent : sent + 1])
                    sent += 1
                except (ConnectionResetError, BrokenPipeError):
                    closed = True  # it closed between our read and this byte: read the rest
        took = time.monotonic() - start
    status, _, rest = answer.partition(b"\r\n")
    headers, _, payload = rest.partition(b"\r\n\r\n")
    assert status == b"HTTP/1.1 408 Request Timeout"
    assert b"connection: close" in headers.lower()
    error = json.loads(payload)
    assert error["jsonrpc"] == "2.0" and error.get("id") is None
    assert error["error"]["code"] == -32600 and "did not arrive" in error["error"]["message"]
    assert took >= BODY_TIMEOUT_S  # no earlier than the deadline
    assert sent < len(body) - 1  # answered while bytes were still coming
    print(f"\n10 bytes/s body: 408 and closed after {took:.2f} s ({sent} bytes sent)")

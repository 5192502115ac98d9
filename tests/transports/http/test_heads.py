"""``transports.http.heads``: ``BoundedHeads`` bounds request heads under uvicorn's httptools.

A real uvicorn server (``http=BoundedHeads``), raw sockets: a head over the bound (one huge
header, many headers, a huge request target, a head that never ends) is answered 431 and the
connection closed before the server reads it all; a head under it is served, on one
keep-alive connection request after request. ``genmcp run`` serves with it (``protocol_for``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from fastapi import FastAPI

from genmcp.transports.http.heads import MAX_HEAD_BYTES, BoundedHeads, protocol_for
from support.server import LiveServer

HUGE = 32 * 1024 * 1024


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    app = FastAPI()

    @app.get("/ok")
    async def ok() -> dict[str, bool]:
        return {"ok": True}

    live = LiveServer(app, http=BoundedHeads)
    live.start()
    try:
        yield live
    finally:
        live.stop()


async def exchange(server: LiveServer, head: bytes, body_size: int = 0) -> tuple[bytes, int]:
    """Send ``head`` (and ``body_size`` bytes of header filler before its end): what came
    back, and how many bytes were sent before the server closed the connection."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    sent = 0
    try:
        writer.write(head)
        sent += len(head)
        chunk = b"a" * 65536
        while sent - len(head) < body_size:
            writer.write(chunk)
            sent += len(chunk)
            await writer.drain()
        if body_size:
            writer.write(b"\r\n\r\n")
        await writer.drain()
    except ConnectionError:  # the server closed: reset or broken pipe
        pass
    try:
        answer = await asyncio.wait_for(reader.read(), 10)
    except ConnectionError:  # reset, or a broken pipe (Python 3.13 reports either)
        answer = b""
    writer.close()
    return answer, sent


async def test_a_32_mib_header_is_431_and_cut_early(server: LiveServer) -> None:
    """Issue 48, finding 6 (before, under httptools: read whole and answered)."""
    head = b"GET /ok HTTP/1.1\r\nhost: x\r\nx-big: "
    answer, sent = await exchange(server, head, HUGE)
    assert answer.startswith(b"HTTP/1.1 431 ") or answer == b""
    assert sent < HUGE  # the server closed long before the end of the header


@pytest.mark.parametrize(
    "head",
    [
        b"GET /ok HTTP/1.1\r\nhost: x\r\n"
        + b"".join(b"x-%d: %s\r\n" % (i, b"v" * 100) for i in range(200))
        + b"\r\n",
        b"GET /ok?" + b"q" * (MAX_HEAD_BYTES + 1) + b" HTTP/1.1\r\nhost: x\r\n\r\n",
        b"GET /ok HTTP/1.1\r\nhost: x\r\nx-big: " + b"v" * (MAX_HEAD_BYTES + 1) + b"\r\n\r\n",
    ],
    ids=["many-headers", "long-target", "one-header-in-one-read"],
)
async def test_a_head_over_the_bound_is_431(server: LiveServer, head: bytes) -> None:
    answer, _ = await exchange(server, head)
    assert answer.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")


async def test_heads_under_the_bound_are_served_on_one_connection(server: LiveServer) -> None:
    filler = b"v" * (MAX_HEAD_BYTES // 2)
    one = b"GET /ok HTTP/1.1\r\nhost: x\r\nx-fill: " + filler + b"\r\n\r\n"
    answer, _ = await exchange(
        server, one * 3 + b"GET /ok HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"
    )
    assert answer.count(b"HTTP/1.1 200 OK\r\n") == 4 and b"431" not in answer


async def test_a_head_over_the_bound_after_a_served_request_in_one_read_is_431(
    server: LiveServer,
) -> None:
    """The second head starts inside the read that ended the first request: it is measured
    too (counting only the reads since a head began would miss it and serve it). The 431
    is written as the parser stops, so it may come before the first request's 200."""
    small = b"GET /ok HTTP/1.1\r\nhost: x\r\n\r\n"
    big = b"GET /ok HTTP/1.1\r\nhost: x\r\nx-big: " + b"v" * (MAX_HEAD_BYTES + 1) + b"\r\n\r\n"
    answer, _ = await exchange(server, small + big)
    assert answer.count(b"HTTP/1.1 431 Request Header Fields Too Large\r\n") == 1
    assert answer.count(b"HTTP/1.1 200 OK\r\n") <= 1  # the small one's, if it came first


def test_genmcp_run_serves_with_the_bounded_protocol() -> None:
    assert protocol_for("httptools") is BoundedHeads
    assert protocol_for("h11") == "h11"  # h11 bounds heads itself

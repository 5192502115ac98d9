"""Refusals sent before the body is read reach clients that write, then read (issue 12, item 7).

Raw sockets against a real uvicorn server: each client style writes a 10 MB request the
endpoint refuses (413 declared or chunked, 415, 405, 403 Origin, 421 Host), then reads. The
status, a JSON-RPC error body and ``Connection: close`` must be there, followed by a clean end
of stream (no reset). Before the fix, uvicorn kept the connection alive and a client reading to
the end waited for the keep-alive timeout; closing without draining resets it. No wall-clock
budget: the servers keep idle connections alive for ``KEEP_ALIVE_S`` and the drain bound is
raised to it, far past the clients' ``READ_TIMEOUT_S``, so a stream that ends at all ended
with the body (or at once), never at either timeout.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any, Final

import pytest
from fastapi import FastAPI

from demo_tools import EchoTool
from genmcp import mcp_router
from genmcp.transports.http import asgi
from support.server import LiveServers

SECRET: Final = "refusal-readable-test-secret-key-0123456789"
BIG: Final = 10 * 1024 * 1024
PIECE: Final = b" " * 65536
KEEP_ALIVE_S: Final = 60
"""The servers' keep-alive timeout, and the drain bound (``asgi.DRAIN_MAX_S``) in each test."""
READ_TIMEOUT_S: Final = 10
"""The clients' socket timeout: a stream held open for ``KEEP_ALIVE_S`` fails the test."""


@pytest.fixture(autouse=True)
def long_drain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asgi, "DRAIN_MAX_S", KEEP_ALIVE_S)  # read at each refusal


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    app = FastAPI()
    router = mcp_router(
        server_name="refusals", server_version="1", tools=[EchoTool], secret_key=SECRET
    )
    app.include_router(router, prefix="/mcp")
    live = LiveServers()
    try:
        yield live.start(app, timeout_keep_alive=KEEP_ALIVE_S).port
    finally:
        live.stop_all()


# Each refusal: (status, method, extra request headers); Host and Content-Type default below.
REFUSALS: Final = {
    "413": (413, "POST", {}),
    "415": (415, "POST", {"Content-Type": "text/plain"}),
    "405": (405, "PUT", {}),
    "403": (403, "POST", {"Origin": "http://evil.example"}),
    "421": (421, "POST", {"Host": "localhost:1.evil.example"}),
}


AUTH_CALLS: list[str] = []


def counting_auth() -> dict[str, str]:
    """An auth dependency that lets everyone in and counts the requests it saw."""
    AUTH_CALLS.append("called")
    return {"principal": "anyone"}


@pytest.fixture(scope="module")
def auth_port() -> Iterator[int]:
    """The same router built with ``auth=``: an API route with dependencies."""
    app = FastAPI()
    router = mcp_router(
        server_name="refusals",
        server_version="1",
        tools=[EchoTool],
        secret_key=SECRET,
        auth=counting_auth,
    )
    app.include_router(router, prefix="/mcp")
    live = LiveServers()
    try:
        yield live.start(app, timeout_keep_alive=KEEP_ALIVE_S).port
    finally:
        live.stop_all()


def head(port: int, method: str, extra: dict[str, str], *, chunked: bool = False) -> bytes:
    headers = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json", **extra}
    if chunked:
        headers["Transfer-Encoding"] = "chunked"
    else:
        headers.setdefault("Content-Length", str(BIG))
    lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    return f"{method} /mcp HTTP/1.1\r\n{lines}\r\n".encode()


def read_to_end(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def sendall_then_read(port: int, method: str, extra: dict[str, str]) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT_S) as sock:
        sock.sendall(head(port, method, extra) + b" " * BIG)
        return read_to_end(sock)


def small_writes_then_read(port: int, method: str, extra: dict[str, str]) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT_S) as sock:
        sock.sendall(head(port, method, extra))
        for _ in range(BIG // 4096):
            sock.sendall(b" " * 4096)
        return read_to_end(sock)


def chunked_then_read(port: int, method: str, extra: dict[str, str]) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT_S) as sock:
        sock.sendall(head(port, method, extra, chunked=True))
        for _ in range(BIG // len(PIECE)):
            sock.sendall(b"%x\r\n" % len(PIECE) + PIECE + b"\r\n")
        sock.sendall(b"0\r\n\r\n")
        return read_to_end(sock)


def half_close_then_read(port: int, method: str, extra: dict[str, str]) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT_S) as sock:
        sock.sendall(head(port, method, extra) + b" " * BIG)
        sock.shutdown(socket.SHUT_WR)
        return read_to_end(sock)


def stdlib_client(port: int, method: str, extra: dict[str, str]) -> bytes:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=READ_TIMEOUT_S)
    try:
        headers = {"Content-Type": "application/json", **extra}
        connection.request(method, "/mcp", body=b" " * BIG, headers=headers)
        response = connection.getresponse()
        lines = "".join(f"{name}: {value}\r\n" for name, value in response.getheaders())
        status = f"HTTP/1.1 {response.status} {response.reason}\r\n"
        return (status + lines + "\r\n").encode() + response.read()
    finally:
        connection.close()


STYLES: Final[dict[str, Callable[[int, str, dict[str, str]], bytes]]] = {
    "sendall": sendall_then_read,
    "small-writes": small_writes_then_read,
    "chunked": chunked_then_read,
    "half-close": half_close_then_read,
    "http.client": stdlib_client,
}


def parse(answer: bytes) -> tuple[int, dict[str, str], Any]:
    header_block, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = header_block.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, json.loads(body)


@pytest.mark.parametrize("refusal", REFUSALS)
@pytest.mark.parametrize("style", STYLES)
def test_a_client_that_writes_10_mb_then_reads_gets_the_refusal(
    port: int, style: str, refusal: str
) -> None:
    status, method, extra = REFUSALS[refusal]
    answer = STYLES[style](port, method, extra)  # a reset raises ConnectionResetError here
    got, headers, body = parse(answer)  # the stream ended: with the body, not at a timeout
    assert got == status
    assert headers["connection"] == "close"
    assert body["jsonrpc"] == "2.0" and body["error"]["code"] == -32600


def test_a_client_that_waits_for_100_continue_is_answered_and_closed_at_once(port: int) -> None:
    request = head(port, "POST", {"Expect": "100-continue", "Content-Type": "text/plain"})
    with socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT_S) as sock:
        sock.sendall(request)
        answer = read_to_end(sock)  # ends although no body came: closed at once
    assert answer.startswith(b"HTTP/1.1 415 ")  # no 100 Continue invites the body


def read_answer(sock: socket.socket) -> bytes:
    """One whole response (head and ``Content-Length`` body), leaving the stream open."""
    data = b""
    while b"\r\n\r\n" not in data or len(data) < answer_size(data):
        chunk = sock.recv(65536)
        assert chunk, f"the stream ended inside the answer: {data!r}"
        data += chunk
    return data


def answer_size(data: bytes) -> int:
    header_block, _, _ = data.partition(b"\r\n\r\n")
    length = [
        line for line in header_block.split(b"\r\n") if line.lower().startswith(b"content-length:")
    ]
    return len(header_block) + 4 + int(length[0].split(b":")[1])


def test_the_answer_goes_out_before_the_drain(port: int) -> None:
    """The client sends the rest of its body only once it holds the whole answer."""
    declared = {"Origin": "null", "Content-Length": "2048"}
    with socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT_S) as sock:
        sock.sendall(head(port, "POST", declared) + b" " * 1024)
        answer = read_answer(sock)  # a refusal that waited for the body would time out here
        sock.sendall(b" " * 1024)  # the body ends: so does the drain, then the stream
        rest = read_to_end(sock)
    assert parse(answer)[0] == 403 and rest == b""


def test_the_drain_is_bounded_in_time(port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that stalls mid-body is let go at ``DRAIN_MAX_S``, not held to a timeout."""
    monkeypatch.setattr(asgi, "DRAIN_MAX_S", 0.5)  # read at each refusal
    started = time.monotonic()
    # a hang guard, not a budget: 0.5 s is waited for, the 5 s default would time out
    with socket.create_connection(("127.0.0.1", port), timeout=4) as sock:
        sock.sendall(head(port, "POST", {"Origin": "null"}) + b" " * 1024)  # then stall
        answer = read_answer(sock)
        rest = read_to_end(sock)  # ends although the body never does: the drain's bound
        closed = time.monotonic() - started
    assert parse(answer)[0] == 403 and rest == b""
    assert closed > 0.4  # the drain did wait (a floor: load only makes it later)


def test_a_body_declared_over_the_drain_bound_is_not_drained(port: int) -> None:
    declared = {"Content-Length": str(asgi.DRAIN_MAX_BYTES + 1)}
    with socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT_S) as sock:
        sock.sendall(head(port, "POST", declared))
        answer = read_to_end(sock)  # ends although no body came: closed at once
    assert parse(answer)[0] == 413


def comparable(answer: bytes) -> tuple[int, dict[str, str], Any]:
    status, headers, body = parse(answer)
    headers.pop("date", None)
    return status, headers, body


@pytest.mark.parametrize("refusal", REFUSALS)
@pytest.mark.parametrize("style", ["sendall", "small-writes"])
def test_refusals_are_the_same_on_a_router_built_with_auth(
    port: int, auth_port: int, style: str, refusal: str
) -> None:
    status, method, extra = REFUSALS[refusal]
    if refusal == "421":  # the test host names the port: keep it equal on both servers
        extra = {"Host": "localhost:1.evil.example"}
    AUTH_CALLS.clear()
    with_auth = STYLES[style](auth_port, method, extra)  # ended with the body, as above
    without = STYLES[style](port, method, extra)
    got, headers, body = comparable(with_auth)
    assert (got, headers, body) == comparable(without)
    assert got == status and headers["connection"] == "close"
    assert body["error"]["code"] == -32600
    if refusal in ("403", "421", "405"):  # refused before any dependency runs
        assert AUTH_CALLS == []

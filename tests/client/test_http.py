"""client.http: the Streamable HTTP wire against small real servers (raw ASGI on uvicorn).

Each server below answers as a scripted peer would: SSE with notifications before the
response, 202, an HTML error page, a stream that breaks before its response (resumed with
`Last-Event-ID` after its `retry`), a stream that never answers (the read timeout).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.abc
import json
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from genmcp.client import ClientError
from genmcp.client.http import HTTPWire
from support.server import LiveServers

Script = Callable[[str, dict[str, str], bytes], Awaitable[tuple[int, str, list[bytes]]]]


def scripted(script: Script) -> Any:
    """An ASGI app answering each request with ``script(method, headers, body)``."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        status, kind, chunks = await script(scope["method"], headers, body)
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", kind.encode())]})  # fmt: skip
        for chunk in chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await asyncio.sleep(0.01)
        await send({"type": "http.response.body", "body": b""})

    return app


def event(message: dict[str, Any], event_id: str | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}data: {json.dumps(message)}\n\n".encode()


REQUEST = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t"}}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


async def test_sse_notifications_come_first_then_the_response(live_server: LiveServers) -> None:
    async def script(method: str, headers: dict[str, str], body: bytes) -> Any:
        progress = {"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": "p", "progress": 1}}  # fmt: skip
        other = {"jsonrpc": "2.0", "id": 99, "result": {}}  # not ours: skipped
        ours = {"jsonrpc": "2.0", "id": json.loads(body)["id"], "result": {"ok": True}}
        return 200, "text/event-stream", [b": keepalive\n\n", event(progress), event(other),
                                          event(ours)]  # fmt: skip

    url = live_server(scripted(script)) + "/mcp"
    seen: list[dict[str, Any]] = []

    async def on_message(message: dict[str, Any]) -> None:
        seen.append(message)

    wire = HTTPWire(url)
    try:
        reply = await wire.send(REQUEST, HEADERS, on_message)
    finally:
        await wire.aclose()

    assert reply.status == 200 and reply.message == {"jsonrpc": "2.0", "id": 7,
                                                     "result": {"ok": True}}  # fmt: skip
    assert [m["method"] for m in seen] == ["notifications/progress"]


async def test_202_a_page_that_is_not_mcp_and_a_stream_without_a_response(
    live_server: LiveServers,
) -> None:
    async def script(method: str, headers: dict[str, str], body: bytes) -> Any:
        sent = json.loads(body)
        if "id" not in sent:
            return 202, "text/plain", []
        if sent["id"] == 1:
            return 404, "text/html", [b"<h1>Not Found</h1>"]
        return 200, "text/event-stream", [b": nothing\n\n"]

    url = live_server(scripted(script)) + "/mcp"
    wire = HTTPWire(url)
    try:
        accepted = await wire.send({"jsonrpc": "2.0", "method": "notifications/x"}, HEADERS)
        with pytest.raises(ClientError) as page:
            await wire.send({**REQUEST, "id": 1}, HEADERS)
        with pytest.raises(ClientError, match="ended its stream without a response"):
            await wire.send({**REQUEST, "id": 2}, HEADERS)
    finally:
        await wire.aclose()

    assert accepted.status == 202 and accepted.message is None
    assert page.value.status == 404
    assert str(page.value) == f"{url} answered HTTP 404 Not Found, not MCP: <h1>Not Found</h1>"


async def test_a_broken_2025_stream_is_resumed_after_its_retry(live_server: LiveServers) -> None:
    resumed: list[tuple[str | None, float]] = []
    broke_at: list[float] = []

    async def script(method: str, headers: dict[str, str], body: bytes) -> Any:
        if method == "POST":
            broke_at.append(time.monotonic())
            return 200, "text/event-stream", [b"id: e-1\nretry: 300\ndata: \n\n"]
        resumed.append((headers.get("last-event-id"), time.monotonic()))
        answer = {"jsonrpc": "2.0", "id": 7, "result": {"resumed": True}}
        return 200, "text/event-stream", [event(answer, "e-2")]

    url = live_server(scripted(script)) + "/mcp"
    wire = HTTPWire(url)
    try:
        reply = await wire.send(REQUEST, HEADERS, resume={"mcp-session-id": "s"})
    finally:
        await wire.aclose()

    assert reply.message is not None and reply.message["result"] == {"resumed": True}
    [(last_id, when)] = resumed
    assert last_id == "e-1" and when - broke_at[0] >= 0.25


async def test_a_server_that_never_answers_is_a_timeout(live_server: LiveServers) -> None:
    async def script(method: str, headers: dict[str, str], body: bytes) -> Any:
        await asyncio.sleep(1)
        return 200, "application/json", [b"{}"]

    url = live_server(scripted(script)) + "/mcp"
    wire = HTTPWire(url, timeout=0.3)
    try:
        with pytest.raises(ClientError, match=r"no answer from .* within 0.3 s"):
            await wire.send(REQUEST, HEADERS)
    finally:
        await wire.aclose()


class ImportAttempts(importlib.abc.MetaPathFinder):
    """Records the modules this thread tries to import that are not in ``sys.modules``."""

    def __init__(self) -> None:
        self.thread, self.names = threading.get_ident(), list[str]()

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        if threading.get_ident() == self.thread:
            self.names.append(fullname)


async def test_a_pooled_request_tries_no_import(live_server: LiveServers) -> None:
    # httpcore asks `import sniffio` for every lock, event and shield of every request; a
    # failed import scans sys.path each time (a proxied call cost 4 ms of CPU, not 0.3)
    async def script(method: str, headers: dict[str, str], body: bytes) -> Any:
        ours = {"jsonrpc": "2.0", "id": json.loads(body)["id"], "result": {}}
        return 200, "application/json", [json.dumps(ours).encode()]

    wire = HTTPWire(live_server(scripted(script)) + "/mcp")
    attempts = ImportAttempts()
    try:
        await wire.send(REQUEST, HEADERS)  # the first: its imports are allowed
        sys.meta_path.insert(0, attempts)
        for _ in range(3):
            await wire.send(REQUEST, HEADERS)
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(attempts)
        await wire.aclose()

    assert attempts.names == []

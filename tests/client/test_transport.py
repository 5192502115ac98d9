"""client.transport: the own pool's HTTP/1.1 transport against real servers (uvicorn, and raw
asyncio servers for what uvicorn never sends): keep-alive, streaming, early close, idle
connections the server dropped, bodies without a length, answers that are not HTTP."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest

from genmcp.client import Client, ClientError
from genmcp.client.transport import PlainTransport
from support.server import LiveServers

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def peers(seen: list[int], chunks: list[bytes] | None = None) -> Any:
    """An ASGI app noting each request's client port; it answers ``chunks`` (streamed, no
    length: chunked) or one JSON body."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        seen.append(scope["client"][1])
        while (await receive()).get("more_body"):
            pass
        head = [(b"content-type", b"text/plain" if chunks else b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": head})
        for chunk in chunks or [b'{"ok": true}']:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    return app


async def fetch(pool: httpx.AsyncClient, url: str) -> bytes:
    response = await pool.post(url, content=b"{}")
    assert response.status_code == 200
    return response.content


async def test_requests_share_one_connection_and_stream_chunked_bodies(
    live_server: LiveServers,
) -> None:
    seen: list[int] = []
    url = live_server(peers(seen, [b"one ", b"two ", b"three"])) + "/"
    pool = httpx.AsyncClient(transport=PlainTransport())
    try:
        bodies = [await fetch(pool, url) for _ in range(5)]
    finally:
        await pool.aclose()

    assert bodies == [b"one two three"] * 5
    assert len(seen) == 5 and len(set(seen)) == 1  # keep-alive: one TCP connection


async def test_a_connection_the_server_dropped_while_idle_is_replaced(
    live_server: LiveServers,
) -> None:
    seen: list[int] = []
    url = live_server(peers(seen), timeout_keep_alive=1) + "/"
    pool = httpx.AsyncClient(transport=PlainTransport())
    try:
        first = await fetch(pool, url)
        await asyncio.sleep(1.6)  # uvicorn closes the idle connection after 1 s
        second = await fetch(pool, url)
    finally:
        await pool.aclose()

    assert first == second == b'{"ok": true}'
    assert len(set(seen)) == 2


async def test_closing_a_response_early_closes_its_connection(live_server: LiveServers) -> None:
    disconnected = asyncio.Event()
    loop = asyncio.get_running_loop()

    async def endless(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await receive()
        head = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": head})
        await send({"type": "http.response.body", "body": b"data: 1\n\n", "more_body": True})
        while (await receive())["type"] != "http.disconnect":
            pass
        loop.call_soon_threadsafe(disconnected.set)

    url = live_server(endless) + "/"
    transport = PlainTransport()
    pool = httpx.AsyncClient(transport=transport)
    try:
        async with pool.stream("POST", url, content=b"{}") as response:
            async for chunk in response.aiter_raw():
                assert chunk == b"data: 1\n\n"
                break
        await asyncio.wait_for(disconnected.wait(), 5)  # the server learns: the cancel signal
        assert not any(transport._idle.values())  # not pooled
    finally:
        await pool.aclose()


async def raw_server(handler: Handler) -> AsyncIterator[str]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.close()
        await server.wait_closed()


async def answering(raw: bytes) -> AsyncIterator[str]:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(raw)
        await writer.drain()
        writer.close()

    async for url in raw_server(handler):
        yield url


async def test_a_body_without_length_ends_with_the_connection() -> None:
    async for url in answering(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end"):
        pool = httpx.AsyncClient(transport=PlainTransport())
        try:
            assert await fetch(pool, url) == b"until the end"
        finally:
            await pool.aclose()


async def test_an_answer_that_is_not_http_is_a_protocol_error() -> None:
    async for url in answering(b"SSH-2.0-OpenSSH_9.2\r\n\r\n"):
        pool = httpx.AsyncClient(transport=PlainTransport())
        try:
            with pytest.raises(httpx.RemoteProtocolError):
                await pool.post(url, content=b"{}")
        finally:
            await pool.aclose()


async def test_the_client_names_the_url_when_nothing_listens() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    async for url in raw_server(handler):
        closed = url  # the port is free again once the server is gone
    client = Client(closed + "mcp", protocol="2026-07-28")
    try:
        with pytest.raises(ClientError, match="connection refused"):
            await client.call_tool("add", {"a": 1, "b": 2})
    finally:
        await client.aclose()


async def test_a_client_call_goes_through_the_own_transport(live_server: LiveServers) -> None:
    seen: list[int] = []

    async def mcp(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        seen.append(scope["client"][1])
        body = json.loads((await receive())["body"])
        answer = {"jsonrpc": "2.0", "id": body["id"], "result": {"content": []}}
        head = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": head})
        await send({"type": "http.response.body", "body": json.dumps(answer).encode()})

    client = Client(live_server(mcp) + "/mcp", protocol="2026-07-28")
    try:
        assert isinstance(client.connection.wire.http._transport, PlainTransport)  # type: ignore[union-attr]
        for _ in range(3):
            assert await client.call_tool("t") == {"content": []}
    finally:
        await client.aclose()
    assert len(seen) == 3 and len(set(seen)) == 1


async def test_requests_past_the_limit_wait_for_a_free_connection(
    live_server: LiveServers,
) -> None:
    busy = most = 0
    lock = threading.Lock()

    async def slow(scope: Any, receive: Any, send: Any) -> None:
        nonlocal busy, most
        if scope["type"] != "http":
            return
        await receive()
        with lock:
            busy += 1
            most = max(most, busy)
        await asyncio.sleep(0.1)
        with lock:
            busy -= 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    url = live_server(slow) + "/"
    transport = PlainTransport(max_connections=2)
    pool = httpx.AsyncClient(transport=transport)
    try:
        bodies = await asyncio.gather(*(fetch(pool, url) for _ in range(6)))
    finally:
        await pool.aclose()

    assert bodies == [b"ok"] * 6
    assert most == 2

"""Smoke tests for the test helpers in `tests/support/`."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import json
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from support.client import ModernClient, decode_header_value, encode_header_value
from support.ports import listening
from support.redis_server import OwnRedis, require_redis_server
from support.schema import SchemaViolation, require_schema, validate
from support.server import LiveServer, LiveServers
from support.sse import SSEComment, SSEEvent, SSEParser
from support.topology import Nginx, require_nginx

CALL_RESULT = {"resultType": "complete", "content": [{"type": "text", "text": "3"}]}


async def test_live_server_serves_a_real_get(live_server: LiveServers) -> None:
    async def hello(request: Request) -> PlainTextResponse:
        return PlainTextResponse(f"hello {request.client.host if request.client else '?'}")

    base = live_server(Starlette(routes=[Route("/", hello)]))

    async with httpx.AsyncClient() as http:
        response = await http.get(base + "/")

    assert (response.status_code, response.text) == (200, "hello 127.0.0.1")
    assert live_server.last.loop is not asyncio.get_running_loop()
    assert await live_server.last.run_in_loop(asyncio.sleep(0, "on the app loop")) == (
        "on the app loop"
    )


def test_a_server_that_does_not_stop_names_the_task_it_waits_on() -> None:
    # A task that swallows its cancel keeps asyncio.Runner's final cancel of leftover tasks
    # waiting after uvicorn's serve() returned (a teardown that hit pytest-timeout, once).
    released = threading.Event()

    async def stubborn() -> None:
        while not released.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.02)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        asyncio.get_running_loop().create_task(stubborn(), name="stubborn-task")
        yield

    server = LiveServer(Starlette(lifespan=lifespan), shutdown_timeout=1.0)
    server.start()
    try:
        with pytest.raises(RuntimeError) as stopped:
            server.stop()
    finally:
        released.set()  # the task ends; the loop closes
        server.stop()
    message = str(stopped.value)
    assert "did not stop" in message
    assert "stubborn-task" in message and "in stubborn" in message  # the task and its stack
    assert "_cancel_all_tasks" in message  # where the server thread waits
    assert not server.running


def test_validate_rejects_a_bad_call_tool_result() -> None:
    require_schema()
    validate(CALL_RESULT, "CallToolResult")

    with pytest.raises(SchemaViolation, match="content"):
        validate({"resultType": "complete", "content": "3"}, "CallToolResult")


def test_sse_parser_follows_the_event_stream_rules() -> None:
    parser = SSEParser()
    chunks = [
        b": keep\r",
        b"\n\r\ndata: a\r\ndata:b\n",
        b"id: 7\nevent: x\n\nretry: 5\n\ndata: cut",
    ]

    items = [item for chunk in chunks for item in parser.feed(chunk)] + parser.close()

    assert items == [
        SSEComment("keep"),
        SSEEvent("a\nb", event="x", id="7"),
        SSEEvent("", retry=5),
    ]


def test_header_values_use_base64_only_when_needed() -> None:
    assert encode_header_value("add") == "add"
    assert encode_header_value(True) == "true"
    for value in ["café", " lead", "tab\t", "=?base64?Zm9v?="]:
        encoded = encode_header_value(value)
        assert encoded.startswith("=?base64?") and decode_header_value(encoded) == value


def sse_tool_app(seen: list[Request]) -> Starlette:
    async def mcp(request: Request) -> Response:
        seen.append(request)
        body = await request.json()
        progress = {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": body["params"]["_meta"]["progressToken"], "progress": 1},
        }
        response = {"jsonrpc": "2.0", "id": body["id"], "result": CALL_RESULT}

        async def events() -> AsyncIterator[str]:
            yield ": ping\n\n"
            yield f"event: message\ndata: {json.dumps(progress)}\n\n"
            yield f"data: {json.dumps(response)}\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    return Starlette(routes=[Route("/mcp", mcp, methods=["POST"])])


async def test_modern_client_sends_modern_requests_and_reads_sse(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    seen: list[Request] = []
    client = modern_client(live_server(sse_tool_app(seen)))

    reply = await client.request("tools/call", {"name": "añadir"}, id="c1", progress_token=9)

    headers = seen[0].headers
    assert headers["mcp-protocol-version"] == "2026-07-28"
    assert headers["mcp-method"] == "tools/call"
    assert decode_header_value(headers["mcp-name"]) == "añadir" != headers["mcp-name"]
    assert "text/event-stream" in headers["accept"]
    assert reply.is_sse and reply.comments == ["ping"]
    assert [n["method"] for n in reply.notifications] == ["notifications/progress"]
    assert reply.response == {"jsonrpc": "2.0", "id": "c1", "result": CALL_RESULT}


def endless_app(on_close: Callable[[], object]) -> Starlette:
    async def mcp(request: Request) -> Response:
        async def events() -> AsyncIterator[str]:
            try:
                while True:
                    yield ": tick\n\n"
                    await asyncio.sleep(0.01)
            finally:
                on_close()

        return StreamingResponse(events(), media_type="text/event-stream")

    return Starlette(routes=[Route("/mcp", mcp, methods=["POST"])])


async def test_leaving_a_stream_closes_the_connection(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    closed, loop = asyncio.Event(), asyncio.get_running_loop()
    client = modern_client(live_server(endless_app(lambda: loop.call_soon_threadsafe(closed.set))))

    async with client.stream("tools/list") as exchange:
        first = await anext(exchange.items())

    assert first == SSEComment("tick")
    await asyncio.wait_for(closed.wait(), 5)


def test_the_nginx_port_cannot_be_taken_before_nginx_serves_it() -> None:
    """A port picked free and given to nginx only at its start could be taken meanwhile by
    another server (a parallel worker's uvicorn or Redis): nginx then failed to bind, or the
    test talked to that server. Forced here: another listener tries the port between the pick
    and the start; nginx then serves on the socket held for it."""
    nginx = Nginx(require_nginx(), [9])  # nothing there: nginx answers 502 itself
    try:
        with socket.socket() as other:
            other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            with pytest.raises(OSError) as taken:
                other.bind(("127.0.0.1", nginx.port))
                other.listen()
        assert taken.value.errno == errno.EADDRINUSE
        nginx.start()
        with httpx.Client(trust_env=False) as http:
            reply = http.get(nginx.url)
        log = (nginx.dir / "error.log").read_text()
    finally:
        nginx.stop()
    assert reply.headers["server"].startswith("nginx")
    assert "using inherited sockets" in log


def test_own_redis_takes_another_port_when_its_port_was_taken() -> None:
    """redis-server binds the port it is given itself: picked free, it can be taken by another
    server first (a parallel worker's). Forced here: a first start then takes another port
    (before: it waited on the squatter and failed, or served another test's Redis)."""
    redis = OwnRedis(require_redis_server())
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", redis.port))
        squatter.listen()  # accepts, never answers
        taken = redis.port
        try:
            redis.start()
            ours = redis.answers() and redis.port != taken
        finally:
            redis.close()
    assert ours


def test_a_live_server_serves_the_socket_held_for_it(live_server: LiveServers) -> None:
    """An app that names its own URL needs its port before it serves: held (listening) from
    the pick, another server cannot take it meanwhile, as it could a port picked free."""
    held = listening(0)
    with socket.socket() as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        with pytest.raises(OSError) as taken:
            other.bind(held.getsockname())
            other.listen()
    assert taken.value.errno == errno.EADDRINUSE
    base = live_server(Starlette(routes=[Route("/", lambda request: PlainTextResponse("ours"))]),
                       sock=held)  # fmt: skip
    with httpx.Client(trust_env=False) as http:
        assert http.get(base + "/").text == "ours"
    assert base == f"http://127.0.0.1:{held.getsockname()[1]}"


def test_a_connection_arriving_as_the_server_stops_is_not_left_to_the_gc(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cause of an "unclosed socket" error in a later test (tests/compose/test_remote.py,
    1 run in about 15 under load): a client connected as uvicorn's shutdown began, asyncio
    accepted it in the loop turn that closed the server, and the transport it then built
    failed (CPython 3.11: ``Server._attach`` asserts the server is open) and was left, with
    its socket, to the garbage collector. Forced here: the connection arrives, is accepted,
    then the shutdown closes the server before its transport is built."""
    server = LiveServer(Starlette())
    server.start()
    shutdown = server.server.shutdown
    late: list[socket.socket] = []

    async def late_client(sockets: list[socket.socket] | None = None) -> None:
        late.append(socket.create_connection(("127.0.0.1", server.port)))
        await asyncio.sleep(0)
        await asyncio.sleep(0)  # accepted (if the server still accepts); its transport not built
        await shutdown(sockets)

    monkeypatch.setattr(server.server, "shutdown", late_client)
    server.stop()
    for sock in late:
        sock.close()
    left: list[str] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda raised: left.append(str(raised.object)))
    gc.collect()
    assert left == []

"""A real server stopped (SIGTERM) while calls stream: a call that ends within the drain
(``drain_s``) answers by itself, a longer one gets the shutdown error; new connections are
refused from the signal on; an open 2025 GET stream and a POST stream both end with their
final events (genmcp's own watch of uvicorn's exit, ``fastapi.compat.server_exit``)."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from genmcp.client import Client, ClientError
from support.client import ModernClient
from support.sse import SSEComment, SSEEvent, SSEParser

pytestmark = pytest.mark.long  # servers SIGTERMed mid-stream, about 7 s (make test-long)

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SUPPORT = Path(__file__).resolve().parents[2] / "support"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def launch(port: int, app: str) -> subprocess.Popen[str]:
    app_dir = EXAMPLES if app == "streaming:app" else SUPPORT
    return subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--app-dir", str(app_dir), app,
         "--host", "127.0.0.1", "--port", str(port), "--timeout-graceful-shutdown", "10"],
        text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


async def start(port: int, app: str = "streaming:app") -> subprocess.Popen[str]:
    process = launch(port, app)
    deadline = time.monotonic() + 20
    while True:
        try:
            async with Client(f"http://127.0.0.1:{port}/mcp", timeout=2) as probe:
                await probe.list_tools()
            return process
        except ClientError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise AssertionError(f"never served: {process.communicate()}") from None
            await asyncio.sleep(0.05)


async def test_sigterm_lets_a_streaming_call_in_flight_finish_and_refuses_new_connections() -> (
    None
):
    port = free_port()
    process = await start(port)  # drain_s: the default, 30 s
    try:
        async with ModernClient(f"http://127.0.0.1:{port}") as client:
            async with client.stream(
                "tools/call", {"name": "slow_report", "arguments": {"seconds": 2}}
            ) as exchange:
                assert exchange.reply.is_sse
                await asyncio.sleep(0.3)  # the call is working
                process.send_signal(signal.SIGTERM)
                await asyncio.sleep(0.3)
                with pytest.raises(ClientError):  # a new connection: uvicorn stopped accepting
                    async with Client(f"http://127.0.0.1:{port}/mcp", timeout=2) as late:
                        await late.list_tools()
                reply = await asyncio.wait_for(exchange.drain(), 10)
        assert reply.error is None, reply.error
        assert reply.result["content"][0]["text"] == "report ready"  # its own answer
        _out, err = process.communicate(timeout=15)
        assert process.returncode in (0, -signal.SIGTERM)
        assert "Traceback" not in err
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


async def test_a_streaming_call_longer_than_the_drain_gets_the_shutdown_error() -> None:
    port = free_port()
    process = await start(port, "drain_app:app")  # drain_s=1.0
    try:
        async with ModernClient(f"http://127.0.0.1:{port}") as client:
            async with client.stream(
                "tools/call", {"name": "watch_orders", "arguments": {"count": 5}}
            ) as exchange:
                assert exchange.reply.is_sse
                await asyncio.sleep(0.3)  # the watcher subscribed and waits for orders
                process.send_signal(signal.SIGTERM)
                started = time.monotonic()
                # a hang guard (10x the drain), no budget (issue 45): the orders never come,
                # so only the end of the drain answers, with the shutdown error; uvicorn's own
                # graceful limit (10 s) would cut the stream without it
                reply = await asyncio.wait_for(exchange.drain(), 10)
                took = time.monotonic() - started
        assert reply.error["code"] == -32000
        assert "shutting down" in reply.error["message"]
        assert took > 0.9  # not before the drain (1 s) ended
        _out, err = process.communicate(timeout=15)
        assert process.returncode in (0, -signal.SIGTERM)  # uvicorn re-raises the signal
        assert "ASGI callable returned without completing response" not in err
        assert "Traceback" not in err
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


async def test_a_stream_that_opens_after_the_signal_does_not_cut_the_drain_of_the_others() -> (
    None
):
    # the rolling restart's lost calls: a stream joining the shutdown after SIGTERM used to
    # tell every stream again, which a draining stream reads as its drain running out
    port = free_port()
    process = await start(port, "drain_app:late_app")  # drain_s: the default, 30 s
    try:
        async with ModernClient(f"http://127.0.0.1:{port}") as client:

            async def answer(name: str, arguments: dict[str, float]) -> Any:
                async with client.stream(
                    "tools/call", {"name": name, "arguments": arguments}
                ) as exchange:
                    return await exchange.drain()

            early = asyncio.create_task(answer("slow_report", {"seconds": 1.5}))
            late = asyncio.create_task(answer("late_stream", {"delay": 0.8, "seconds": 0.3}))
            await asyncio.sleep(0.3)  # both calls work; only the first one's stream is open
            process.send_signal(signal.SIGTERM)  # the late one opens its stream after it
            first, second = await asyncio.wait_for(asyncio.gather(early, late), 10)
        assert first.error is None, first.error  # its own answer, not the shutdown error
        assert first.result["content"][0]["text"] == "report ready"
        assert second.error is None, second.error
        assert second.result["content"][0]["text"] == "late report ready"
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


LEGACY = "2025-11-25"


async def _legacy_session(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    """Open a 2025-11-25 session; the headers of every later request in it."""
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip
    accept = {"accept": "application/json, text/event-stream"}
    reply = await http.post(url, json=init, headers=accept)
    assert reply.status_code == 200, reply.text
    headers = {**accept, "mcp-protocol-version": LEGACY,
               "mcp-session-id": reply.headers["mcp-session-id"]}  # fmt: skip
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post(url, json=note, headers=headers)).status_code == 202
    return headers


async def _read_to_end(response: httpx.Response, seen: list[SSEEvent | SSEComment]) -> None:
    """Read an SSE body to its end (a cut connection raises)."""
    parser = SSEParser()
    async for chunk in response.aiter_bytes():
        seen += parser.feed(chunk)


async def test_sigterm_ends_an_open_get_stream_and_a_post_stream_with_their_final_events() -> None:
    port = free_port()
    process = await start(port, "drain_app:app")  # drain_s=1.0, graceful shutdown 10 s
    url = f"http://127.0.0.1:{port}/mcp"
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "watch_orders", "arguments": {"count": 5}}}  # fmt: skip
    got: list[SSEEvent | SSEComment] = []
    posted: list[SSEEvent | SSEComment] = []
    try:
        async with httpx.AsyncClient(timeout=15) as http:
            headers = await _legacy_session(http, url)
            async with (
                http.stream("GET", url, headers=headers) as get,
                http.stream("POST", url, json=call, headers=headers) as post,
            ):
                assert get.status_code == post.status_code == 200
                assert post.headers["content-type"].startswith("text/event-stream")
                await asyncio.sleep(0.3)  # both streams open, the watcher waits for orders
                process.send_signal(signal.SIGTERM)
                await asyncio.wait_for(  # a hang guard, not a budget: both end by themselves
                    asyncio.gather(_read_to_end(get, got), _read_to_end(post, posted)), 9
                )
        # the GET stream ended cleanly (no cut body), carrying nothing but its priming
        assert all(type(item) is SSEComment or not item.data for item in got), got
        answers = [json.loads(e.data) for e in posted if type(e) is SSEEvent and e.data]
        assert [a.get("id") for a in answers if "method" not in a] == [7]  # the last event
        assert answers[-1]["error"]["code"] == -32000
        assert "shutting down" in answers[-1]["error"]["message"]
        _out, err = process.communicate(timeout=15)
        assert process.returncode in (0, -signal.SIGTERM)
        assert "Traceback" not in err
        assert "Cancel 2 running task(s)" not in err  # nothing left for the timeout to cut
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()

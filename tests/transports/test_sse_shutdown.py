"""A real server stopped (SIGTERM) while calls stream: each client gets a last answer."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from genmcp.client import Client, ClientError
from support.client import ModernClient

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def launch(port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--app-dir", str(EXAMPLES), "streaming:app",
         "--host", "127.0.0.1", "--port", str(port), "--timeout-graceful-shutdown", "5"],
        text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


async def start(port: int) -> subprocess.Popen[str]:
    process = launch(port)
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


async def test_sigterm_answers_every_open_stream_with_a_shutdown_error() -> None:
    port = free_port()
    process = await start(port)
    try:
        async with ModernClient(f"http://127.0.0.1:{port}") as client:
            async with client.stream(
                "tools/call", {"name": "watch_orders", "arguments": {"count": 5}}
            ) as exchange:
                assert exchange.reply.is_sse
                await asyncio.sleep(0.3)  # the watcher subscribed and waits for orders
                process.send_signal(signal.SIGTERM)
                started = time.monotonic()
                reply = await asyncio.wait_for(exchange.drain(), 10)
                took = time.monotonic() - started
        assert reply.error["code"] == -32000
        assert "shutting down" in reply.error["message"]
        assert took < 3.0
        _out, err = process.communicate(timeout=15)
        assert process.returncode in (0, -signal.SIGTERM)  # uvicorn re-raises the signal
        assert "ASGI callable returned without completing response" not in err
        assert "Traceback" not in err
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()

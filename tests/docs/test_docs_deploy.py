"""docs/guides/deployment.md stays true: its uvicorn command parses, and its nginx config,
as shown, fronts two real servers with a call's progress passing through unbuffered.

The nginx block is written into a config of the test's own (a temporary prefix, no daemon;
only the upstream's server lines and the listen port are changed to loopback ports) and
started with Debian's nginx; skipped without nginx, a failure under `CI`.
"""

from __future__ import annotations

import asyncio
import http.client
import importlib
import json
import re
import select
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI

from genmcp import Tool, mcp_router
from support.redis_server import free_port
from support.server import LiveServers
from support.sse import SSEEvent, SSEParser
from support.topology import NGINX_MAIN, Nginx, require_nginx, wait_port

PAGE: Final = Path(__file__).resolve().parents[2] / "docs" / "guides" / "deployment.md"
HOLD_S: Final = 0.5
PAUSE_S: Final = 1.0
"""How long the refusal test's clients wait for early answers before they send the bodies."""
CONNECTIONS: Final = 16
"""Clients in the refusal test (with their upstream connections, under the 64 nginx allows)."""


def shown(language: str) -> str:
    found = re.findall(rf"^```{language}\n(.*?)^```", PAGE.read_text(), re.S | re.M)
    assert found, f"deployment.md shows no {language or 'plain'} block"
    return str(found[0])


def test_the_uvicorn_command_parses() -> None:
    argv = shlex.split(shown(""))
    assert argv[0] == "uvicorn"
    command = importlib.import_module("uvicorn.main").main  # the click command, not uvicorn.main()
    context = command.make_context("uvicorn", argv[1:])
    assert (context.params["app"], context.params["app_dir"]) == ("app:app", "examples")
    assert (PAGE.parents[2] / "examples" / "app.py").is_file()
    protocol = importlib.import_module("uvicorn.importer").import_from_string(
        context.params["http"]
    )
    assert protocol is importlib.import_module("genmcp.transports.http.heads").BoundedHeads


class Slow(Tool, name="slow", description="Reports progress, then holds the call a while."):
    async def call(self, request: Any, channel: Any, arg: Any) -> str:
        channel.send_progress(1, total=2)
        await asyncio.sleep(HOLD_S)
        return "done"


@pytest.fixture
def nginx(live_server: LiveServers) -> Iterator[str]:
    binary = require_nginx()
    app = FastAPI()
    app.include_router(mcp_router(server_name="s", server_version="1", tools=[Slow]),
                       prefix="/mcp")  # fmt: skip
    ports = [int(live_server(app).rsplit(":", 1)[1]) for _ in range(2)]
    config, replaced = re.subn(r"^( *)server 127\.0\.0\.1:\d+;\n(?: *server 127\.0\.0\.1:\d+;\n)*",
                               lambda m: "".join(f"{m[1]}server 127.0.0.1:{p};\n" for p in ports),
                               shown("nginx"), flags=re.M)  # fmt: skip
    port = free_port()
    config, listens = re.subn(r"listen \d+;", f"listen 127.0.0.1:{port};", config)
    assert (replaced, listens) == (1, 1), "the shown config lost its upstream or listen line"
    folder = Path(tempfile.mkdtemp(prefix="genmcp-docs-nginx-"))
    (folder / "nginx.conf").write_text(NGINX_MAIN.format(dir=folder, connections=64, http=config))
    process = subprocess.Popen([binary, "-p", str(folder), "-c", str(folder / "nginx.conf"),
                                "-e", str(folder / "error.log")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        wait_port(port, process)  # type: ignore[arg-type]
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(5)
        assert process.stderr is not None
        process.stderr.close()
        shutil.rmtree(folder, ignore_errors=True)


async def test_the_nginx_config_streams_progress_before_the_result(nginx: str) -> None:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": "p",
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "slow", "_meta": meta},
    }
    headers = {"Accept": "application/json, text/event-stream", "Mcp-Method": "tools/call",
               "Mcp-Name": "slow", "MCP-Protocol-Version": "2026-07-28"}  # fmt: skip
    arrivals: list[tuple[float, str]] = []
    async with httpx.AsyncClient(timeout=10) as client:
        for _ in range(2):  # round-robin: both upstreams answer through the shown config
            started, parser = time.monotonic(), SSEParser()
            async with client.stream("POST", nginx, json=body, headers=headers) as response:
                assert response.status_code == 200
                async for chunk in response.aiter_bytes():
                    at = time.monotonic() - started
                    arrivals.extend((at, event.data) for event in parser.feed(chunk)
                                    if isinstance(event, SSEEvent) and event.data)  # fmt: skip
    assert len(arrivals) == 4
    for (progress_at, progress), (result_at, result) in (arrivals[:2], arrivals[2:]):
        assert '"notifications/progress"' in progress and '"done"' in result
        assert result_at - progress_at > HOLD_S * 0.8  # not held back by a proxy buffer


def test_a_refused_request_keeps_the_clients_connection_to_nginx(nginx: str) -> None:
    """genmcp refuses a request (here 415) before reading its body, with ``Connection: close``.
    Passing the body on unbuffered, nginx answered the client ``Connection: keep-alive`` but,
    when that answer came before it had read the whole body, often closed the connection
    after it: the client's next request on it was lost (httpx: "Server disconnected without
    sending a response"). Here each of ``CONNECTIONS`` clients sends its body only after its
    refusal had ``PAUSE_S`` to come, then a second request on the same connection; buffered
    (the shown block), nginx answers after the body and every connection serves both."""
    host, port = nginx.split("/")[2].split(":")
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
    head = (f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: text/plain\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()  # fmt: skip
    socks = [socket.create_connection((host, int(port)), timeout=30) for _ in range(CONNECTIONS)]
    try:
        for sock in socks:
            sock.sendall(head)
        waiting, until = list(socks), time.monotonic() + PAUSE_S
        while waiting and time.monotonic() < until:  # unbuffered, the refusals come now
            ready = select.select(waiting, [], [], until - time.monotonic())[0]
            waiting = [sock for sock in waiting if sock not in ready]
        answers = [[refused(sock, body)] for sock in socks]
        for sock, seen in zip(socks, answers, strict=True):
            seen.append(refused(sock, head + body))
    finally:
        for sock in socks:
            sock.close()
    lost = [seen for seen in answers if seen != [(415, "keep-alive")] * 2]
    assert lost == [], f"{len(lost)} of {CONNECTIONS} connections: {lost[:3]}"


def refused(sock: socket.socket, data: bytes) -> tuple[int, str | None] | str:
    """Send ``data`` and read the answer: its status and ``Connection``, or how it failed."""
    try:
        sock.sendall(data)
        reply = http.client.HTTPResponse(sock)
        reply.begin()
        assert json.loads(reply.read())["error"]["code"] < 0
    except OSError as exc:  # RemoteDisconnected, a reset, a broken pipe
        return type(exc).__name__
    return reply.status, reply.getheader("connection")


def directives(config: str) -> set[str]:
    """The directive lines of an nginx config (trimmed), blocks and comments aside."""
    lines = (line.strip() for line in config.splitlines())
    return {line for line in lines if line.endswith(";")}


def test_the_behind_nginx_block_is_what_the_tests_run() -> None:
    """The scale-out tests run behind `support.topology.Nginx`: its config has every proxy
    directive of "Behind nginx" (request buffering on among them)."""
    shown_proxy = {line for line in directives(shown("nginx")) if line.startswith("proxy_")}
    kit = Nginx(require_nginx(), [8001, 8002])
    try:
        written = directives((kit.dir / "nginx.conf").read_text())
    finally:
        kit.stop()
    assert "proxy_request_buffering on;" in shown_proxy and shown_proxy - written == set()


def test_the_lossless_block_is_what_make_rolling_runs() -> None:
    """"Rolling restarts" shows the settings `make rolling` (CI) restarts three processes
    behind: the kit's nginx config with those knobs has every directive the block shows."""
    blocks = re.findall(r"^```nginx\n(.*?)^```", PAGE.read_text(), re.S | re.M)
    assert len(blocks) == 2, "deployment.md shows two nginx blocks"
    shown_lossless = directives(blocks[1])
    makefile = (PAGE.parents[2] / "Makefile").read_text()
    rolling = makefile[makefile.index("rolling: $(DEV_STAMP)") :].split("\n\n")[0]
    assert '--keepalive 32 --request-buffering' in rolling
    assert '--next-upstream "error non_idempotent"' in rolling
    kit = Nginx(require_nginx(), [8001, 8002, 8003], keepalive=32, keepalive_timeout_s=4,
                next_upstream="error non_idempotent", request_buffering=True)  # fmt: skip
    try:
        written = directives((kit.dir / "nginx.conf").read_text())
    finally:
        kit.stop()
    missing = {line for line in shown_lossless - written if not line.startswith("server ")}
    assert missing == set()

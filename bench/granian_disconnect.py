"""A client leaving a streamed ``tools/call`` midway, under uvicorn and under Granian (issue 50).

Serves a Suite whose ``ticker`` tool sends a progress notification every 50 ms for 10 s and
counts, in the server process, the calls that started, were cancelled and finished (read at
``GET /_state``). For each server and each era (a 2026-07-28 stateless call, a 2025-11-25
session's call), the client opens the stream, reads the first progress event, closes its
socket, then polls ``/_state`` until the call was cancelled (or 5 s pass): what counts is
that the server stops the tool once its reader is gone, instead of running it to its end.

Granian is not a genmcp dependency: install it apart and name the directory, e.g.

    python -m pip install --target /tmp/granian-pkgs granian
    GRANIAN_PATH=/tmp/granian-pkgs .venv/bin/python bench/granian_disconnect.py
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STATE = {"started": 0, "cancelled": 0, "finished": 0}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "d", "version": "1"},
}


def _app() -> Any:
    from fastapi import FastAPI

    from genmcp import Result, Tool, call_tool_result, mcp_router

    class Ticker(Tool, name="ticker", description="Ticks.", input_schema={"type": "object"}):
        async def call(self, request: Any, channel: Any, arg: Any) -> Result:
            STATE["started"] += 1
            try:
                for i in range(200):
                    channel.send_progress(i + 1, total=200)
                    await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                STATE["cancelled"] += 1
                raise
            STATE["finished"] += 1
            return Result(call_tool_result(text="done"))

    app = FastAPI()
    app.include_router(
        mcp_router(server_name="d", server_version="1", tools=[Ticker]), prefix="/mcp"
    )

    @app.get("/_state")
    async def state() -> dict[str, int]:
        return STATE

    return app


if os.environ.get("DISCONNECT_APP") == "1":
    app = _app()


async def _post(
    port: int, body: dict[str, Any], headers: dict[str, str]
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, dict[str, str]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        f"accept: application/json, text/event-stream\r\ncontent-length: {len(data)}\r\n"
    )
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    writer.write(head.encode() + data)
    await reader.readline()
    fields: dict[str, str] = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        fields[name.strip().lower()] = value.strip()
    return reader, writer, fields


async def _session(port: int) -> str:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "d", "version": "1"},
        },
    }
    _, writer, fields = await _post(port, init, {})
    writer.close()
    sid = fields["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    _, writer, _ = await _post(
        port, note, {"mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
    )
    writer.close()
    return sid


def _state(port: int) -> dict[str, int]:
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"GET /_state HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    body = data.partition(b"\r\n\r\n")[2]
    if b"\r\n" in body.strip():  # chunked
        body = body.split(b"\r\n")[1]
    return dict(json.loads(body))


async def _leave(port: int, era: str) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "ticker", "arguments": {}, "_meta": {"progressToken": "p"}}
    headers = {"mcp-protocol-version": era}
    if era == "2026-07-28":
        params["_meta"] |= META
        headers |= {"mcp-method": "tools/call", "mcp-name": "ticker"}
    else:
        headers["mcp-session-id"] = await _session(port)
    before = _state(port)
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
    reader, writer, fields = await _post(port, call, headers)
    first = b""
    while b"notifications/progress" not in first:
        first += await reader.read(4096)
    writer.transport.abort()  # the client leaves mid-stream
    left = time.monotonic()
    while time.monotonic() - left < 5:
        now = _state(port)
        if now["cancelled"] > before["cancelled"]:
            break
        await asyncio.sleep(0.02)
    return {
        "era": era,
        "content_type": fields.get("content-type"),
        "cancelled": now["cancelled"] - before["cancelled"],
        "finished": now["finished"] - before["finished"],
        "stopped_after_s": round(time.monotonic() - left, 3),
    }


def _serve(name: str, port: int) -> subprocess.Popen[bytes]:
    py = sys.executable
    target = "granian_disconnect:app"
    argv = {
        "uvicorn": [
            py,
            "-m",
            "uvicorn",
            "--app-dir",
            str(ROOT / "bench"),
            target,
            "--port",
            str(port),
            "--http",
            "httptools",
            "--loop",
            "uvloop",
            "--no-access-log",
            "--log-level",
            "warning",
        ],
        "granian": [
            py,
            "-m",
            "granian",
            "--interface",
            "asgi",
            "--loop",
            "uvloop",
            "--port",
            str(port),
            "--no-ws",
            "--log-level",
            "warning",
            "--working-dir",
            str(ROOT / "bench"),
            target,
        ],
    }[name]
    path = f"{ROOT}/src:{os.environ.get('GRANIAN_PATH', '')}"
    env = {**os.environ, "PYTHONPATH": path, "DISCONNECT_APP": "1", "GENMCP_SECRET_KEY": "d" * 48}
    proc = subprocess.Popen(argv, env=env)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"{name} did not start")


def main() -> None:
    for n, name in enumerate(("uvicorn", "granian")):
        port = 18461 + n
        proc = _serve(name, port)
        try:
            for era in ("2026-07-28", "2025-11-25"):
                print(json.dumps({"server": name, **asyncio.run(_leave(port, era))}), flush=True)
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()

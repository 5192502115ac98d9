"""In-process cost of one modern tools/call: bench/servers/genmcp_server.py driven as an ASGI
app with no sockets, so the figure is genmcp's own CPU (routing, parsing, validation, the Call,
the relay, encoding) without the HTTP server's.

    .venv/bin/python bench/inproc.py                  # this checkout, min of 7 runs
    .venv/bin/python bench/inproc.py --tree /tmp/base  # another checkout's src/ (a worktree)
    .venv/bin/python bench/inproc.py --profile         # cProfile's top costs

Prints microseconds of process CPU per request (min and median over the runs). Compare trees
in one sitting, alternating runs (`--tree` twice in a shell loop), on an idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
MODERN = "2026-07-28"

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]


def load_app(tree: str | None) -> ASGIApp:
    if tree:
        sys.path.insert(0, os.path.join(os.path.abspath(tree), "src"))
    sys.path.insert(0, os.path.join(HERE, "servers"))
    spec = importlib.util.spec_from_file_location("genmcp_server", os.path.join(HERE, "servers",
                                                                              "genmcp_server.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.app  # type: ignore[no-any-return]


def request_bytes() -> tuple[bytes, list[tuple[bytes, bytes]]]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "genmcp-bench", "version": "1.0"},
    }
    body = json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": meta},
    }).encode()
    headers = [
        (b"host", b"127.0.0.1:8000"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"mcp-protocol-version", MODERN.encode()),
        (b"mcp-method", b"tools/call"),
        (b"mcp-name", b"add"),
        (b"content-length", str(len(body)).encode()),
    ]
    return body, headers


async def one_call(app: ASGIApp, body: bytes, headers: list[tuple[bytes, bytes]]) -> bytes:
    scope: Scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/mcp", "raw_path": b"/mcp", "root_path": "",
        "query_string": b"", "headers": headers, "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000), "state": {},
    }
    sent = False
    out: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            out.append(message.get("body", b""))

    await app(scope, receive, send)
    return b"".join(out)


async def run(app: ASGIApp, n: int) -> float:
    body, headers = request_bytes()
    answer = await one_call(app, body, headers)
    if b'"text":"3"' not in answer.replace(b" ", b""):
        raise SystemExit(f"unexpected answer: {answer[:300]!r}")
    for _ in range(200):  # warm-up
        await one_call(app, body, headers)
    start = time.process_time()
    for _ in range(n):
        await one_call(app, body, headers)
    return (time.process_time() - start) / n * 1e6


async def lifespan(app: ASGIApp, main: Callable[[], Awaitable[None]]) -> None:
    """Run main inside the app's lifespan (the router starts its Suite there)."""
    events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    done: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await events.put({"type": "lifespan.startup"})

    async def send(message: dict[str, Any]) -> None:
        await done.put(message)

    task = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"},
                                    "state": {}}, events.get, send))
    started = await done.get()
    if started["type"] != "lifespan.startup.complete":
        raise SystemExit(f"startup failed: {started}")
    try:
        await main()
    finally:
        await events.put({"type": "lifespan.shutdown"})
        await done.get()
        await task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", help="a checkout whose src/ to import genmcp from")
    parser.add_argument("-n", type=int, default=3000, help="calls per run")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="print cProfile's top costs")
    args = parser.parse_args()
    app = load_app(args.tree)
    results: list[float] = []

    async def body() -> None:
        if args.profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
            await run(app, args.n)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
            return
        for _ in range(args.runs):
            results.append(await run(app, args.n))

    asyncio.run(lifespan(app, body))
    if results:
        print(f"tools/call in-process: {min(results):.1f} us/req min, "
              f"{statistics.median(results):.1f} median of {len(results)} runs "
              f"({args.tree or 'this checkout'})")


if __name__ == "__main__":
    main()

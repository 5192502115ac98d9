"""In-process cost of one tools/call: bench/servers/genmcp_server.py driven as an ASGI app with
no sockets, so the figure is genmcp's own CPU (routing, parsing, validation, the Call, the
relay, encoding) without the HTTP server's. ``--legacy``: the same call in a 2025-11-25
session (initialize first, then ``Mcp-Session-Id`` on every call).

    .venv/bin/python bench/inproc.py                  # this checkout, min of 7 runs
    .venv/bin/python bench/inproc.py --tree /tmp/base  # another checkout's src/ (a worktree)
    .venv/bin/python bench/inproc.py --profile         # cProfile's top costs
    SORT=cumulative TOP=60 .venv/bin/python bench/inproc.py --profile  # another order, more rows
    .venv/bin/python bench/inproc.py --legacy          # in a 2025-11-25 session
    .venv/bin/python bench/inproc.py --uvloop          # on uvloop, as the bench servers run
    .venv/bin/python bench/inproc.py --mrtr            # a retry carrying requestState
    .venv/bin/python bench/inproc.py --depends agen    # an @tool function with a Depends

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


def load_app(tree: str | None, mrtr: bool = False, depends: str | None = None) -> ASGIApp:
    if tree:
        sys.path.insert(0, os.path.join(os.path.abspath(tree), "src"))
    if mrtr:
        return mrtr_app()
    if depends:
        return depends_app(depends)
    sys.path.insert(0, os.path.join(HERE, "servers"))
    spec = importlib.util.spec_from_file_location("genmcp_server", os.path.join(HERE, "servers",
                                                                              "genmcp_server.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.app  # type: ignore[no-any-return]


LEGACY = "2025-11-25"


def mrtr_app() -> ASGIApp:
    """One tool that asks again on every retry: each call opens a requestState and seals one."""
    from fastapi import FastAPI

    from genmcp import InputRequired, Tool, elicit_request, mcp_router

    form = {"type": "object", "properties": {"ok": {"type": "boolean"}}}

    numbers = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}

    class Confirm(Tool, name="add", description="Asks again and again.", input_schema=numbers):
        async def call(self, request: Any, channel: Any, arg: Any) -> Any:
            state = request.request_state or {"round": 0, "note": "kept by the tool " * 4}
            state = {**state, "round": state["round"] + 1}
            return InputRequired({"ok": elicit_request("Sure?", form)}, state=state)

    os.environ.setdefault("GENMCP_SECRET_KEY", "bench-" + "k" * 40)
    app = FastAPI()
    app.include_router(
        mcp_router(server_name="bench", server_version="1", tools=[Confirm]), prefix="/mcp"
    )
    return app  # type: ignore[return-value]


DEPENDS = ("none", "fn", "afn", "gen", "agen")
"""``--depends``: an ``@tool`` function ``add(a, b) -> str`` without a dependency (none), or with
one ``Depends`` on a ``def`` (fn), an ``async def`` (afn), a generator (gen) or an async
generator (agen)."""


def depends_app(kind: str) -> ASGIApp:
    """genmcp_server.py's ``add`` as an ``@tool`` function, with the dependency ``kind``."""
    from fastapi import Depends, FastAPI

    from genmcp import mcp_router, tool

    def fn() -> int:
        return 0

    async def afn() -> int:
        return 0

    def gen() -> Any:
        yield 0

    async def agen() -> Any:
        yield 0

    if kind == "none":
        async def add(a: int, b: int) -> str:
            """Adds two numbers."""
            return str(a + b)
    else:
        dependency = {"fn": fn, "afn": afn, "gen": gen, "agen": agen}[kind]

        async def add(a: int, b: int, zero: int = Depends(dependency)) -> str:  # type: ignore[misc]
            """Adds two numbers."""
            return str(a + b + zero)

    os.environ.setdefault("GENMCP_SECRET_KEY", "bench-" + "k" * 40)
    app = FastAPI()
    app.include_router(
        mcp_router(server_name="bench", server_version="1", tools=[tool(add)]), prefix="/mcp"
    )
    return app  # type: ignore[return-value]


def mrtr_request(state: str) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """A tools/call retry carrying ``state`` and the answer it asked for."""
    body, headers = request_bytes()
    message = json.loads(body)
    meta = message["params"]["_meta"]
    meta["io.modelcontextprotocol/clientCapabilities"] = {"elicitation": {}}
    message["params"].update(
        requestState=state, inputResponses={"ok": {"action": "accept", "content": {"ok": True}}}
    )
    body = json.dumps(message).encode()
    return body, headers_of(body, *headers[3:-1])


def headers_of(body: bytes, *extra: tuple[bytes, bytes]) -> list[tuple[bytes, bytes]]:
    return [
        (b"host", b"127.0.0.1:8000"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        *extra,
        (b"content-length", str(len(body)).encode()),
    ]


async def legacy_request(app: ASGIApp) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """Open a 2025-11-25 session (initialize, initialized); the tools/call to repeat in it."""
    init = json.dumps({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {},
                   "clientInfo": {"name": "genmcp-bench", "version": "1.0"}},
    }).encode()
    sent: list[dict[str, Any]] = []
    await one_call(app, init, headers_of(init), sent)
    start = next(m for m in sent if m["type"] == "http.response.start")
    session = dict(start["headers"])[b"mcp-session-id"]
    extra = ((b"mcp-protocol-version", LEGACY.encode()), (b"mcp-session-id", session))
    note = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
    await one_call(app, note, headers_of(note, *extra))
    body = json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
    }).encode()
    return body, headers_of(body, *extra)


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
    extra = ((b"mcp-protocol-version", MODERN.encode()), (b"mcp-method", b"tools/call"),
             (b"mcp-name", b"add"))
    return body, headers_of(body, *extra)


async def one_call(
    app: ASGIApp,
    body: bytes,
    headers: list[tuple[bytes, bytes]],
    record: list[dict[str, Any]] | None = None,
) -> bytes:
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
        if record is not None:
            record.append(message)
        if message["type"] == "http.response.body":
            out.append(message.get("body", b""))

    await app(scope, receive, send)
    return b"".join(out)


async def run(app: ASGIApp, n: int, legacy: bool = False, mrtr: bool = False) -> float:
    body, headers = await legacy_request(app) if legacy else request_bytes()
    if mrtr:
        body = body.replace(b'Capabilities": {}', b'Capabilities": {"elicitation": {}}')
        headers = headers_of(body, *headers[3:-1])
    answer = await one_call(app, body, headers)
    if mrtr:
        state = json.loads(answer)["result"]["requestState"]
        body, headers = mrtr_request(state)
        answer = await one_call(app, body, headers)
        if b'"round":' in answer or b"input_required" not in answer:
            raise SystemExit(f"unexpected answer: {answer[:300]!r}")
    elif b'"text":"3"' not in answer.replace(b" ", b""):
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
    parser.add_argument("--legacy", action="store_true", help="in a 2025-11-25 session")
    parser.add_argument("--mrtr", action="store_true",
                        help="each call a retry that opens a requestState and seals a new one")
    parser.add_argument("--uvloop", action="store_true",
                        help="on uvloop's event loop, as the bench servers run (needs uvloop)")
    parser.add_argument("--depends", choices=DEPENDS,
                        help="serve add as an @tool function with this dependency (see DEPENDS)")
    args = parser.parse_args()
    if args.uvloop:
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    app = load_app(args.tree, args.mrtr, args.depends)
    results: list[float] = []

    async def body() -> None:
        if args.profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
            await run(app, args.n, args.legacy, args.mrtr)
            profiler.disable()
            pstats.Stats(profiler).sort_stats(os.environ.get("SORT", "tottime")).print_stats(int(os.environ.get("TOP", "30")))
            return
        for _ in range(args.runs):
            results.append(await run(app, args.n, args.legacy, args.mrtr))

    asyncio.run(lifespan(app, body))
    if results:
        era = "legacy" if args.legacy else "modern"
        print(f"{era} tools/call in-process: {min(results):.1f} us/req min, "
              f"{statistics.median(results):.1f} median of {len(results)} runs "
              f"({args.tree or 'this checkout'})")


if __name__ == "__main__":
    main()

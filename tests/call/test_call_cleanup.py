"""A finished call leaves nothing behind: no reference cycle for the garbage collector to
find (a cycle per call is a collection every few hundred calls on a busy server), and no
entry in the legacy cancel table once it is done. Driven over ASGI in-process, so no other
library's objects are alive between the calls."""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI

from genmcp import Result, Tool, call_tool_result, mcp_router
from genmcp.fastapi.router import MCPRouter

SCHEMA = {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]}
MODERN, LEGACY = "2026-07-28", "2025-11-25"


class Echo(Tool, name="echo", description="Returns a.", input_schema=SCHEMA):
    async def call(self, request, channel, arg):  # type: ignore[no-untyped-def]
        return Result(call_tool_result(text=str(request.arguments["a"])))


async def post(
    app: FastAPI, message: dict[str, Any], **headers: str
) -> tuple[int, dict[str, str], bytes]:
    body = json.dumps(message).encode()
    sent: list[dict[str, Any]] = []
    given = False

    async def receive() -> dict[str, Any]:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)

    raw = [
        (b"host", b"127.0.0.1"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        *((k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()),
    ]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "root_path": "",
        "query_string": b"",
        "headers": raw,
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 80),
        "state": {},
    }
    await app(scope, receive, send)
    start = sent[0]
    reply = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], reply, b"".join(e.get("body", b"") for e in sent[1:])


@contextmanager
def garbage() -> Iterator[list[Any]]:
    """Collect first, then keep what the collector finds at the end instead of freeing it."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    found: list[Any] = []
    try:
        yield found
        gc.collect()
        found.extend(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def without_other_loops(found: list[Any], ours: asyncio.AbstractEventLoop) -> list[Any]:
    """``found`` less what hangs off another event loop: a server thread of an earlier test
    in this worker can drop its (uvloop) loop while we count, and that is not a call's."""
    ids = {id(o) for o in found}
    dropped: set[int] = set()
    stack = [o for o in found if isinstance(o, asyncio.AbstractEventLoop) and o is not ours]
    while stack:
        obj = stack.pop()
        if id(obj) not in dropped:
            dropped.add(id(obj))
            stack.extend(r for r in gc.get_referents(obj) if id(r) in ids)
    return [o for o in found if id(o) not in dropped]


def call(n: int, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "echo", "arguments": {"a": n}}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}


async def test_finished_calls_leave_no_cycle_and_no_tracked_call() -> None:
    app = FastAPI()
    router = mcp_router(server_name="clean", server_version="1", tools=[Echo])
    assert isinstance(router, MCPRouter)
    app.include_router(router, prefix="/mcp")
    legacy = router.endpoint.legacy
    assert legacy is not None
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    }
    modern = {"mcp_protocol_version": MODERN, "mcp_method": "tools/call", "mcp_name": "echo"}
    async with app.router.lifespan_context(app):
        init = {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        _, opened, _ = await post(
            app, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}
        )
        session = {"mcp_session_id": opened["mcp-session-id"], "mcp_protocol_version": LEGACY}
        await post(app, {"jsonrpc": "2.0", "method": "notifications/initialized"}, **session)
        for n in range(20):  # warm: first-use imports and caches are not per-call garbage
            await post(app, call(n), **session)
            await post(app, call(n, meta), **modern)
        await asyncio.sleep(0)
        with garbage() as found:
            for n in range(50):
                status, _, body = await post(app, call(n), **session)
                assert status == 200 and json.loads(body)["result"]["content"][0]["text"] == str(n)
                assert legacy.signals.in_flight == 0  # done in the step that answered it
                status, _, body = await post(app, call(n, meta), **modern)
                assert status == 200 and json.loads(body)["result"]["content"][0]["text"] == str(n)
            for _ in range(3):  # the calls' tasks end a turn after their answers
                await asyncio.sleep(0)
        found = without_other_loops(found, asyncio.get_running_loop())
        kinds = sorted({type(o).__qualname__ for o in found})
        assert found == [], f"{len(found)} objects in cycles after 100 calls: {kinds[:20]}"

"""A misbehaving MCP server (raw ASGI): what a client must survive, for its bounds' tests.

`Rogue(tools_list=..., call=...)` answers `server/discover` as a 2026-07-28 server would,
then `tools/list` and `tools/call` with one of the behaviours below (the default: one tool,
one honest page; a call answered "ok"). Bodies are generated as they are sent, never held
whole, and `Rogue` counts what it did: `pages` served, `sent` body bytes handed to the server.

* `endless_pages`: a fresh `nextCursor` on every page, one tool each;
* `huge_json(n)`: a JSON response of `n` bytes, in 64 KiB chunks (no Content-Length);
* `huge_event(n)`: an SSE stream whose one event is `n` bytes long and never ends;
* `wrong_id`: a JSON response carrying another request's id;
* `drip`: a JSON response one byte every 50 ms, never finished;
* `chatter`: an SSE stream of progress notifications, forever, no response.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

LATEST: Final = "2026-07-28"
CHUNK: Final = 64 * 1024
Behaviour = Callable[["Rogue", dict[str, Any]], AsyncIterator[bytes]]


def _message(request: dict[str, Any], result: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "result": result}).encode()


async def honest_list(rogue: Rogue, request: dict[str, Any]) -> AsyncIterator[bytes]:
    tool = {"name": "big", "inputSchema": {"type": "object"}}
    yield _message(request, {"resultType": "complete", "tools": [tool]})


async def honest_call(rogue: Rogue, request: dict[str, Any]) -> AsyncIterator[bytes]:
    content = [{"type": "text", "text": "ok"}]
    yield _message(request, {"resultType": "complete", "content": content})


async def endless_pages(rogue: Rogue, request: dict[str, Any]) -> AsyncIterator[bytes]:
    rogue.pages += 1
    tool = {"name": f"t{rogue.pages}", "inputSchema": {"type": "object"}}
    result = {"resultType": "complete", "tools": [tool], "nextCursor": f"c{rogue.pages}"}
    yield _message(request, result)


def huge_json(size: int) -> Behaviour:
    async def behaviour(rogue: Rogue, request: dict[str, Any]) -> AsyncIterator[bytes]:
        head = _message(request, {"content": [{"type": "text", "text": "@"}]})
        before, after = head.split(b"@")
        yield before
        for _ in range(math.ceil(size / CHUNK)):
            yield b"x" * CHUNK
        yield after

    return behaviour


def huge_event(size: int) -> Behaviour:
    async def behaviour(rogue: Rogue, request: dict[str, Any]) -> AsyncIterator[bytes]:
        yield b'data: {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "'
        for _ in range(math.ceil(size / CHUNK)):
            yield b"x" * CHUNK
        await asyncio.Event().wait()  # never ends the event

    return behaviour


async def wrong_id(rogue: Rogue, request: dict[str, Any]) -> AsyncIterator[bytes]:
    content = [{"type": "text", "text": "meant for another request"}]
    other = {**request, "id": 1000 + int(request.get("id") or 0)}
    yield _message(other, {"resultType": "complete", "content": content})


async def drip(rogue: Rogue, request: dict[str, Any]) -> AsyncIterator[bytes]:
    yield b'{"jsonrpc": "2.0", "id": ' + json.dumps(request.get("id")).encode() + b', "result": '
    while True:
        await asyncio.sleep(0.05)
        yield b" "


async def chatter(rogue: Rogue, request: dict[str, Any]) -> AsyncIterator[bytes]:
    token = ((request.get("params") or {}).get("_meta") or {}).get("progressToken", "p")
    n = 0
    while True:
        n += 1
        note = {"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": token, "progress": n}}  # fmt: skip
        yield f"data: {json.dumps(note)}\n\n".encode()
        await asyncio.sleep(0.02)


SSE: Final = {huge_event.__name__, chatter.__name__}


class Rogue:
    """The ASGI app (see the module docstring)."""

    def __init__(
        self, *, tools_list: Behaviour = honest_list, call: Behaviour = honest_call
    ) -> None:
        self.tools_list, self.call = tools_list, call
        self.pages = 0
        self.sent = 0
        self.methods: list[str] = []

    def _behaviour(self, method: Any) -> Behaviour:
        if method == "server/discover":
            return discover
        if method == "tools/list":
            return self.tools_list
        return self.call if method == "tools/call" else unknown

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        request = json.loads(body) if scope["method"] == "POST" else {}
        self.methods.append(str(request.get("method")))
        if "id" not in request:  # a notification (202), or a GET (none offered)
            status = 202 if request else 405
            await send({"type": "http.response.start", "status": status, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        behaviour = self._behaviour(request.get("method"))
        name = getattr(behaviour, "__qualname__", "").split(".")[0]
        kind = b"text/event-stream" if name in SSE else b"application/json"
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", kind)]})  # fmt: skip

        async def pump() -> None:
            async for chunk in behaviour(self, request):
                self.sent += len(chunk)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})

        async def gone() -> None:  # the client closed: stop an endless behaviour
            while (await receive())["type"] != "http.disconnect":
                pass

        tasks = {asyncio.ensure_future(pump()), asyncio.ensure_future(gone())}
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def discover(rogue: Rogue, request: dict[str, Any]) -> AsyncIterator[bytes]:
    result = {
        "resultType": "complete",
        "supportedVersions": [LATEST],
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "rogue", "version": "1"},
    }
    yield _message(request, result)


async def unknown(rogue: Rogue, request: dict[str, Any]) -> AsyncIterator[bytes]:
    error = {"code": -32601, "message": "Method not found"}
    yield json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "error": error}).encode()

"""The bare-route handler shared by starlette_server.py and fastapi_server.py.

No MCP machinery: parse the JSON-RPC body, dispatch on method and tool name with plain dict
lookups, answer with the bytes the SDK's MCPServer sends for the same call (result shape,
resultType and server _meta on 2026-07-28, the plain result on legacy). No validation, no
pydantic, no session table: this is the ceiling a framework on this stack can approach.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid

import _common as C

SERVER_INFO = {"name": "bench-raw", "version": "1.0"}
MODERN_META = {"io.modelcontextprotocol/serverInfo": SERVER_INFO}
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _tool(name: str, description: str, schema: dict) -> dict:
    return {"name": name, "description": description, "inputSchema": schema}


TOOLS = [
    _tool("add", "Adds two numbers.", C.ADD_SCHEMA),
    _tool("echo", "Returns the text.", C.ECHO_SCHEMA),
    _tool("progress", "Sends progress notifications, then returns.", C.PROGRESS_SCHEMA),
    _tool("create_order", C.ORDER_DESCRIPTION, C.ORDER_SCHEMA),
] + [_tool(C.extra_name(i), C.extra_description(i), C.EXTRA_SCHEMA) for i in range(C.EXTRA_TOOLS)]
TOOL_NAMES = frozenset(t["name"] for t in TOOLS)


def text_result(text: str, modern: bool) -> dict:
    result = {
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "structuredContent": {"result": text},
    }
    if modern:
        result["resultType"] = "complete"
        result["_meta"] = MODERN_META
    return result


CACHED_LIST = os.environ.get("CACHED_LIST") == "1"
_LIST_PAGES: dict[bool, tuple[bytes, bytes]] = {}


def _cached_list(rid, modern: bool) -> bytes:
    """The tools/list response with its result encoded once: only the id is new."""
    if modern not in _LIST_PAGES:
        result = {"tools": TOOLS, "resultType": "complete"} if modern else {"tools": TOOLS}
        head, _, tail = response(0, result).partition(b'"id":0')
        _LIST_PAGES[modern] = (head + b'"id":', tail)
    head, tail = _LIST_PAGES[modern]
    return b"".join((head, json.dumps(rid).encode(), tail))


def response(rid, result: dict) -> bytes:
    return _encode({"jsonrpc": "2.0", "id": rid, "result": result}).encode()


def error(rid, code: int, message: str) -> bytes:
    return _encode(
        {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}
    ).encode()


def sse(msg: dict) -> bytes:
    return b"event: message\r\ndata: " + _encode(msg).encode() + b"\r\n\r\n"


async def progress_events(rid, token, steps: int, interval: float, modern: bool):
    for i in range(1, steps + 1):
        await asyncio.sleep(interval)
        if token is not None:
            yield sse(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": i, "total": steps},
                }
            )
    yield sse({"jsonrpc": "2.0", "id": rid, "result": text_result("done", modern)})


def handle(body: bytes, protocol_version: str | None):
    """-> (status, body bytes | async iterator of SSE bytes, extra headers)."""
    msg = json.loads(body)
    modern = protocol_version == C.MODERN_VERSION
    if "id" not in msg:
        return 202, b"", None
    rid = msg["id"]
    method = msg.get("method")
    params = msg.get("params") or {}
    if method == "tools/call":
        name = params.get("name")
        args = params.get("arguments") or {}
        if name == "add":
            return 200, response(rid, text_result(str(args["a"] + args["b"]), modern)), None
        if name == "echo":
            return 200, response(rid, text_result(args["text"], modern)), None
        if name == "create_order":
            return 200, response(rid, text_result(C.order_summary(args["items"]), modern)), None
        if name == "progress":
            token = (params.get("_meta") or {}).get("progressToken")
            steps = int(args.get("steps", 10))
            interval = int(args.get("interval_ms", 100)) / 1000
            return 200, progress_events(rid, token, steps, interval, modern), None
        if name in TOOL_NAMES:
            return 200, response(rid, text_result("ok", modern)), None
        return (
            200,
            response(rid, {"content": [{"type": "text", "text": "unknown tool"}], "isError": True}),
            None,
        )
    if method == "tools/list":
        if CACHED_LIST:  # the page encoded once, the id spliced in (the floor of a cached page)
            return 200, _cached_list(rid, modern), None
        result = {"tools": TOOLS, "resultType": "complete"} if modern else {"tools": TOOLS}
        return 200, response(rid, result), None
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion") or "2025-11-25",
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": SERVER_INFO,
        }
        return 200, response(rid, result), {"mcp-session-id": uuid.uuid4().hex}
    if method == "ping":
        return 200, response(rid, {}), None
    return 404, error(rid, -32601, "Method not found"), None

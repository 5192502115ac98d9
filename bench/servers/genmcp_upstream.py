"""The upstream of the proxy bench: genmcp_server.py's app, its HTTP requests counted.

Run: PORT=8110 /tmp/genmcp-bench/venvs/genmcp/bin/python bench/servers/genmcp_upstream.py
MCP at POST /mcp (both eras: 2026-07-28 stateless and 2025 sessions, genmcp's default);
``GET /_count`` answers ``{"http": {"POST": n, ...}, "rpc": {"tools/call": n, ...}}``: the
requests seen since start-up by HTTP method, and the POSTs by JSON-RPC method (read from the
first body chunk), so bench/proxy.py can say how many upstream requests one proxied call
costs and which ones. The counting costs every row alike (it runs under the direct row too).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as C
import genmcp_server

HTTP: Counter[str] = Counter()
RPC: Counter[str] = Counter()
METHOD = re.compile(rb'"method"\s*:\s*"([^"]{1,64})"')


def counted(app: Any) -> Any:
    """``app`` behind a counter of its requests (and the ``/_count`` route)."""

    async def wrapper(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        if scope["path"] == "/_count":
            body = json.dumps({"http": HTTP, "rpc": RPC}).encode()
            head = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 200, "headers": head})
            await send({"type": "http.response.body", "body": body})
            return
        HTTP[scope["method"]] += 1
        if scope["method"] != "POST":
            await app(scope, receive, send)
            return
        first = True

        async def peek() -> dict:
            nonlocal first
            message = await receive()
            if first and message["type"] == "http.request":
                first = False
                found = METHOD.search(message.get("body", b""))
                RPC[found.group(1).decode() if found else "?"] += 1
            return message

        await app(scope, peek, send)

    return wrapper


app = counted(genmcp_server.app)

if __name__ == "__main__":
    C.serve(app)

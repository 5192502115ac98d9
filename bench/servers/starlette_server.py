"""Ceiling: one bare Starlette route answering with the bytes a real MCP server sends.

Run: PORT=8100 /tmp/genmcp-bench/venvs/starlette/bin/python bench/servers/starlette_server.py
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as C
import _raw
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route


async def mcp(request: Request) -> Response:
    status, body, headers = _raw.handle(
        await request.body(), request.headers.get("mcp-protocol-version")
    )
    if isinstance(body, bytes):
        return Response(
            body,
            status_code=status,
            headers=headers,
            media_type="application/json" if body else None,
        )
    return StreamingResponse(body, media_type="text/event-stream")


app = Starlette(routes=[Route("/mcp", mcp, methods=["POST"])])

if __name__ == "__main__":
    C.serve(app)

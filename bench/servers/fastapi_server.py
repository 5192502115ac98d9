"""Bare FastAPI route: the same handler as starlette_server.py, behind an APIRouter endpoint,
so FastAPI's per-endpoint machinery (dependency solving, response handling) is paid.

Run: PORT=8104 /tmp/genmcp-bench/venvs/fastapi/bin/python bench/servers/fastapi_server.py
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as C
import _raw
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response, StreamingResponse

router = APIRouter()


@router.post("/mcp")
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


app = FastAPI()
app.include_router(router)

if __name__ == "__main__":
    C.serve(app)

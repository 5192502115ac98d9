#!/usr/bin/env python3
"""A round-robin HTTP reverse proxy: each request goes to the next backend, not each connection.

For running the conformance suite against several processes of one app, e.g. two
everything servers sharing tasks on Redis (docs/guides/tasks.md)::

    GENMCP_REDIS_URL=redis://127.0.0.1:6379/0 GENMCP_SECRET_KEY=... \\
        .venv/bin/python examples/everything_server.py --port 3101 &
    (same with --port 3102) &
    .venv/bin/python scripts/round_robin_proxy.py --port 3100 3101 3102 &
    URL=http://127.0.0.1:3100/mcp SPECS=2026-07-28 SCENARIOS="tasks-lifecycle ..." \\
        scripts/conformance.sh

Responses stream through (SSE included). Needs httpx, uvicorn and starlette (the dev venv).
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import AsyncIterator

import httpx
import uvicorn
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse

HOP: frozenset[str] = frozenset({"connection", "keep-alive", "transfer-encoding", "host"})


def build(backends: list[int]) -> object:
    targets = itertools.cycle(f"http://127.0.0.1:{port}" for port in backends)
    client = httpx.AsyncClient(timeout=None)

    async def app(scope: dict, receive: object, send: object) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)  # type: ignore[arg-type]
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP]
        url = (
            next(targets)
            + request.url.path
            + (f"?{request.url.query}" if request.url.query else "")
        )
        upstream = await client.send(
            client.build_request(
                request.method, url, headers=headers, content=await request.body()
            ),
            stream=True,
        )

        async def body() -> AsyncIterator[bytes]:
            async for chunk in upstream.aiter_raw():
                yield chunk

        kept = {k: v for k, v in upstream.headers.items() if k.lower() not in HOP}
        response = StreamingResponse(
            body(), status_code=upstream.status_code, headers=kept,
            background=BackgroundTask(upstream.aclose),
        )  # fmt: skip
        await response(scope, receive, send)  # type: ignore[arg-type]

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True, help="port to listen on")
    parser.add_argument("backends", type=int, nargs="+", help="backend ports on 127.0.0.1")
    args = parser.parse_args()
    uvicorn.run(build(args.backends), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()

"""examples/everything_server.py in three uvicorn processes on one Redis, behind nginx; and
the 2026 wire the tests that drive it speak.

``everything_scaled(secret)`` starts the test's own Redis, three processes of the example on
it and nginx in front (round-robin), and yields ``(redis, MCP URL through nginx, each
process's MCP URL)``; everything is stopped after. ``modern`` builds a 2026 request,
``headers`` its HTTP headers, ``collect`` gathers the methods of an open SSE response.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import httpx

from support.legacy_http import ACCEPT
from support.redis_server import OwnRedis, require_redis_server
from support.sse import SSEEvent, SSEParser
from support.topology import Nginx, Processes, require_nginx

__all__ = ["MODERN", "collect", "everything_scaled", "headers", "modern"]

EXAMPLES: Final = Path(__file__).resolve().parents[2] / "examples"
MODERN: Final = "2026-07-28"


@contextlib.contextmanager
def everything_scaled(secret: str) -> Iterator[tuple[OwnRedis, str, list[str]]]:
    """The test's own Redis, the MCP URL through nginx, and each process's own."""
    nginx_binary, redis = require_nginx(), OwnRedis(require_redis_server())
    redis.start()
    env = {"GENMCP_REDIS_URL": redis.url, "GENMCP_SECRET_KEY": secret}
    processes = Processes(3, env, app="everything_server:app", app_dir=EXAMPLES)
    nginx = Nginx(nginx_binary, processes.ports)
    try:
        processes.start()  # each listening (a hang guard of 60 s: a loaded machine is slow)
        nginx.start()
        yield redis, f"{nginx.url}/mcp", [f"{url}/mcp" for url in processes.urls()]
    finally:
        nginx.stop()
        processes.stop()
        redis.close()


def modern(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A 2026 request: ``params`` with the ``_meta`` every request carries."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    }
    body = {"jsonrpc": "2.0", "id": request_id, "method": method}
    return {**body, "params": {**params, "_meta": meta}}


def headers(method: str, name: str | None = None) -> dict[str, str]:
    """The HTTP headers of a 2026 request of ``method`` (``Mcp-Name``: its target)."""
    sent = {"Accept": ACCEPT, "MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    return sent if name is None else {**sent, "Mcp-Name": name}


async def collect(response: httpx.Response, into: list[str]) -> None:
    """Append the method of every message of an open SSE response to ``into``."""
    parser = SSEParser()
    async for chunk in response.aiter_bytes():
        events = parser.feed(chunk)
        into += [json.loads(e.data).get("method", "") for e in events
                 if isinstance(e, SSEEvent) and e.data]  # fmt: skip

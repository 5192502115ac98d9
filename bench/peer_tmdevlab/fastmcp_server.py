"""The peer's Python server (TM Dev Lab v1, python-server/main.py), as they publish it.

Rewritten here from their repository's facts: ``mcp.server.fastmcp.FastMCP`` with
``stateless_http=True``, its streamable HTTP app mounted at ``/`` of a FastAPI app whose
lifespan runs the session manager, the same four tools (plain ``def`` for the CPU and JSON
tools, ``async def`` with a fresh ``httpx.AsyncClient`` per fetch, ``asyncio.sleep`` for the
database), results returned as dicts, one uvicorn worker (their Dockerfile's command). Two knobs,
off unless run.py's fastmcp_shared / fastmcp_quiet rows ask: PEER_SHARED_CLIENT=1 and
PEER_LOG_LEVEL (see below).

Run: uvicorn fastmcp_server:app --port 8202 (from this directory, in setup.sh's venv-fastmcp).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import httpx
from fastapi import FastAPI
from mcp.server.fastmcp import FastMCP

# PEER_LOG_LEVEL: theirs leaves FastMCP's default, INFO, which logs every request through rich
mcp = FastMCP("BenchmarkPythonServer", stateless_http=True,
              log_level=os.environ.get("PEER_LOG_LEVEL", "INFO"))


# PEER_SHARED_CLIENT=1: one httpx client for the process (opened in the lifespan), as Node's
# fetch pools its connections; otherwise a client per call, as the peer's server does (each
# new client loads the CA bundle: about 35 ms of CPU here, the bulk of an iteration's cost).
SHARED: list[httpx.AsyncClient] = []


@asynccontextmanager
async def _client() -> AsyncIterator[httpx.AsyncClient]:
    if SHARED:
        yield SHARED[0]
        return
    async with httpx.AsyncClient(timeout=10.0) as client:
        yield client


@asynccontextmanager
async def shared_client() -> AsyncIterator[None]:
    """Opens the process-wide client when PEER_SHARED_CLIENT=1."""
    if os.environ.get("PEER_SHARED_CLIENT") != "1":
        yield
        return
    async with httpx.AsyncClient(timeout=10.0) as client:
        SHARED.append(client)
        try:
            yield
        finally:
            SHARED.clear()


@mcp.tool()
def calculate_fibonacci(n: int) -> dict:
    """Computes the n-th Fibonacci number recursively (n between 0 and 40)."""

    def fib(x: int) -> int:
        return x if x <= 1 else fib(x - 1) + fib(x - 2)

    if n < 0 or n > 40:
        raise ValueError("n must be between 0 and 40")
    return {"input": n, "result": fib(n), "server_type": "python"}


@mcp.tool()
async def fetch_external_data(endpoint: str) -> dict:
    """GETs the endpoint; reports its status and how long it took."""
    start = time.time()
    async with _client() as client:
        try:
            response = await client.get(endpoint)
        except Exception as exc:
            took = int((time.time() - start) * 1000)
            return {"url": endpoint, "status_code": 0, "response_time_ms": took,
                    "error": str(exc), "server_type": "python"}
    took = int((time.time() - start) * 1000)
    return {"url": endpoint, "status_code": response.status_code, "response_time_ms": took,
            "server_type": "python"}


def _upper(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _upper(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_upper(item) for item in value]
    return value.upper() if isinstance(value, str) else value


@mcp.tool()
def process_json_data(data: dict[str, Any]) -> dict:
    """Upper-cases every string in the object; lists its top-level keys."""
    return {"original_keys": list(data), "transformed_data": _upper(data),
            "server_type": "python"}


@mcp.tool()
async def simulate_database_query(query: str, delay_ms: int = 0) -> dict:
    """Waits delay_ms (0 to 5000) like a database would, then echoes the query."""
    if delay_ms < 0 or delay_ms > 5000:
        raise ValueError("delay_ms must be between 0 and 5000")
    await asyncio.sleep(delay_ms / 1000.0)
    return {"query": query, "delay_ms": delay_ms,
            "timestamp": datetime.utcnow().isoformat(), "server_type": "python"}


@asynccontextmanager
async def lifespan(app: FastAPI):
    async with mcp.session_manager.run(), shared_client():
        yield


app = FastAPI(lifespan=lifespan)
app.mount("/", mcp.streamable_http_app())


@app.get("/health")
async def health() -> dict[str, str]:
    return {"status": "ok", "server_type": "python"}

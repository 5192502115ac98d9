"""The TM Dev Lab v1 workload's four tools, on genmcp, written as a user would.

Same names, arguments, bodies and results as the peer's FastMCP server (fastmcp_server.py):
the two plain ``def`` tools stay plain ``def`` (genmcp runs them in a worker thread), and
``fetch_external_data`` opens an httpx client per call, as theirs does.

Run: uvicorn genmcp_server:app --port 8201 (from this directory, in the venv setup.sh builds).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import httpx
from fastapi import FastAPI

from genmcp import mcp_router, tool

# one fixed signing key for the benchmark process (the session ids are sealed with it)
os.environ.setdefault("GENMCP_SECRET_KEY", "genmcp-bench-not-a-secret-0123456789abcdef0123456789")


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


@tool
def calculate_fibonacci(n: int) -> dict[str, Any]:
    """Computes the n-th Fibonacci number recursively (n between 0 and 40)."""

    def fib(x: int) -> int:
        return x if x <= 1 else fib(x - 1) + fib(x - 2)

    if n < 0 or n > 40:
        raise ValueError("n must be between 0 and 40")
    return {"input": n, "result": fib(n), "server_type": "genmcp"}


@tool
async def fetch_external_data(endpoint: str) -> dict[str, Any]:
    """GETs the endpoint; reports its status and how long it took."""
    start = time.time()
    async with _client() as client:
        try:
            response = await client.get(endpoint)
        except Exception as exc:  # the peer reports any failure in the result
            took = int((time.time() - start) * 1000)
            return {"url": endpoint, "status_code": 0, "response_time_ms": took,
                    "error": str(exc), "server_type": "genmcp"}
    took = int((time.time() - start) * 1000)
    return {"url": endpoint, "status_code": response.status_code, "response_time_ms": took,
            "server_type": "genmcp"}


def _upper(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _upper(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_upper(item) for item in value]
    return value.upper() if isinstance(value, str) else value


@tool
def process_json_data(data: dict[str, Any]) -> dict[str, Any]:
    """Upper-cases every string in the object; lists its top-level keys."""
    return {"original_keys": list(data), "transformed_data": _upper(data),
            "server_type": "genmcp"}


@tool
async def simulate_database_query(query: str, delay_ms: int = 0) -> dict[str, Any]:
    """Waits delay_ms (0 to 5000) like a database would, then echoes the query."""
    if delay_ms < 0 or delay_ms > 5000:
        raise ValueError("delay_ms must be between 0 and 5000")
    await asyncio.sleep(delay_ms / 1000)
    return {"query": query, "delay_ms": delay_ms,
            "timestamp": datetime.now(UTC).isoformat(), "server_type": "genmcp"}




@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    async with shared_client():
        yield


app = FastAPI(lifespan=lifespan)
app.include_router(
    mcp_router(
        server_name="BenchmarkGenmcpServer",
        server_version="1.0.0",
        tools=[calculate_fibonacci, fetch_external_data, process_json_data,
               simulate_database_query],
    ),
    prefix="/mcp",
)


@app.get("/health")
async def health() -> dict[str, str]:
    """The peer's health check."""
    return {"status": "ok", "server_type": "genmcp"}

"""Per-request cost of the middleware chain and of OpenTelemetry on ``tools/call``, same run.

    .venv/bin/python bench/otel_overhead.py [calls] [rounds]

Four Suites serving the same ``add`` tool (tests/demo_tools.py):

- ``bare``: no middleware (``Suite.handle`` goes straight to routing);
- ``3 middlewares``: three pass-through middlewares;
- ``otel api``: ``genmcp.middleware.telemetry.Telemetry`` with the API only (no SDK configured: no-op);
- ``otel sdk``: Telemetry with the SDK: a TracerProvider (BatchSpanProcessor, in-memory
  exporter) and a MeterProvider (in-memory reader).

Two measurements, interleaved in ``rounds`` so drift hits every variant alike:
in-process (``Suite.handle`` plus the relay drain, no HTTP: the chain's own cost, in µs)
and over HTTP (uvicorn on loopback, sequential calls on one keep-alive connection, median).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from demo_tools import make_suite
from genmcp import Suite, mcp_router
from genmcp.call.relay import Relay
from genmcp.middleware import Call, MCPRequest, Next
from genmcp.middleware.telemetry import Telemetry
from genmcp.protocol.jsonrpc import Request
from support.server import LiveServer

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
}


async def passing(request: MCPRequest, call_next: Next) -> Call:
    return await call_next(request)


def suites() -> dict[str, Suite]:
    tracing = TracerProvider()
    tracing.add_span_processor(BatchSpanProcessor(InMemorySpanExporter()))
    meters = MeterProvider(metric_readers=[InMemoryMetricReader()])
    return {
        "bare": make_suite(),
        "3 middlewares": make_suite(middleware=[passing, passing, passing]),
        "otel api": make_suite(middleware=[Telemetry()]),
        "otel sdk": make_suite(
            middleware=[Telemetry(tracer_provider=tracing, meter_provider=meters)]
        ),
    }


async def in_process(suite: Suite, calls: int) -> float:
    """Mean µs per ``tools/call add`` through Suite.handle and the relay."""
    params = {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": META}
    start = time.perf_counter()
    for index in range(calls):
        relay = Relay(await suite.handle(Request(index, "tools/call", params), {}, META))
        async for _ in relay:
            pass
    return (time.perf_counter() - start) / calls * 1e6


def over_http(url: str, calls: int) -> float:
    """Median µs of sequential ``tools/call add`` on one connection."""
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": VERSION,
        "mcp-method": "tools/call",
        "mcp-name": "add",
    }
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": META}}  # fmt: skip
    samples = []
    with httpx.Client(timeout=10) as client:
        for index in range(calls + 20):
            start = time.perf_counter()
            response = client.post(url + "/mcp", json=body, headers=headers)
            elapsed = time.perf_counter() - start
            assert response.status_code == 200, response.text
            if index >= 20:
                samples.append(elapsed * 1e6)
    return statistics.median(samples)


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    served = suites()
    local: dict[str, list[float]] = {name: [] for name in served}
    remote: dict[str, list[float]] = {name: [] for name in served}
    servers = {}
    for name, suite in served.items():
        app = FastAPI()
        app.include_router(mcp_router(suite=suite), prefix="/mcp")
        servers[name] = LiveServer(app)
        servers[name].start()
    try:
        fresh = suites()  # in-process copies: not shared with the servers' loops
        for _ in range(rounds):
            for name in served:
                local[name].append(asyncio.run(in_process(fresh[name], calls)))
                remote[name].append(over_http(servers[name].url, calls // 4))
    finally:
        for server in servers.values():
            server.stop()
    base_local = statistics.median(local["bare"])
    base_remote = statistics.median(remote["bare"])
    print(f"tools/call add, {calls} in-process and {calls // 4} HTTP calls x {rounds} rounds")
    print(
        f"{'variant':<15} {'in-process µs':>14} {'vs bare':>8} {'HTTP median µs':>15} {'vs bare':>8}"
    )
    for name in served:
        mid_local, mid_remote = statistics.median(local[name]), statistics.median(remote[name])
        print(
            f"{name:<15} {mid_local:>14.1f} {(mid_local / base_local - 1) * 100:>+7.1f}%"
            f" {mid_remote:>15.1f} {(mid_remote / base_remote - 1) * 100:>+7.1f}%"
        )


if __name__ == "__main__":
    main()

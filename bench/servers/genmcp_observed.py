"""genmcp's bench server (genmcp_server.py's tools) with a chosen middleware set, for otel_wrk.py.

    VARIANT=bare|three|otel_api|otel_sdk PORT=8107 python bench/servers/genmcp_observed.py

``three``: AccessLog (logger disabled), Timing and a RateLimit too high to refuse;
``otel_api``: genmcp.middleware.telemetry.Telemetry with no SDK configured (no-op spans);
``otel_sdk``: Telemetry with an SDK TracerProvider (BatchSpanProcessor, in-memory exporter)
and MeterProvider (in-memory reader). uvloop and httptools when installed, else asyncio/h11.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("GENMCP_SECRET_KEY", "genmcp-bench-not-a-secret-0123456789abcdef0123456789")
import _common as C
import genmcp_server
from fastapi import FastAPI

from genmcp import AccessLog, Limit, RateLimit, Timing, mcp_router

VARIANT = os.environ.get("VARIANT", "bare")


def chain() -> list:
    if VARIANT == "bare":
        return []
    if VARIANT == "three":
        logging.getLogger("genmcp.access").disabled = True
        return [AccessLog(), Timing(), RateLimit(Limit(1e9, 10**9))]
    from genmcp.middleware.telemetry import Telemetry

    if VARIANT == "otel_api":
        return [Telemetry()]
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    tracing = TracerProvider()
    tracing.add_span_processor(BatchSpanProcessor(InMemorySpanExporter()))
    meters = MeterProvider(metric_readers=[InMemoryMetricReader()])
    return [Telemetry(tracer_provider=tracing, meter_provider=meters)]


app = FastAPI()
app.include_router(
    mcp_router(server_name="bench", server_version="1.0", tools=genmcp_server.TOOLS,
               middleware=chain()),
    prefix="/mcp",
)  # fmt: skip

if __name__ == "__main__":
    import uvicorn

    fast = importlib.util.find_spec("uvloop") is not None
    uvicorn.run(app, host="127.0.0.1", port=C.PORT, loop="uvloop" if fast else "asyncio",
                http="httptools" if importlib.util.find_spec("httptools") else "h11",
                access_log=False, log_level="warning", backlog=4096)  # fmt: skip

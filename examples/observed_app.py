"""An observed MCP server: OpenTelemetry spans and metrics, an access log, timing, a rate limit.

The app sets up the OpenTelemetry SDK itself, from the standard environment variables:

- ``OTEL_TRACES_EXPORTER=console``: each span is printed as JSON on stdout when it ends
  (the SDK's ``ConsoleSpanExporter``); ``OTEL_METRICS_EXPORTER=console`` prints the metrics
  every ``OTEL_METRIC_EXPORT_INTERVAL`` ms (and at exit);
- otherwise (``otlp``, the OpenTelemetry default): OTLP over HTTP to
  ``OTEL_EXPORTER_OTLP_ENDPOINT`` (default ``http://localhost:4318``), which needs
  ``pip install opentelemetry-exporter-otlp-proto-http``; ``none`` exports nothing.
- ``OTEL_SERVICE_NAME`` names the service (default ``observed-app``).

The middleware, outermost first: ``Telemetry`` (a SERVER span per MCP request, the
``mcp.server.operation.duration`` histogram), ``AccessLog`` (one ``genmcp.access`` log line
per request), ``Timing`` (a warning over 1 s), ``RateLimit`` (20 requests/s per principal,
bursts of 40; ``lookup`` 5/s). The ``lookup`` tool makes a span of its own: a child of the
request's span.

Run it::

    OTEL_TRACES_EXPORTER=console uvicorn --app-dir examples observed_app:app
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from fastapi import FastAPI
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    ConsoleMetricExporter,
    MetricExporter,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
    SpanExporter,
)

from genmcp import (
    AccessLog,
    Channel,
    Limit,
    RateLimit,
    Result,
    Timing,
    Tool,
    ToolRequest,
    call_tool_result,
    mcp_router,
)
from genmcp.middleware.telemetry import Telemetry

log = logging.getLogger("observed_app")
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")  # stderr


def _exporters(variable: str) -> set[str]:
    return {name.strip() for name in os.environ.get(variable, "otlp").split(",") if name.strip()}


def _otlp(kind: str) -> Any:
    """The OTLP/HTTP exporter of ``kind`` ("trace" or "metric"), or None when not installed."""
    try:
        if kind == "trace":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            return OTLPSpanExporter()
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

        return OTLPMetricExporter()
    except ImportError:
        log.warning("OTLP export needs: pip install opentelemetry-exporter-otlp-proto-http")
        return None


def setup_telemetry() -> tuple[TracerProvider, MeterProvider]:
    """Configure the global tracer and meter providers from ``OTEL_*`` (module docstring)."""
    resource = Resource.create(
        {"service.name": os.environ.get("OTEL_SERVICE_NAME", "observed-app")}
    )
    tracer_provider = TracerProvider(resource=resource)
    wanted = _exporters("OTEL_TRACES_EXPORTER")
    if "console" in wanted:  # printed as each span ends
        tracer_provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    if "otlp" in wanted:
        span_exporter: SpanExporter | None = _otlp("trace")
        if span_exporter is not None:
            tracer_provider.add_span_processor(BatchSpanProcessor(span_exporter))
    readers = []
    for name in _exporters("OTEL_METRICS_EXPORTER"):
        metric_exporter: MetricExporter | None = (
            ConsoleMetricExporter() if name == "console" else _otlp("metric") if name == "otlp"
            else None
        )  # fmt: skip
        if metric_exporter is not None:
            readers.append(PeriodicExportingMetricReader(metric_exporter))
    meter_provider = MeterProvider(resource=resource, metric_readers=readers)
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(meter_provider)
    return tracer_provider, meter_provider


tracer_provider, meter_provider = setup_telemetry()
tracer = trace.get_tracer("observed_app")


class SimpleText(Tool, name="test_simple_text", description="Returns a simple text response."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="This is a simple text response for testing."))


CITIES = {"paris": "France", "lima": "Peru", "oslo": "Norway"}


class Lookup(
    Tool,
    name="lookup",
    description="The country of a city (a traced lookup).",
    input_schema={
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        city = request.arguments["city"]
        with tracer.start_as_current_span("cities.lookup") as span:  # a child of the MCP span
            span.set_attribute("city", city)
            await asyncio.sleep(0.001)
            country = CITIES.get(city.lower())
        if country is None:
            return Result(call_tool_result(error=f"unknown city {city!r}"))  # error.type
        return Result(call_tool_result(text=country))


class Countdown(
    Tool,
    name="countdown",
    description="Counts down, reporting progress (span events).",
    input_schema={"type": "object", "properties": {"n": {"type": "integer", "maximum": 20}}},
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        n = int(request.arguments.get("n", 3))
        for step in range(n):
            channel.send_progress(step + 1, n, message=f"{n - step}...")
            await asyncio.sleep(0.01)
        return Result(call_tool_result(text="liftoff"))


app = FastAPI(title="observed")
app.include_router(
    mcp_router(
        server_name="observed",
        server_version="1.0.0",
        tools=[SimpleText, Lookup, Countdown],
        middleware=[
            Telemetry(),
            AccessLog(),
            Timing(slow_s=1.0),
            RateLimit(Limit(rate=20, burst=40), tools={"lookup": Limit(rate=5, burst=10)}),
        ],
    ),
    prefix="/mcp",
)

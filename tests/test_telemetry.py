"""``middleware.telemetry`` with the real OpenTelemetry SDK: spans and metrics per MCP conventions.

Real uvicorn servers (both eras) and the stdio transport over real pipes; the SDK's
InMemorySpanExporter and InMemoryMetricReader collect what the server emitted.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from demo_tools import make_suite
from genmcp import Result, Suite, Tool, call_tool_result, mcp_router
from genmcp.middleware.telemetry import Telemetry
from genmcp.transports.stdio import StdioServer
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServers

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"
HEADER_TRACE = "0af7651916cd43dd8448eb211c80319c"
HEADER_PARENT = "b7ad6b7169203331"


class Refuses(Tool, name="refuses", description="Answers with a tool error (isError)."):
    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(error="nope"))


class Otel:
    """An SDK tracer and meter provider with in-memory exporters, and the middleware."""

    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.metrics = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.metrics])
        self.middleware = Telemetry(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider
        )

    def suite(self) -> Suite:
        suite = make_suite(middleware=[self.middleware])
        suite.add_tool(Refuses)
        return suite

    async def span(self, name: str, count: int = 1) -> ReadableSpan:
        """The last ended span called ``name`` once ``count`` of them ended."""
        for _ in range(300):
            found = [s for s in self.spans.get_finished_spans() if s.name == name]
            if len(found) >= count:
                return found[-1]
            await asyncio.sleep(0.01)
        names = [s.name for s in self.spans.get_finished_spans()]
        raise AssertionError(f"no span {name!r} ended; ended: {names}")

    def points(self, metric: str) -> list[Any]:
        data = self.metrics.get_metrics_data()
        found = []
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for item in scope.metrics:
                    if item.name == metric:
                        assert item.unit == "s"
                        found.extend(item.data.data_points)
        return found


@pytest.fixture
def otel() -> Otel:
    return Otel()


def serve(live_server: LiveServers, suite: Suite) -> str:
    app = FastAPI()
    app.include_router(mcp_router(suite=suite), prefix="/mcp")
    return live_server(app)


async def test_a_tool_call_span_follows_the_convention(
    otel: Otel, live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    client = modern_client(serve(live_server, otel.suite()))
    reply = await client.request(
        "tools/call",
        {"name": "add", "arguments": {"a": 1, "b": 2}},
        id="r-7",
        meta={"traceparent": TRACEPARENT, "tracestate": "rojo=00f067aa0ba902b7"},
    )
    assert reply.result.get("isError") is not True
    span = await otel.span("tools/call add")
    assert span.kind is SpanKind.SERVER
    assert span.parent is not None and span.parent.is_remote
    assert (f"{span.parent.trace_id:032x}", f"{span.parent.span_id:016x}") == (TRACE_ID, PARENT_ID)
    assert f"{span.context.trace_id:032x}" == TRACE_ID
    assert span.context.trace_state.get("rojo") == "00f067aa0ba902b7"
    assert dict(span.attributes or {}) == {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "add",
        "gen_ai.operation.name": "execute_tool",
        "jsonrpc.request.id": "r-7",
        "mcp.protocol.version": "2026-07-28",
        "network.transport": "tcp",
        "network.protocol.name": "http",
    }
    assert span.status.status_code is StatusCode.UNSET
    [point] = otel.points("mcp.server.operation.duration")
    assert dict(point.attributes) == {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "add",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": "2026-07-28",
        "network.transport": "tcp",
        "network.protocol.name": "http",
    }
    assert point.count == 1 and 0 < point.sum < 5
    assert list(point.explicit_bounds)[:3] == [0.01, 0.02, 0.05]


async def test_the_parent_comes_from_http_headers_without_meta(
    otel: Otel, live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    header = f"00-{HEADER_TRACE}-{HEADER_PARENT}-01"
    client = modern_client(serve(live_server, otel.suite()), headers={"traceparent": header})
    await client.request("tools/list")
    span = await otel.span("tools/list")
    assert span.parent is not None
    assert (f"{span.parent.trace_id:032x}", f"{span.parent.span_id:016x}") == (
        HEADER_TRACE,
        HEADER_PARENT,
    )
    assert span.links == ()
    # _meta wins over the headers; the transport's context becomes a link
    await client.request("tools/list", meta={"traceparent": TRACEPARENT})
    span = await otel.span("tools/list", 2)
    assert span.parent is not None and f"{span.parent.span_id:016x}" == PARENT_ID
    [link] = span.links
    assert f"{link.context.span_id:016x}" == HEADER_PARENT
    # a malformed traceparent in _meta is ignored: the headers' context is the parent
    await client.request("tools/list", meta={"traceparent": "00-zz-yy-01"})
    span = await otel.span("tools/list", 3)
    assert span.parent is not None and f"{span.parent.span_id:016x}" == HEADER_PARENT


@pytest.mark.parametrize(
    ("params", "error_type", "code", "name"),
    [
        ({"name": "refuses", "arguments": {}}, "tool_error", None, "tools/call refuses"),
        ({"name": "no-such-tool", "arguments": {}}, "-32602", "-32602", "tools/call"),
        ({"name": "add", "arguments": {"a": "x"}}, "tool_error", None, "tools/call add"),
        ({"name": "boom", "arguments": {}}, "-32603", "-32603", "tools/call boom"),
    ],
)
async def test_error_type_for_tool_and_protocol_errors(
    otel: Otel,
    live_server: LiveServers,
    modern_client: Callable[..., ModernClient],
    params: dict[str, Any],
    error_type: str,
    code: str | None,
    name: str,
) -> None:
    client = modern_client(serve(live_server, otel.suite()))
    reply = await client.request("tools/call", params, validate=False)
    span = await otel.span(name)
    attributes = dict(span.attributes or {})
    assert attributes["error.type"] == error_type
    assert attributes.get("rpc.response.status_code") == code
    assert span.status.status_code is StatusCode.ERROR
    if code is not None:
        assert span.status.description == reply.error["message"]
    [point] = otel.points("mcp.server.operation.duration")
    assert point.attributes["error.type"] == error_type


async def test_an_unknown_method_and_a_preflight_refusal_get_spans(
    otel: Otel, live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    client = modern_client(serve(live_server, otel.suite()))
    await client.request("nothing/here", validate=False)
    span = await otel.span("nothing/here")
    assert dict(span.attributes or {})["error.type"] == "-32601"
    # a header that disagrees with the body is refused before the Suite, through the chain
    reply = await client.request("tools/list", headers={"Mcp-Method": "tools/call"}, validate=False)
    assert reply.status == 400
    span = await otel.span("tools/list")
    assert dict(span.attributes or {})["rpc.response.status_code"] == str(reply.error["code"])


async def test_streamed_messages_are_span_events(
    otel: Otel, live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    client = modern_client(serve(live_server, otel.suite()))
    reply = await client.request(
        "tools/call", {"name": "count", "arguments": {"n": 3}}, progress_token="p", log_level="info"
    )
    assert len(reply.notifications) == 6
    span = await otel.span("tools/call count")
    names = [event.name for event in span.events]
    assert names.count("notifications/progress") == 3
    assert names.count("notifications/message") == 3
    assert "error.type" not in (span.attributes or {})


async def test_a_disconnect_ends_the_span(
    otel: Otel, live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    suite = otel.suite()
    client = modern_client(serve(live_server, suite), timeout=0.3)
    with pytest.raises(httpx.ReadTimeout):
        await client.request("tools/call", {"name": "nap", "arguments": {"seconds": 30}})
    span = await otel.span("tools/call nap")
    assert dict(span.attributes or {})["error.type"] == "disconnected"
    assert span.end_time is not None and suite.live_workers == 0


async def test_a_streaming_call_span_ends_when_the_call_is_done(
    otel: Otel, live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    suite = otel.suite()
    client = modern_client(serve(live_server, suite))
    async with client.stream(
        "tools/call", {"name": "follow", "arguments": {}}, progress_token=1
    ) as exchange:
        first = await anext(aiter(exchange))
        worker = first["params"]["message"].split()[-1]
        assert not [s for s in otel.spans.get_finished_spans() if s.name == "tools/call follow"]
        await suite.post(worker, "one")
        await suite.post(worker, "stop")
        reply = await exchange.drain()
    assert reply.response is not None
    span = await otel.span("tools/call follow")
    names = [event.name for event in span.events]
    assert names.count("notifications/progress") == 2
    assert "error.type" not in (span.attributes or {})


async def test_legacy_sessions_over_http(otel: Otel, live_server: LiveServers) -> None:
    async with LegacyClient(serve(live_server, otel.suite()), version="2025-06-18") as client:
        await client.open()
        reply = await client.request(
            "tools/call",
            {"name": "add", "arguments": {"a": 1, "b": 1}, "_meta": {"traceparent": TRACEPARENT}},
        )
        assert reply.result is not None
        await client.request("ping")
        assert (await client.delete()).status == 200
    init = await otel.span("initialize")
    assert dict(init.attributes or {})["mcp.method.name"] == "initialize"
    span = await otel.span("tools/call add")
    attributes = dict(span.attributes or {})
    assert attributes["mcp.protocol.version"] == "2025-06-18"
    assert len(attributes["mcp.session.id"]) >= 16
    assert attributes["mcp.session.id"] != client.session_id  # the key, not the sealed token
    assert span.parent is not None and f"{span.parent.span_id:016x}" == PARENT_ID
    ping = await otel.span("ping")
    assert dict(ping.attributes or {})["mcp.session.id"] == attributes["mcp.session.id"]
    [session] = otel.points("mcp.server.session.duration")
    assert dict(session.attributes) == {
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "mcp.protocol.version": "2025-06-18",
    }
    assert session.count == 1


class Pipes:
    """A StdioServer on real OS pipes, run in this process's loop."""

    def __init__(self, suite: Suite) -> None:
        into_read, self._into = os.pipe()
        self._out, out_write = os.pipe()
        self._ends = (os.fdopen(into_read, "rb"), os.fdopen(out_write, "wb"))
        self.server = StdioServer(suite, reader=self._ends[0], writer=self._ends[1])
        self._lines = os.fdopen(self._out, "rb")
        self.task = asyncio.ensure_future(self.server.serve())

    def send(self, message: Any) -> None:
        os.write(self._into, json.dumps(message).encode() + b"\n")

    async def receive(self) -> Any:
        return json.loads(await asyncio.to_thread(self._lines.readline))

    async def close(self) -> None:
        os.close(self._into)
        await asyncio.wait_for(self.task, 10)
        for end in (*self._ends, self._lines):
            end.close()


def modern(request_id: int, method: str, params: dict[str, Any], **meta: Any) -> Any:
    full = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        **meta,
    }
    return {"jsonrpc": "2.0", "id": request_id, "method": method,
            "params": {**params, "_meta": full}}  # fmt: skip


async def test_stdio_modern(otel: Otel) -> None:
    pipes = Pipes(otel.suite())
    pipes.send(modern(1, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}},
                      traceparent=TRACEPARENT))  # fmt: skip
    assert (await pipes.receive())["id"] == 1
    await pipes.close()
    span = await otel.span("tools/call add")
    attributes = dict(span.attributes or {})
    assert attributes["network.transport"] == "pipe"
    assert "network.protocol.name" not in attributes and "mcp.session.id" not in attributes
    assert span.parent is not None and f"{span.parent.span_id:016x}" == PARENT_ID


async def test_stdio_legacy_session(otel: Otel) -> None:
    pipes = Pipes(otel.suite())
    pipes.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})  # fmt: skip
    assert "result" in await pipes.receive()
    pipes.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "refuses", "arguments": {}, "_meta": {"traceparent": TRACEPARENT}}})  # fmt: skip
    assert (await pipes.receive())["result"]["isError"] is True
    await pipes.close()
    span = await otel.span("tools/call refuses")
    attributes = dict(span.attributes or {})
    assert attributes["network.transport"] == "pipe"
    assert attributes["mcp.protocol.version"] == "2025-06-18"
    assert attributes["error.type"] == "tool_error"
    assert attributes["mcp.session.id"]
    [session] = otel.points("mcp.server.session.duration")
    assert session.attributes["mcp.protocol.version"] == "2025-06-18"
    assert session.attributes["network.transport"] == "pipe"
    assert session.count == 1

"""genmcp.middleware.telemetry at the edges: names a client chose, calls the client cancelled.

Real uvicorn servers and real pipes, the real OpenTelemetry SDK (in-memory exporters).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from opentelemetry.trace import StatusCode

from demo_tools import Stats, make_suite
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServers
from test_telemetry import Otel, Pipes, modern, otel, serve

__all__ = ["otel"]  # the fixture


async def eventually(check: Callable[[], bool], within: float = 5.0) -> None:
    for _ in range(int(within / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition did not become true in time")


async def test_span_names_keep_only_known_well_formed_names(
    otel: Otel, live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    client = modern_client(serve(live_server, otel.suite()))
    for name in ("a" * 200, "evil\nname", "x" * 5000, "no-such-tool"):
        reply = await client.request("tools/call", {"name": name, "arguments": {}}, validate=False)
        assert reply.error["code"] == -32602
    await eventually(lambda: len(otel.spans.get_finished_spans()) == 4)
    spans = otel.spans.get_finished_spans()
    assert [s.name for s in spans] == ["tools/call"] * 4
    assert [len(dict(s.attributes or {})["gen_ai.tool.name"]) for s in spans] == [200, 9, 1024, 12]
    # an unknown name is not a metric attribute: clients cannot grow the series
    [point] = otel.points("mcp.server.operation.duration")
    assert "gen_ai.tool.name" not in point.attributes and point.count == 4
    # a known name keeps its span name and attribute
    await client.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    span = await otel.span("tools/call add")
    assert dict(span.attributes or {})["gen_ai.tool.name"] == "add"


async def test_a_legacy_notifications_cancelled_ends_the_span_as_cancelled(
    otel: Otel, live_server: LiveServers
) -> None:
    stats = Stats()
    suite = make_suite(stats, middleware=[otel.middleware])
    async with LegacyClient(serve(live_server, suite), version="2025-06-18") as client:
        await client.open()
        call = asyncio.create_task(
            client.request("tools/call", {"name": "nap", "arguments": {"seconds": 30}}, id="c-1")
        )
        await eventually(lambda: stats.started == 1)
        assert not [s for s in otel.spans.get_finished_spans() if s.name == "tools/call nap"]
        cancel = await client.notify("notifications/cancelled", {"requestId": "c-1"})
        assert cancel.status == 202
        reply = await asyncio.wait_for(call, 5)
        assert reply.response is None
    span = await otel.span("tools/call nap")
    attributes = dict(span.attributes or {})
    assert attributes["error.type"] == "cancelled"
    assert "rpc.response.status_code" not in attributes
    assert span.status.status_code is StatusCode.ERROR
    assert stats.cancelled == 1
    await eventually(lambda: suite.live_workers == 0)
    cancelled = [s for s in otel.spans.get_finished_spans() if s.name == "notifications/cancelled"]
    assert cancelled == []  # a notification is no request: no span of its own


async def test_a_modern_client_closing_the_stream_ends_the_span(
    otel: Otel, live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    stats = Stats()
    suite = make_suite(stats, middleware=[otel.middleware])
    client = modern_client(serve(live_server, suite))
    async with client.stream(
        "tools/call", {"name": "nap", "arguments": {"seconds": 30}}, progress_token="p"
    ) as exchange:
        first = await anext(aiter(exchange))
        assert first["method"] == "notifications/progress"
    # leaving the block closed the connection: the 2026-07-28 cancel signal
    span = await otel.span("tools/call nap")
    attributes = dict(span.attributes or {})
    assert attributes["error.type"] == "disconnected"
    assert span.status.status_code is StatusCode.ERROR
    assert [e.name for e in span.events] == ["notifications/progress"]
    await eventually(lambda: stats.cancelled == 1)
    await eventually(lambda: suite.live_workers == 0)
    [point] = otel.points("mcp.server.operation.duration")
    assert point.attributes["error.type"] == "disconnected" and point.sum < 5


async def test_a_stdio_notifications_cancelled_ends_the_span_as_cancelled(otel: Otel) -> None:
    stats = Stats()
    pipes = Pipes(make_suite(stats, middleware=[otel.middleware]))
    pipes.send(modern(7, "tools/call", {"name": "nap", "arguments": {"seconds": 30}}))
    await eventually(lambda: stats.started == 1)
    pipes.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 7}})  # fmt: skip
    span = await otel.span("tools/call nap")
    assert dict(span.attributes or {})["error.type"] == "cancelled"
    assert dict(span.attributes or {})["network.transport"] == "pipe"
    await pipes.close()
    assert stats.cancelled == 1

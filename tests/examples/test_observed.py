"""examples/observed_app.py run as its own process: its SDK setup prints spans as JSON.

``OTEL_TRACES_EXPORTER=console`` makes the app's ConsoleSpanExporter print each span on
stdout; the test serves the app with uvicorn in a subprocess, calls its tools over HTTP and
reads the spans back from what the process printed.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from support.client import ModernClient

ROOT = Path(__file__).resolve().parents[2]
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object printed in ``text`` (the console exporter indents them)."""
    decoder, found, index = json.JSONDecoder(), [], 0
    while (index := text.find("{", index)) != -1:
        value, index = decoder.raw_decode(text, index)
        found.append(value)
    return found


async def test_the_observed_app_prints_its_spans(
    modern_client: Callable[..., ModernClient],
) -> None:
    port = free_port()
    env = {**os.environ, "OTEL_TRACES_EXPORTER": "console", "OTEL_METRICS_EXPORTER": "none",
           "OTEL_SERVICE_NAME": "observed-test"}  # fmt: skip
    process = subprocess.Popen(  # noqa: ASYNC220 - started once, read after it stopped
        [sys.executable, "-m", "uvicorn", "--app-dir", "examples", "observed_app:app",
         "--port", str(port), "--log-level", "warning"],
        cwd=ROOT, env=env, text=True, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        client = modern_client(f"http://127.0.0.1:{port}")
        for _ in range(400):
            try:
                await client.request("tools/list")
                break
            except httpx.TransportError:
                assert process.poll() is None, process.communicate()
                await asyncio.sleep(0.05)
        simple = await client.request(
            "tools/call", {"name": "test_simple_text", "arguments": {}},
            meta={"traceparent": TRACEPARENT},
        )  # fmt: skip
        assert simple.result["content"][0]["text"].startswith("This is a simple text")
        oslo, nowhere = ({"name": "lookup", "arguments": {"city": c}} for c in ("Oslo", "X"))
        found = await client.request("tools/call", oslo)
        assert found.result["content"][0]["text"] == "Norway"
        missing = await client.request("tools/call", nowhere)
        assert missing.result["isError"] is True
        counted = await client.request(
            "tools/call", {"name": "countdown", "arguments": {"n": 2}}, progress_token="c"
        )
        assert len(counted.notifications) == 2
    finally:
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=20)
    spans = [o for o in json_objects(out) if "context" in o and "kind" in o]
    by_name: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        by_name.setdefault(span["name"], []).append(span)
    [simple_span] = by_name["tools/call test_simple_text"]
    assert simple_span["kind"] == "SpanKind.SERVER"
    assert simple_span["context"]["trace_id"] == "0x" + TRACE_ID  # the parent from _meta
    assert simple_span["attributes"]["gen_ai.tool.name"] == "test_simple_text"
    assert simple_span["attributes"]["mcp.protocol.version"] == "2026-07-28"
    assert simple_span["resource"]["attributes"]["service.name"] == "observed-test"
    ok, failed = by_name["tools/call lookup"]
    assert "error.type" not in ok["attributes"]
    assert failed["attributes"]["error.type"] == "tool_error"
    child = by_name["cities.lookup"][0]
    assert child["parent_id"] == ok["context"]["span_id"]  # the tool's span is a child
    assert child["context"]["trace_id"] == ok["context"]["trace_id"]
    [countdown] = by_name["tools/call countdown"]
    assert [e["name"] for e in countdown["events"]] == ["notifications/progress"] * 2
    assert "tools/call test_simple_text principal=- outcome=ok" in err  # the access log

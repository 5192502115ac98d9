"""The 2026-07-28 server the HTTP rule tests drive, and their helpers.

Shared by tests/transports/http/test_rules.py (the rules of transports/http/rules.py),
test_endpoint_messages.py (what the endpoint makes of a message) and
test_http_hostile_values.py: the tools, ``make_app``, and the assertions on a reply.

Each rule is driven over the wire with httpx (through `ModernClient`, which checks every
server message against the official schema) and asserts the HTTP status, the JSON-RPC
code, and the message or data where they carry meaning. Happy paths sit next to the
unhappy ones, so a rule that rejects everything fails as surely as one that accepts all.

Every request here carries the 2026-07-28 markers (`MCP-Protocol-Version: 2026-07-28`,
and `_meta` where a body has params), so the rules stay the modern ones whatever the
legacy (2025) era dispatch does with unmarked requests.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

import httpx
from fastapi import FastAPI

from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
from support import schema
from support.client import Reply

VERSION: Final = "2026-07-28"
SECRET: Final = "http-rules-test-secret-key-0123456789abcdef"
MAX_BODY: Final = 8192
APP_ORIGIN: Final = "https://app.example"
META_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL: Final = "io.modelcontextprotocol/logLevel"

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
HEADER_MISMATCH: Final = -32020
UNSUPPORTED_VERSION: Final = -32022

NO_ID: Final = object()
"""Marks an error whose request id the server cannot know: `id` must be absent."""


# -- the server under test ---------------------------------------------------------------


class EchoTool(
    Tool,
    name="echo",
    description="Answers 'echo <n>' after a pause that depends on n.",
    input_schema={
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        n = request.arguments["n"]
        await asyncio.sleep((n * 7 % 5) / 1000)  # interleave concurrent calls
        return Result(call_tool_result(text=f"echo {n}"))


class CafeTool(Tool, name="café", description="A tool whose name is not ASCII."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="bonjour"))


FORECAST_SCHEMA: Final = {
    "type": "object",
    "properties": {
        "region": {"type": ["string", "null"], "x-mcp-header": "Region"},
        "days": {"type": "integer", "x-mcp-header": "Days"},
        "metric": {"type": "boolean", "x-mcp-header": "Metric"},
        "note": {"type": "string"},
    },
}


class ForecastTool(
    Tool,
    name="forecast",
    description="Echoes its arguments; three of them travel in Mcp-Param-* headers.",
    input_schema=FORECAST_SCHEMA,
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        text = json.dumps(request.arguments, sort_keys=True, ensure_ascii=False)
        return Result(call_tool_result(text=text))


def make_app(**options: Any) -> FastAPI:
    app = FastAPI()
    router = mcp_router(
        server_name="http-rules",
        server_version="1.0.0",
        tools=[EchoTool, CafeTool, ForecastTool],
        secret_key=SECRET,
        **options,
    )
    app.include_router(router, prefix="/mcp")
    return app


def plain_http() -> httpx.AsyncHTTPTransport:
    """A transport for plain-HTTP loopback: skips loading CA certificates (~40 ms a client)."""
    return httpx.AsyncHTTPTransport(verify=False)


# -- helpers -----------------------------------------------------------------------------


def assert_error(
    reply: Reply, status: int, code: int, *, id: object = NO_ID, message: str | None = None
) -> dict[str, Any]:
    """The reply is one JSON-RPC error with this status, code and id; returns the error."""
    assert (reply.status, reply.content_type) == (status, "application/json"), reply.body
    response = reply.response
    assert response is not None, reply.body
    if id is NO_ID:
        assert "id" not in response, response
    else:
        assert response["id"] == id, response
    assert "result" not in response
    error: dict[str, Any] = response["error"]
    assert error["code"] == code, error
    if message is not None:
        assert message in error["message"], error
    return error


def assert_http_error(response: httpx.Response, status: int, *, message: str) -> None:
    """A non-MCP-client exchange: status plus the JSON-RPC error body, schema-checked."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    schema.validate_server_message(body, method=None)
    assert "id" not in body and "result" not in body
    assert body["error"]["code"] == INVALID_REQUEST
    assert message in body["error"]["message"]


def allowed(response: httpx.Response) -> set[str]:
    return {verb.strip() for verb in response.headers["allow"].split(",")}


def text_of(reply: Reply) -> str:
    assert reply.status == 200, reply.body
    assert reply.error is None, reply.error
    content = reply.result["content"]
    assert len(content) == 1 and content[0]["type"] == "text", content
    text: str = content[0]["text"]
    return text


def modern_headers(method: str | None = "tools/list") -> dict[str, str]:
    headers = {"MCP-Protocol-Version": VERSION}
    if method is not None:
        headers["Mcp-Method"] = method
    return headers


async def raw_exchange(base: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send hand-written HTTP/1.1 bytes (httpx refuses some legal header values)."""
    url = httpx.URL(base)
    assert url.port is not None
    reader, writer = await asyncio.open_connection(url.host, url.port)
    try:
        writer.write(request)
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
        await writer.wait_closed()
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, body

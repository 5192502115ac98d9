"""The 2026-07-28 Streamable HTTP rules (spec digest §2-5), against a real uvicorn server.

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
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI

from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
from support import schema
from support.client import ModernClient, Reply, encode_header_value
from support.server import LiveServers

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


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    """Three servers for the whole module (starting uvicorn per test would dominate)."""
    live = LiveServers()
    try:
        yield {
            "default": live(make_app(allowed_origins=[APP_ORIGIN], max_body_bytes=MAX_BODY)),
            "any_host": live(make_app(allowed_hosts=["*"])),
            "named_host": live(make_app(allowed_hosts=["mcp.example.com"])),
        }
    finally:
        live.stop_all()


@pytest.fixture
def base(servers: dict[str, str]) -> str:
    return servers["default"]


def plain_http() -> httpx.AsyncHTTPTransport:
    """A transport for plain-HTTP loopback: skips loading CA certificates (~40 ms a client)."""
    return httpx.AsyncHTTPTransport(verify=False)


@pytest.fixture
def client(base: str, modern_client: Any) -> ModernClient:
    made: ModernClient = modern_client(base, transport=plain_http())
    return made


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


# -- POST only ---------------------------------------------------------------------------


@pytest.mark.parametrize("verb", ["GET", "DELETE", "PUT", "PATCH"])
async def test_only_post_is_served_other_verbs_get_405_with_allow(base: str, verb: str) -> None:
    headers = {**modern_headers(), "Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(transport=plain_http()) as http:
        response = await http.request(verb, base + "/mcp", headers=headers)
    assert_http_error(response, 405, message=verb)
    assert "POST" in allowed(response)  # legacy mode may add GET and DELETE for sessions
    assert "mcp-session-id" not in response.headers


async def test_a_stray_session_id_is_ignored_and_never_echoed(client: ModernClient) -> None:
    reply = await client.request("tools/list", headers={"Mcp-Session-Id": "abc123"})
    assert reply.status == 200
    assert [tool["name"] for tool in reply.result["tools"]] == ["café", "echo", "forecast"]
    assert "mcp-session-id" not in reply.headers


# -- JSON-RPC envelope -------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [b"{nope", b"", b"   ", b'{"jsonrpc":"2.0","id":1,', b"\xff\xfe{}", b"{'single': 1}"],
    ids=["garbage", "empty", "blank", "truncated", "not-utf8", "single-quotes"],
)
async def test_a_body_that_is_not_json_is_a_parse_error(client: ModernClient, body: bytes) -> None:
    reply = await client.raw_post(body, modern_headers())
    error = assert_error(reply, 400, PARSE_ERROR)
    schema.validate(error, "ParseError")


@pytest.mark.parametrize("body", ['"hello"', "42", "null", "true"])
async def test_json_that_is_not_an_object_is_an_invalid_request(
    client: ModernClient, body: str
) -> None:
    reply = await client.raw_post(body, modern_headers())
    error = assert_error(reply, 400, INVALID_REQUEST, message="object")
    schema.validate(error, "InvalidRequestError")


@pytest.mark.parametrize(
    "envelope",
    [{"jsonrpc": "1.0"}, {}, {"jsonrpc": 2.0}, {"jsonrpc": None}],
    ids=["1.0", "missing", "number", "null"],
)
async def test_a_bad_jsonrpc_member_is_an_invalid_request_echoing_the_id(
    client: ModernClient, envelope: dict[str, Any]
) -> None:
    body, headers = client.build("tools/list", id=7)
    body.pop("jsonrpc")
    reply = await client.raw_post(json.dumps({**body, **envelope}), headers)
    assert_error(reply, 400, INVALID_REQUEST, id=7, message="jsonrpc")


@pytest.mark.parametrize("bad_id", [1.5, True, None, {}, [1]], ids=repr)
async def test_an_id_that_is_not_a_string_or_integer_is_an_invalid_request(
    client: ModernClient, bad_id: Any
) -> None:
    body, headers = client.build("tools/list")
    body["id"] = bad_id
    reply = await client.raw_post(json.dumps(body), headers)
    assert_error(reply, 400, INVALID_REQUEST, message='"id"')


@pytest.mark.parametrize("params", [[1, 2], "x", 5, True], ids=repr)
async def test_params_that_are_not_an_object_are_an_invalid_request_echoing_the_id(
    client: ModernClient, params: Any
) -> None:
    body, headers = client.build("tools/list", id="p-1")
    body["params"] = params
    reply = await client.raw_post(json.dumps(body), headers)
    assert_error(reply, 400, INVALID_REQUEST, id="p-1", message='"params"')


@pytest.mark.parametrize("method", [5, "", None, ["tools/list"]], ids=repr)
async def test_a_method_that_is_not_a_non_empty_string_is_an_invalid_request(
    client: ModernClient, method: Any
) -> None:
    body, headers = client.build("tools/list", id=11)
    body["method"] = method
    reply = await client.raw_post(json.dumps(body), headers)
    assert_error(reply, 400, INVALID_REQUEST, id=11, message='"method"')


@pytest.mark.parametrize("size", [0, 1, 2])
async def test_batches_are_rejected(client: ModernClient, size: int) -> None:
    requests = [client.build("tools/list")[0] for _ in range(size)]
    reply = await client.raw_post(json.dumps(requests), modern_headers())
    assert_error(reply, 400, INVALID_REQUEST, message="batch")
    assert len(reply.messages) == 1  # one error, not one answer per element


@pytest.mark.parametrize("method", ["notifications/initialized", "notifications/cancelled"])
async def test_a_notification_is_accepted_with_202_and_an_empty_body(
    client: ModernClient, method: str
) -> None:
    reply = await client.notify(method, {"requestId": 3} if "cancelled" in method else None)
    assert reply.status == 202
    assert reply.body == b""
    assert reply.messages == []
    assert "mcp-session-id" not in reply.headers


@pytest.mark.parametrize(
    "member", [{"result": {}}, {"error": {"code": -1, "message": "no"}}], ids=["result", "error"]
)
async def test_a_json_rpc_response_body_is_refused(
    client: ModernClient, member: dict[str, Any]
) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 5, **member})
    reply = await client.raw_post(body, modern_headers(None))
    assert reply.status == 400, reply.body
    error = reply.error
    assert error is not None and error["code"] == INVALID_REQUEST, reply.body
    assert reply.result is None


# -- _meta ---------------------------------------------------------------------------


async def test_a_request_without_params_is_missing_meta(client: ModernClient) -> None:
    body, headers = client.build("tools/list", id=1)
    del body["params"]
    reply = await client.raw_post(json.dumps(body), headers)
    assert_error(reply, 400, INVALID_PARAMS, id=1, message="_meta")


@pytest.mark.parametrize(
    ("meta", "named"),
    [
        ({META_VERSION: None, META_CAPABILITIES: None, META_CLIENT_INFO: None}, "_meta"),
        ({META_VERSION: None}, META_VERSION),
        ({META_CAPABILITIES: None}, META_CAPABILITIES),
    ],
    ids=["no-meta-keys", "no-protocol-version", "no-client-capabilities"],
)
async def test_missing_required_meta_keys_are_400_invalid_params(
    client: ModernClient, meta: dict[str, Any], named: str
) -> None:
    reply = await client.request("tools/list", id="m", meta=meta)
    error = assert_error(reply, 400, INVALID_PARAMS, id="m", message=named)
    schema.validate(error, "InvalidParamsError")


@pytest.mark.parametrize(
    "meta",
    [
        {"_meta": []},
        {"_meta": "2026-07-28"},
        {"_meta": {META_VERSION: VERSION, META_CAPABILITIES: []}},
    ],
    ids=["meta-list", "meta-string", "capabilities-list"],
)
async def test_malformed_meta_is_400_invalid_params(
    client: ModernClient, meta: dict[str, Any]
) -> None:
    body, headers = client.build("tools/list", id=2)
    body["params"] = meta
    reply = await client.raw_post(json.dumps(body), headers)
    assert_error(reply, 400, INVALID_PARAMS, id=2)


async def test_client_info_is_optional(client: ModernClient) -> None:
    reply = await client.request("tools/list", meta={META_CLIENT_INFO: None})
    assert reply.status == 200
    assert "echo" in [tool["name"] for tool in reply.result["tools"]]


@pytest.mark.parametrize("level", ["verbose", "DEBUG", 3, ""], ids=repr)
async def test_a_bad_log_level_is_invalid_params(client: ModernClient, level: Any) -> None:
    reply = await client.request("tools/list", id=4, meta={META_LOG_LEVEL: level})
    assert_error(reply, 200, INVALID_PARAMS, id=4, message="logLevel")


@pytest.mark.parametrize("level", ["debug", "emergency"])
async def test_a_known_log_level_is_served(client: ModernClient, level: str) -> None:
    reply = await client.request(
        "tools/call", {"name": "echo", "arguments": {"n": 1}}, log_level=level
    )
    assert text_of(reply) == "echo 1"


# -- MCP-Protocol-Version, Mcp-Method, Mcp-Name ---------------------------------------------


async def test_a_missing_protocol_version_header_is_a_header_mismatch(client: ModernClient) -> None:
    reply = await client.request("tools/list", id=1, headers={"MCP-Protocol-Version": None})
    error = assert_error(reply, 400, HEADER_MISMATCH, id=1, message="MCP-Protocol-Version")
    schema.validate({"jsonrpc": "2.0", "id": 1, "error": error}, "HeaderMismatchError")


@pytest.mark.parametrize(
    ("header", "meta"),
    [("2025-11-25", VERSION), (VERSION, "2025-06-18"), ("2026-07-29", VERSION), (VERSION, "v999")],
)
async def test_a_protocol_version_header_unlike_meta_is_a_header_mismatch(
    client: ModernClient, header: str, meta: str
) -> None:
    reply = await client.request(
        "tools/list", id=1, meta={META_VERSION: meta}, headers={"MCP-Protocol-Version": header}
    )
    assert_error(reply, 400, HEADER_MISMATCH, id=1, message="MCP-Protocol-Version")


async def test_a_missing_mcp_method_header_is_a_header_mismatch(client: ModernClient) -> None:
    reply = await client.request("tools/list", id=1, headers={"Mcp-Method": None})
    assert_error(reply, 400, HEADER_MISMATCH, id=1, message="Mcp-Method")


@pytest.mark.parametrize("sent", ["tools/call", "Tools/List", "server/discover"])
async def test_an_mcp_method_header_unlike_the_body_is_a_header_mismatch(
    client: ModernClient, sent: str
) -> None:
    reply = await client.request("tools/list", id=1, headers={"Mcp-Method": sent})
    assert_error(reply, 400, HEADER_MISMATCH, id=1, message="Mcp-Method")


async def test_tools_call_without_mcp_name_is_a_header_mismatch(client: ModernClient) -> None:
    params = {"name": "echo", "arguments": {"n": 1}}
    reply = await client.request("tools/call", params, id=1, headers={"Mcp-Name": None})
    assert_error(reply, 400, HEADER_MISMATCH, id=1, message="Mcp-Name")


@pytest.mark.parametrize("sent", ["forecast", "Echo", "=?base64?Zm9yZWNhc3Q=?="])
async def test_an_mcp_name_unlike_the_tool_name_is_a_header_mismatch(
    client: ModernClient, sent: str
) -> None:
    params = {"name": "echo", "arguments": {"n": 1}}
    reply = await client.request("tools/call", params, id=1, headers={"Mcp-Name": sent})
    assert_error(reply, 400, HEADER_MISMATCH, id=1, message="Mcp-Name")


async def test_mcp_name_in_base64_form_names_a_non_ascii_tool(client: ModernClient) -> None:
    assert encode_header_value("café") == "=?base64?Y2Fmw6k=?="  # what the client sends
    reply = await client.request("tools/call", {"name": "café"})
    assert text_of(reply) == "bonjour"


async def test_mcp_name_in_base64_form_is_decoded_for_ascii_names_too(
    client: ModernClient,
) -> None:
    params = {"name": "echo", "arguments": {"n": 2}}
    reply = await client.request("tools/call", params, headers={"Mcp-Name": "=?base64?ZWNobw==?="})
    assert text_of(reply) == "echo 2"


@pytest.mark.parametrize(
    "sent",
    ["=?base64?not base64!?=", "=?base64?Y2Fmw6k?=", "=?base64?/w==?=", b"caf\xc3\xa9"],
    ids=["bad-alphabet", "bad-padding", "not-utf8", "raw-non-ascii"],
)
async def test_a_malformed_mcp_name_is_a_header_mismatch(client: ModernClient, sent: Any) -> None:
    reply = await client.request("tools/call", {"name": "café"}, id=1, headers={"Mcp-Name": sent})
    assert_error(reply, 400, HEADER_MISMATCH, id=1)


async def test_mcp_name_is_not_required_where_no_name_travels(client: ModernClient) -> None:
    reply = await client.request("tools/list", headers={"Mcp-Name": "whatever"})
    assert reply.status == 200 and len(reply.result["tools"]) == 3


async def test_header_values_with_surrounding_whitespace_are_accepted(
    client: ModernClient, base: str
) -> None:
    body, _ = client.build("tools/call", {"name": "echo", "arguments": {"n": 5}}, id="ws")
    content = json.dumps(body).encode()
    request = (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\n"
        b"MCP-Protocol-Version:   2026-07-28 \t\r\n"
        b"Mcp-Method: \t tools/call  \r\n"
        b"Mcp-Name:  echo   \r\n"
        b"Content-Length: " + str(len(content)).encode() + b"\r\n\r\n" + content
    )
    status, _, payload = await raw_exchange(base, request)
    assert status == 200, payload
    response = json.loads(payload)
    schema.validate_server_message(response, method="tools/call")
    assert response["id"] == "ws"
    assert response["result"]["content"] == [{"type": "text", "text": "echo 5"}]


# -- Mcp-Param-* ---------------------------------------------------------------------


async def test_tools_list_advertises_x_mcp_header_verbatim(client: ModernClient) -> None:
    reply = await client.request("tools/list")
    forecast = next(t for t in reply.result["tools"] if t["name"] == "forecast")
    assert forecast["inputSchema"] == FORECAST_SCHEMA


async def forecast(
    client: ModernClient, arguments: dict[str, Any], headers: Mapping[str, Any]
) -> Reply:
    return await client.request(
        "tools/call", {"name": "forecast", "arguments": arguments}, id="f", headers=headers
    )


@pytest.mark.parametrize(
    ("arguments", "headers"),
    [
        ({"region": "eu-west"}, {"Mcp-Param-Region": "eu-west"}),
        ({"region": "eu-west"}, {"mcp-param-region": "eu-west"}),
        ({"region": "Zürich"}, {"Mcp-Param-Region": "=?base64?WsO8cmljaA==?="}),
        ({"region": " padded "}, {"Mcp-Param-Region": encode_header_value(" padded ")}),
        ({"region": None}, {}),
        ({}, {}),
        ({"note": "no header for me"}, {}),
        ({"days": 7}, {"Mcp-Param-Days": "7"}),
        ({"days": 7}, {"Mcp-Param-Days": "007"}),
        ({"days": -3}, {"Mcp-Param-Days": "-3"}),
        ({"metric": True}, {"Mcp-Param-Metric": "true"}),
        ({"metric": False}, {"Mcp-Param-Metric": "false"}),
        (
            {"region": "ap", "days": 2, "metric": False},
            {"Mcp-Param-Region": "ap", "Mcp-Param-Days": "2", "Mcp-Param-Metric": "false"},
        ),
    ],
    ids=[
        "string",
        "lower-case-name",
        "base64-non-ascii",
        "base64-spaces",
        "null-needs-none",
        "absent-needs-none",
        "other-argument",
        "integer",
        "integer-numerically",
        "negative",
        "true",
        "false",
        "all-three",
    ],
)
async def test_mcp_param_headers_that_match_the_arguments_are_served(
    client: ModernClient, arguments: dict[str, Any], headers: dict[str, str]
) -> None:
    reply = await forecast(client, arguments, headers)
    assert json.loads(text_of(reply)) == arguments


@pytest.mark.parametrize(
    ("arguments", "headers", "named"),
    [
        ({"region": "eu-west"}, {}, "Mcp-Param-Region"),
        ({"region": "eu-west"}, {"Mcp-Param-Region": "us-east"}, "Mcp-Param-Region"),
        ({"region": "eu-west"}, {"Mcp-Param-Regio": "eu-west"}, "Mcp-Param-Region"),
        ({"region": "Zürich"}, {"Mcp-Param-Region": "Zurich"}, "Mcp-Param-Region"),
        ({"region": "Zürich"}, {"Mcp-Param-Region": "=?base64?@@?="}, "base64"),
        ({"region": ""}, {}, "Mcp-Param-Region"),
        ({"days": 7}, {}, "Mcp-Param-Days"),
        ({"days": 7}, {"Mcp-Param-Days": "8"}, "Mcp-Param-Days"),
        ({"days": 7}, {"Mcp-Param-Days": "seven"}, "Mcp-Param-Days"),
        ({"metric": True}, {"Mcp-Param-Metric": "True"}, "Mcp-Param-Metric"),
        ({"metric": True}, {"Mcp-Param-Metric": "1"}, "Mcp-Param-Metric"),
        ({"metric": False}, {}, "Mcp-Param-Metric"),
        (
            {"region": "ap", "days": 2},
            {"Mcp-Param-Region": "ap", "Mcp-Param-Days": "3"},
            "Mcp-Param-Days",
        ),
    ],
    ids=[
        "missing",
        "different",
        "misnamed",
        "not-decoded-equal",
        "bad-base64",
        "empty-string-present",
        "integer-missing",
        "integer-different",
        "integer-not-a-number",
        "boolean-case",
        "boolean-as-number",
        "false-is-present",
        "one-of-two-wrong",
    ],
)
async def test_mcp_param_headers_absent_or_unlike_the_arguments_are_header_mismatches(
    client: ModernClient, arguments: dict[str, Any], headers: dict[str, str], named: str
) -> None:
    reply = await forecast(client, arguments, headers)
    assert_error(reply, 400, HEADER_MISMATCH, id="f", message=named)


# -- versions ------------------------------------------------------------------------


async def test_discover_names_the_served_versions(client: ModernClient) -> None:
    reply = await client.request("server/discover")
    result = reply.result
    assert VERSION in result["supportedVersions"]
    assert isinstance(result["capabilities"]["tools"], dict)
    assert "prompts" not in result["capabilities"]  # none configured: not advertised
    assert "resources" not in result["capabilities"]
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == {
        "name": "http-rules",
        "version": "1.0.0",
    }


@pytest.mark.parametrize("requested", ["v999.0.0", "2025-11-25", "2024-11-05"])
async def test_an_unsupported_version_is_400_with_supported_and_requested(
    client: ModernClient, requested: str
) -> None:
    discover = await client.request("server/discover")
    reply = await client.request(
        "tools/list",
        id=9,
        meta={META_VERSION: requested},
        headers={"MCP-Protocol-Version": requested},
    )
    error = assert_error(reply, 400, UNSUPPORTED_VERSION, id=9)
    assert error["data"]["requested"] == requested
    supported = error["data"]["supported"]
    assert supported and VERSION in supported
    assert set(supported) <= set(discover.result["supportedVersions"])
    assert requested not in supported


async def test_discover_itself_is_version_checked(client: ModernClient) -> None:
    reply = await client.request(
        "server/discover",
        id="d",
        meta={META_VERSION: "v999.0.0"},
        headers={"MCP-Protocol-Version": "v999.0.0"},
    )
    assert_error(reply, 400, UNSUPPORTED_VERSION, id="d")


# -- methods and tools ---------------------------------------------------------------


@pytest.mark.parametrize(
    "method",
    [
        "foo/bar",
        "ping",
        "initialize",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "tasks/result",
        "tasks/list",
        "prompts/list",
        "resources/list",
        "completion/complete",
    ],
)
async def test_unknown_and_removed_methods_are_404_method_not_found(
    client: ModernClient, method: str
) -> None:
    reply = await client.request(method, id="u")
    error = assert_error(reply, 404, METHOD_NOT_FOUND, id="u", message=method)
    schema.validate(error, "MethodNotFoundError")


async def test_an_unknown_tool_is_invalid_params_naming_it(client: ModernClient) -> None:
    reply = await client.request("tools/call", {"name": "nope", "arguments": {}}, id=3)
    error = assert_error(reply, 200, INVALID_PARAMS, id=3, message="nope")
    assert error["data"] == {"name": "nope"}


async def test_64_concurrent_requests_with_one_id_each_get_their_own_answer(
    client: ModernClient,
) -> None:
    replies = await asyncio.gather(
        *(
            client.request("tools/call", {"name": "echo", "arguments": {"n": n}}, id=1)
            for n in range(64)
        )
    )
    assert [reply.response["id"] for reply in replies] == [1] * 64
    assert [text_of(reply) for reply in replies] == [f"echo {n}" for n in range(64)]


# -- Origin and Host -----------------------------------------------------------------


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example.com",
        "null",
        "http://localhost.evil.com",
        "http://127.0.0.1.nip.io",
        "https://app.example:8443",
        "https://app.example.evil",
    ],
)
async def test_an_origin_not_allowed_is_403(client: ModernClient, origin: str) -> None:
    reply = await client.request("tools/list", headers={"Origin": origin})
    assert_error(reply, 403, INVALID_REQUEST, message="Origin")


@pytest.mark.parametrize(
    "origin",
    [
        "http://localhost:5173",
        "http://localhost",
        "http://127.0.0.1:8000",
        "https://127.0.0.1",
        "http://[::1]:3000",
        "http://LOCALHOST:3000",
        APP_ORIGIN,
    ],
)
async def test_loopback_origins_and_listed_origins_are_allowed(
    client: ModernClient, origin: str
) -> None:
    reply = await client.request(
        "tools/call", {"name": "echo", "arguments": {"n": 3}}, headers={"Origin": origin}
    )
    assert text_of(reply) == "echo 3"


async def test_the_origin_check_runs_before_anything_else(client: ModernClient, base: str) -> None:
    evil = {"Origin": "http://evil.example.com"}
    async with httpx.AsyncClient(transport=plain_http()) as http:
        get = await http.get(base + "/mcp", headers={**modern_headers(), **evil})
    assert_http_error(get, 403, message="Origin")
    garbage = await client.raw_post(b"{nope", {**modern_headers(), **evil})
    assert_error(garbage, 403, INVALID_REQUEST, message="Origin")
    oversize = await client.raw_post(b" " * (MAX_BODY * 2), {**modern_headers(), **evil})
    assert_error(oversize, 403, INVALID_REQUEST, message="Origin")
    wrong_type = await client.raw_post(b"{}", {"Content-Type": "text/plain", **evil})
    assert_error(wrong_type, 403, INVALID_REQUEST, message="Origin")


@pytest.mark.parametrize(
    "host", ["evil.example.com", "evil.example.com:8000", "localhost.evil.com", "10.0.0.1"]
)
async def test_a_host_not_allowed_is_421(client: ModernClient, host: str) -> None:
    reply = await client.request("tools/list", headers={"Host": host})
    assert_error(reply, 421, INVALID_REQUEST, message="Host")


@pytest.mark.parametrize("host", ["localhost", "localhost:1234", "127.0.0.1", "[::1]:8080"])
async def test_loopback_hosts_are_allowed_by_default(client: ModernClient, host: str) -> None:
    reply = await client.request("tools/list", headers={"Host": host})
    assert reply.status == 200 and len(reply.result["tools"]) == 3


async def test_allowed_hosts_star_accepts_any_host(
    servers: dict[str, str], modern_client: Any
) -> None:
    client: ModernClient = modern_client(servers["any_host"], transport=plain_http())
    reply = await client.request(
        "tools/call", {"name": "echo", "arguments": {"n": 4}}, headers={"Host": "evil.example.com"}
    )
    assert text_of(reply) == "echo 4"


async def test_named_allowed_hosts_replace_the_loopback_defaults(
    servers: dict[str, str], modern_client: Any
) -> None:
    client: ModernClient = modern_client(servers["named_host"], transport=plain_http())
    named = await client.request(
        "tools/list",
        headers={"Host": "mcp.example.com:443", "Origin": "https://mcp.example.com"},
    )
    assert named.status == 200
    loopback = await client.request("tools/list")  # Host: 127.0.0.1:<port>
    assert_error(loopback, 421, INVALID_REQUEST, message="Host")
    local_origin = await client.request(
        "tools/list", headers={"Host": "mcp.example.com", "Origin": "http://localhost:3000"}
    )
    assert_error(local_origin, 403, INVALID_REQUEST, message="Origin")


# -- body size and content type --------------------------------------------------------


def padded_call(client: ModernClient, size: int) -> tuple[bytes, dict[str, Any]]:
    """A valid tools/call body of exactly `size` bytes (JSON allows trailing blanks)."""
    body, headers = client.build("tools/call", {"name": "echo", "arguments": {"n": 6}}, id="big")
    content = json.dumps(body).encode()
    assert len(content) <= size
    return content + b" " * (size - len(content)), headers


async def test_a_body_at_the_cap_is_served_one_byte_over_is_413(client: ModernClient) -> None:
    at_cap, headers = padded_call(client, MAX_BODY)
    reply = await client.raw_post(at_cap, headers)
    assert text_of(reply) == "echo 6"
    over, headers = padded_call(client, MAX_BODY + 1)
    reply = await client.raw_post(over, headers)
    assert_error(reply, 413, INVALID_REQUEST, message=str(MAX_BODY))


async def chunked(content: bytes, size: int = 1000) -> AsyncIterator[bytes]:
    for start in range(0, len(content), size):
        yield content[start : start + size]


@pytest.mark.parametrize(("size", "status"), [(MAX_BODY, 200), (MAX_BODY + 1, 413)])
async def test_the_cap_holds_for_chunked_bodies_without_content_length(
    client: ModernClient, size: int, status: int
) -> None:
    content, headers = padded_call(client, size)
    sent = {k: v for k, v in headers.items() if v is not None}
    response = await client.http.post(client.url, content=chunked(content), headers=sent)
    assert response.request.headers["transfer-encoding"] == "chunked"
    assert "content-length" not in response.request.headers
    assert response.status_code == status, response.text
    body = response.json()
    schema.validate_server_message(body, method="tools/call")
    if status == 200:
        assert body["result"]["content"] == [{"type": "text", "text": "echo 6"}]
    else:
        assert body["error"]["code"] == INVALID_REQUEST and "id" not in body


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
async def test_a_body_that_is_not_json_by_content_type_is_415(
    client: ModernClient, content_type: str
) -> None:
    reply = await client.request("tools/list", headers={"Content-Type": content_type})
    assert_error(reply, 415, INVALID_REQUEST, message=content_type.split(";")[0])


@pytest.mark.parametrize("content_type", ["application/json; charset=utf-8", "APPLICATION/JSON"])
async def test_json_content_types_with_parameters_or_case_are_accepted(
    client: ModernClient, content_type: str
) -> None:
    reply = await client.request("tools/list", headers={"Content-Type": content_type})
    assert reply.status == 200 and len(reply.result["tools"]) == 3


# -- never a 500 ---------------------------------------------------------------------


HOSTILE_PARAMS: Final[list[dict[str, Any]]] = [
    {"name": "echo", "arguments": []},
    {"name": "echo", "arguments": "n=1"},
    {"name": "echo", "arguments": {"n": "1"}},
    {"name": "echo", "arguments": {"n": 10**40}},
    {"name": "echo", "requestState": 5},
    {"name": "echo", "requestState": "v1.a.b.c"},
    {"name": "echo", "inputResponses": []},
    {"name": "echo", "inputResponses": {"k": 1}},
    {"name": "echo", "arguments": {"n": 1}, "_meta": {"progressToken": 1.5}},
    {"name": "echo", "arguments": {"n": 1}, "_meta": {"progressToken": True}},
    {"name": "echo", "arguments": {"n": 1}, "_meta": {META_CAPABILITIES: {"elicitation": 1}}},
    {"name": "echo", "arguments": {"n": 1, "deep": [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}},
]


@pytest.mark.parametrize("params", HOSTILE_PARAMS, ids=lambda p: json.dumps(p)[:60])
async def test_hostile_tools_call_params_never_get_a_500(
    client: ModernClient, params: dict[str, Any]
) -> None:
    reply = await client.request("tools/call", params, id="h")
    assert reply.status in (200, 400), reply.body
    assert reply.response is not None and reply.response["id"] == "h"

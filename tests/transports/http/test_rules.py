"""The 2026-07-28 Streamable HTTP rules of transports/http/rules.py (spec §2-5), over the wire:
POST only, the MCP-Protocol-Version / Mcp-Method / Mcp-Name / Mcp-Param-* headers, Origin and
Host, the body cap and the content type; against a real uvicorn server.

How every rule here is driven and checked: http_kit.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

import httpx
import pytest

from support import schema
from support.client import ModernClient, Reply, encode_header_value
from support.server import LiveServers
from tests.transports.http.http_kit import (
    APP_ORIGIN,
    FORECAST_SCHEMA,
    HEADER_MISMATCH,
    INVALID_REQUEST,
    MAX_BODY,
    META_VERSION,
    VERSION,
    allowed,
    assert_error,
    assert_http_error,
    make_app,
    modern_headers,
    plain_http,
    raw_exchange,
    text_of,
)


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


@pytest.fixture
def client(base: str, modern_client: Any) -> ModernClient:
    made: ModernClient = modern_client(base, transport=plain_http())
    return made


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

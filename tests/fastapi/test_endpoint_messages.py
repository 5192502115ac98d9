"""What the endpoint makes of a 2026-07-28 message (spec digest §2-5), over the wire: the
JSON-RPC envelope, ``_meta``, versions and discover, methods and tools, and never a 500;
against a real uvicorn server.

How every rule here is driven and checked: http_kit.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any, Final

import pytest
from tests.transports.http.http_kit import (
    APP_ORIGIN,
    INVALID_PARAMS,
    INVALID_REQUEST,
    MAX_BODY,
    META_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_VERSION,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_VERSION,
    VERSION,
    assert_error,
    make_app,
    modern_headers,
    plain_http,
    text_of,
)

from support import schema
from support.client import ModernClient
from support.server import LiveServers


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    """One server for the whole module (starting uvicorn per test would dominate)."""
    live = LiveServers()
    try:
        yield {"default": live(make_app(allowed_origins=[APP_ORIGIN], max_body_bytes=MAX_BODY))}
    finally:
        live.stop_all()


@pytest.fixture
def base(servers: dict[str, str]) -> str:
    return servers["default"]


@pytest.fixture
def client(base: str, modern_client: Any) -> ModernClient:
    made: ModernClient = modern_client(base, transport=plain_http())
    return made


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

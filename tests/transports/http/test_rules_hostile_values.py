"""Values that once broke the server: odd log levels, non-finite numbers, lone surrogates,
Unicode-padded or non-decimal header values, and answers that do not fit their request.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest

from support import examples
from support.client import ModernClient
from support.server import LiveServers
from tests.transports.http.http_kit import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    MAX_BODY,
    assert_error,
    make_app,
    plain_http,
)


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    live = LiveServers()
    try:
        yield {
            "rules": live(make_app(max_body_bytes=MAX_BODY)),
            "example": live(examples.load("app").app),
        }
    finally:
        live.stop_all()


@pytest.fixture
def client(servers: dict[str, str], modern_client: Any) -> ModernClient:
    made: ModernClient = modern_client(servers["rules"], transport=plain_http())
    return made


# Bug 1. src/genmcp/protocol/meta.py, check_meta(): `level not in LOG_LEVELS` hashes the
# client's value; a list or object raises TypeError -> uncaught -> HTTP 500.
# Fix: `if level is not None and (not isinstance(level, str) or level not in LOG_LEVELS):`.
@pytest.mark.parametrize("level", [["debug"], {"level": "debug"}], ids=["list", "object"])
async def test_a_log_level_of_the_wrong_type_is_invalid_params(
    client: ModernClient, level: Any
) -> None:
    reply = await client.request(
        "tools/list", id=4, meta={"io.modelcontextprotocol/logLevel": level}
    )
    assert_error(reply, 200, INVALID_PARAMS, id=4, message="logLevel")


# Bug 2. src/genmcp/protocol/jsonrpc.py, decode_json(): json.loads accepts NaN, Infinity,
# -Infinity (not JSON) and turns 1e999 into inf; Suite._call_tool then calls
# sealing.digest(..., allow_nan=False), whose ValueError escapes Suite.handle -> HTTP 500.
# Fix: json.loads(body, parse_constant=_refuse, parse_float=_finite_float) where both raise
# ValueError for non-finite values, so they become the -32700 parse error.
@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
async def test_non_finite_numbers_are_refused_not_500(client: ModernClient, number: str) -> None:
    body, headers = client.build("tools/call", {"name": "echo", "arguments": {"n": 1}}, id=8)
    raw = json.dumps(body).replace('"n": 1', f'"n": {number}')
    reply = await client.raw_post(raw, headers)
    assert reply.status in (200, 400), reply.body
    assert reply.error is not None and reply.error["code"] in (-32700, -32602), reply.body


# Bug 3. src/genmcp/protocol/jsonrpc.py, encode(): json.dumps(ensure_ascii=False).encode()
# raises UnicodeEncodeError on a lone surrogate ("\ud800" is legal JSON escape syntax), which
# every response that echoes client text hits (the id, an argument) -> HTTP 500.
# Fix: on UnicodeEncodeError re-dump with ensure_ascii=True (ASCII escapes are valid JSON),
# or refuse lone surrogates at parse time with -32600/-32602.
@pytest.mark.parametrize("where", ["id", "argument"])
async def test_lone_surrogates_are_answered_not_500(client: ModernClient, where: str) -> None:
    params = {"name": "forecast", "arguments": {"note": "X"}}
    body, headers = client.build("tools/call", params, id="ID")
    raw = json.dumps(body)
    raw = raw.replace('"ID"', '"\\ud800"') if where == "id" else raw.replace('"X"', '"\\ud800"')
    reply = await client.raw_post(raw, headers, validate=False)
    assert reply.status in (200, 400), reply.body
    json.loads(reply.body.decode("utf-8"))  # valid UTF-8 JSON


# Bug 4. src/genmcp/transports/http/rules.py, decode_header_value(): `value.strip()` strips Unicode
# whitespace, so obs-text bytes 0xA0 / 0x85 (latin-1 "\xa0" / "\x85") vanish and
# `Mcp-Name: echo<0xA0>` is accepted as "echo" although the header has invalid characters.
# Fix: `value = value.strip(" \t")` (HTTP optional whitespace only).
@pytest.mark.parametrize("sent", [b"echo\xa0", b"\x85echo"], ids=["nbsp", "nel"])
async def test_non_ascii_padding_in_a_header_is_a_header_mismatch(
    client: ModernClient, sent: bytes
) -> None:
    params = {"name": "echo", "arguments": {"n": 1}}
    reply = await client.request("tools/call", params, id=1, headers={"Mcp-Name": sent})
    assert_error(reply, 400, HEADER_MISMATCH, id=1)


# Bug 5 (minor). src/genmcp/transports/http/rules.py, _same_value(): int(sent) also accepts
# "1_000" and non-ASCII digits (U+0667 via base64), which are not decimal encodings.
# Fix: require re.fullmatch(r"-?[0-9]+", sent) before int(sent).
@pytest.mark.parametrize(
    ("days", "sent"),
    [(1000, "1_000"), (7, "=?base64?" + base64.b64encode("\u0667".encode()).decode() + "?=")],
    ids=["underscore", "arabic-indic-digit"],
)
async def test_integer_param_headers_must_be_decimal(
    client: ModernClient, days: int, sent: str
) -> None:
    reply = await client.request(
        "tools/call",
        {"name": "forecast", "arguments": {"days": days}},
        id="f",
        headers={"Mcp-Param-Days": sent},
    )
    assert_error(reply, 400, HEADER_MISMATCH, id="f", message="Mcp-Param-Days")


# Bug 6. src/genmcp/suite.py, _input_responses(): only checks that each answer is an object,
# so an ElicitResult with a non-object `content` or an unknown `action` reaches the tool
# (examples/app.py's delete_files then crashes: -32603; or treats "maybe" as a decline).
# Spec digest §9: malformed inputResponses -> JSON-RPC error (-32602).
# Fix: seal the asked keys and their methods into requestState and, on the retry, check each
# answer against its result shape (ElicitResult: action in accept/decline/cancel, content an
# object; CreateMessageResult; ListRootsResult) before calling the tool.
@pytest.mark.parametrize(
    "answer",
    [{"action": "accept", "content": "yes"}, {"action": "maybe"}],
    ids=["content-not-object", "unknown-action"],
)
async def test_malformed_input_responses_are_invalid_params(
    servers: dict[str, str], modern_client: Any, answer: dict[str, Any]
) -> None:
    client: ModernClient = modern_client(servers["example"], transport=plain_http())
    caps = {"elicitation": {}}
    params: dict[str, Any] = {"name": "delete_files", "arguments": {"paths": ["a"]}}
    first = await client.request("tools/call", params, capabilities=caps)
    retry = {
        **params,
        "inputResponses": {"confirm": answer},
        "requestState": first.result["requestState"],
    }
    reply = await client.request("tools/call", retry, id="r", capabilities=caps)
    assert_error(reply, 200, INVALID_PARAMS, id="r", message="inputResponses")

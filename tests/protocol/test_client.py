"""protocol.client: a client's requests, their Streamable HTTP headers, and SSE replies."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from genmcp.protocol.client import (
    EventTooLarge,
    SSEParser,
    as_object,
    build_request,
    encode_header_value,
    header_params,
    header_problem,
    is_modern_error,
    request_headers,
)
from genmcp.protocol.versions import META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION


def test_a_request_carries_the_version_and_capabilities_in_its_meta() -> None:
    message = build_request(
        "tools/call",
        {"name": "add"},
        7,
        version="2026-07-28",
        capabilities={"elicitation": {}},
        progress_token="p1",
        meta={"extra": True},
    )

    meta = message["params"]["_meta"]
    assert message["id"] == 7 and message["params"]["name"] == "add"
    assert meta[META_PROTOCOL_VERSION] == "2026-07-28"
    assert meta[META_CLIENT_CAPABILITIES] == {"elicitation": {}}
    assert meta["progressToken"] == "p1" and meta["extra"] is True


def test_meta_given_last_overrides_what_the_builder_put() -> None:
    message = build_request(
        "ping", None, 1, version="2026-07-28", capabilities={},
        meta={META_PROTOCOL_VERSION: "broken"},
    )  # fmt: skip
    assert message["params"]["_meta"][META_PROTOCOL_VERSION] == "broken"


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ("add", "add"),
        (True, "true"),
        (12, "12"),
        (" padded", None),
        ("caf\u00e9", None),
        ("=?base64?looks-encoded", None),
    ],
)
def test_header_values_are_plain_when_safe_else_base64(value: object, plain: str | None) -> None:
    encoded = encode_header_value(value)  # type: ignore[arg-type]
    if plain is not None:
        assert encoded == plain
        return
    assert encoded.startswith("=?base64?") and encoded.endswith("?=")
    assert base64.b64decode(encoded[9:-2]).decode() == value


def test_headers_name_the_method_the_target_and_the_declared_params() -> None:
    message = build_request(
        "tools/call",
        {"name": "lookup", "arguments": {"region": "eu", "n": 3, "skip": 1.5}},
        1,
        version="2026-07-28",
        capabilities={},
    )
    schema = {
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "skip": {"type": "number", "x-mcp-header": "Skip"},
            "other": {"type": "string"},
        }
    }

    headers = request_headers(message, header_params(schema))

    assert headers["mcp-protocol-version"] == "2026-07-28"
    assert (headers["mcp-method"], headers["mcp-name"]) == ("tools/call", "lookup")
    assert (headers["mcp-param-region"], headers["mcp-param-n"]) == ("eu", "3")
    assert "mcp-param-skip" not in headers  # a float is not sent as a header


def test_a_notification_has_no_method_header_and_junk_gets_the_bare_headers() -> None:
    notice = {"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}}
    assert "mcp-method" not in request_headers(notice)
    assert request_headers(["not", "a", "message"]) == {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
    }


def test_header_params_ignore_a_schema_without_properties() -> None:
    assert header_params({"type": "object"}) == {} and header_params(None) == {}


def test_sse_events_are_collected_across_chunks_and_comments_skipped() -> None:
    parser = SSEParser()
    assert parser.feed(b': ping\n\nid: 4\ndata: {"a"') == []
    assert parser.feed(b": 1}\n\n") == ['{"a": 1}']
    assert parser.last_id == "4"


def test_sse_multi_line_data_crlf_and_a_split_utf8_character() -> None:
    parser = SSEParser()
    body = "data: one\r\ndata: caf\u00e9\r\n\r\n".encode()
    cut = body.index("\u00e9".encode()) + 1  # inside the two bytes of the accent
    assert parser.feed(body[:cut]) == []
    assert parser.feed(body[cut:]) == ["one\ncaf\u00e9"]


def test_a_priming_event_sets_the_id_but_yields_no_data_and_the_end_flushes() -> None:
    parser = SSEParser()
    assert parser.feed(b"id: prime\nretry: 100\ndata:\n\n") == []
    assert parser.last_id == "prime"
    assert parser.feed(b"data: last", final=True) == ["last"]


def test_the_retry_field_is_kept_for_resuming() -> None:
    parser = SSEParser()
    assert parser.feed(b"id: e1\nretry: 500\ndata: \n\nretry: soon\n\n") == []
    assert (parser.last_id, parser.retry_ms) == ("e1", 500)


@pytest.mark.parametrize(
    ("properties", "problem"),
    [
        ({"r": {"type": "string", "x-mcp-header": "Region"}}, None),
        ({"r": {"type": "string", "x-mcp-header": ""}}, "not a non-empty HTTP token"),
        ({"r": {"type": "string", "x-mcp-header": "Re gion"}}, "not a non-empty HTTP token"),
        ({"r": {"type": "string", "x-mcp-header": "Région"}}, "not a non-empty HTTP token"),
        ({"r": {"type": "object", "x-mcp-header": "R"}}, "string, integer or boolean"),
        ({"r": {"type": "number", "x-mcp-header": "R"}}, "string, integer or boolean"),
        ({"a": {"type": "string", "x-mcp-header": "R"},
          "b": {"type": "integer", "x-mcp-header": "r"}}, "used twice"),
    ],
)  # fmt: skip
def test_header_problems_name_the_broken_rule(
    properties: dict[str, Any], problem: str | None
) -> None:
    found = header_problem({"type": "object", "properties": properties})
    assert (found is None) if problem is None else (problem in (found or ""))


def test_modern_errors_and_objects() -> None:
    assert is_modern_error({"code": -32020, "message": "m"})
    assert is_modern_error({"code": -32022, "data": {"supported": ["2026-07-28"]}})
    assert not is_modern_error({"code": -32022, "data": {"supported": ["2025-11-25"]}})
    assert not is_modern_error({"code": -32600}) and not is_modern_error("junk")
    assert as_object({"a": 1}) == {"a": 1} and as_object([1]) == {} and as_object(None) == {}


def test_task_methods_name_their_task_in_mcp_name() -> None:
    message = build_request("tasks/get", {"taskId": "t-1"}, 1, version="2026-07-28",
                            capabilities={})  # fmt: skip
    assert request_headers(message)["mcp-name"] == "t-1"


def test_the_sse_parser_searches_each_byte_once() -> None:
    # issue 48: it re-scanned its whole buffer per chunk, quadratic in an event's size
    parser, chunk, chunks = SSEParser(), b"x" * 1000, 2000
    assert parser.feed(b"data: ") == []
    for _ in range(chunks):
        assert parser.feed(chunk) == []
    assert parser.feed(b"\n\n") == ["x" * 1000 * chunks]
    assert parser.scanned == len(b"data: ") + 1000 * chunks + 2


def test_an_sse_event_over_max_event_raises_as_soon_as_it_passes() -> None:
    parser, fed = SSEParser(max_event=10_000), 0
    assert parser.feed(b"data: small\n\n") == ["small"]
    with pytest.raises(EventTooLarge, match="longer than 10000 bytes"):
        for _ in range(50):  # 50,000 bytes on offer, never one event's end
            parser.feed(b"data: " + b"x" * 994 + b"\n")
            fed += 1000
    assert fed == 10_000  # the eleventh line passed the bound: nothing after it was read
    one_line = SSEParser(max_event=10_000)
    with pytest.raises(EventTooLarge):
        for _ in range(50):
            one_line.feed(b"x" * 1000)  # one line that never ends counts too

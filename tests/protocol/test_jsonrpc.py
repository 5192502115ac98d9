"""protocol.jsonrpc: the envelope, its encoding and the hardened decoding of bodies.

Pre-encoded results (cached list pages) splice into responses byte-for-byte correctly;
bodies nested too deeply or carrying numbers JSON cannot hold are precise parse errors (the
decoding cases moved here from test_schema_hostile.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from genmcp.errors import MCPError
from genmcp.protocol import jsonrpc
from genmcp.protocol.jsonrpc import (
    EncodedResult,
    EnvelopeError,
    decode_json,
    encode,
    error_response,
    result_response,
)

PARSE_ERROR = -32700

RESULT = {"resultType": "complete", "tools": [{"name": "é", "description": "a\u2028b"}]}


@pytest.mark.parametrize("request_id", [1, 0, -7, "x", "é\u2028", "\ud800", 2**70])
def test_a_spliced_response_decodes_to_the_plain_one(request_id: Any) -> None:
    spliced = encode(result_response(request_id, EncodedResult(RESULT)))
    plain = encode(result_response(request_id, dict(RESULT)))
    assert json.loads(spliced) == json.loads(plain)
    if request_id != "\ud800":  # a lone surrogate sends the plain encoding to ASCII escapes
        assert spliced == plain


def test_the_result_is_encoded_once_and_reused() -> None:
    result = EncodedResult(RESULT)
    result.encoded = b'{"marker":true}'  # proves encode() reuses the bytes
    assert json.loads(encode(result_response(1, result)))["result"] == {"marker": True}


def test_other_messages_are_encoded_normally() -> None:
    error = encode(error_response(3, MCPError("invalid_params", "bad")))
    assert json.loads(error) == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": -32602, "message": "bad"},
    }
    nested = {"jsonrpc": "2.0", "id": 1, "result": {"inner": EncodedResult(RESULT)}}
    assert json.loads(encode(nested))["result"]["inner"] == RESULT


# -- decoding bodies -----------------------------------------------------------------------


def nested(depth: int, leaf: str = "0") -> str:
    return "[" * depth + leaf + "]" * depth


@pytest.mark.parametrize("depth", [1, 63, 64])
def test_nesting_up_to_the_limit_decodes(depth: int) -> None:
    assert jsonrpc.MAX_JSON_DEPTH == 64
    text = nested(depth)
    assert decode_json(text.encode()) == json.loads(text)
    assert decode_json('{"a":' * depth + "1" + "}" * depth) == json.loads(
        '{"a":' * depth + "1" + "}" * depth
    )


@pytest.mark.timeout(5)
@pytest.mark.parametrize("depth", [65, 900, 100_000, 1_000_000])
def test_nesting_beyond_the_limit_is_a_parse_error(depth: int) -> None:
    with pytest.raises(EnvelopeError) as caught:
        decode_json(nested(depth).encode())
    assert (caught.value.code, caught.value.message) == (
        PARSE_ERROR,
        "Parse error: JSON nested deeper than 64 levels",
    )


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    body = json.dumps({"a": "[" * 10_000, "b": [[["{" * 500]]]})
    assert decode_json(body)["a"] == "[" * 10_000


def test_the_depth_limit_is_a_knob(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonrpc, "MAX_JSON_DEPTH", 3)
    assert decode_json("[[[1]]]") == [[[1]]]
    with pytest.raises(EnvelopeError, match="deeper than 3 levels"):
        decode_json('{"a":[{"b":[1]}]}')


@pytest.mark.timeout(5)
@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("1" * 100_000, "Parse error: an integer has over 4300 digits"),
        ("-" + "9" * 4_301, "Parse error: an integer has over 4300 digits"),
        ("[NaN]", "Parse error: NaN is not JSON"),
        ('{"x": -Infinity}', "Parse error: -Infinity is not JSON"),
        ("[1e400]", "Parse error: 1e400 is out of range"),
        ("1" * 400 + ".5", "Parse error: " + "1" * 40 + " is out of range"),
    ],
)
def test_numbers_json_cannot_carry_are_parse_errors(body: str, message: str) -> None:
    with pytest.raises(EnvelopeError) as caught:
        decode_json(body)
    assert (caught.value.code, caught.value.message) == (PARSE_ERROR, message)


def test_numbers_within_range_decode() -> None:
    assert decode_json("1" * 4_300) == int("1" * 4_300)
    assert decode_json("[1.5e308, -0.0, 0.1]") == [1.5e308, -0.0, 0.1]
    assert decode_json("0." + "1" * 100_000) == pytest.approx(0.1111111111111111)

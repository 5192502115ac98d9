"""Pre-encoded results (cached list pages) splice into responses byte-for-byte correctly."""

from __future__ import annotations

import json
from typing import Any

import pytest

from genmcp.errors import MCPError
from genmcp.protocol.jsonrpc import EncodedResult, encode, error_response, result_response

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

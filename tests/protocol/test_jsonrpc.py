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
    Notification,
    Request,
    Response,
    decode_json,
    encode,
    error_response,
    is_request_id,
    notification,
    parse,
    parse_message,
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


@pytest.mark.timeout(30)
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


@pytest.mark.timeout(30)
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


# -- parsing one message ---------------------------------------------------------------------

BAD_ID = '"id" must be a string or an integer'


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"jsonrpc":"2.0","id":1,"method":"ping"}', Request(1, "ping")),
        ('{"jsonrpc":"2.0","id":"a","method":"m","params":{"x":1}}', Request("a", "m", {"x": 1})),
        ('{"jsonrpc":"2.0","id":0,"method":"m","params":null}', Request(0, "m")),
        ('{"jsonrpc":"2.0","method":"notifications/x"}', Notification("notifications/x")),
        ('{"jsonrpc":"2.0","id":7,"result":{}}', Response(7, {})),
        (
            '{"jsonrpc":"2.0","id":"r","error":{"code":-1,"message":"no"}}',
            Response("r", None, {"code": -1, "message": "no"}),
        ),
    ],
)
def test_parse(body: str, message: object) -> None:
    assert parse(body) == message
    assert parse(body.encode("utf-16")) == message  # JSON allows UTF-16 bodies


@pytest.mark.parametrize(
    ("obj", "message", "request_id"),
    [
        ([], "Invalid Request: expected a JSON object", None),
        ({"id": 1, "method": "m"}, 'Invalid Request: "jsonrpc" must be "2.0"', 1),
        ({"jsonrpc": "1.0", "id": "x", "method": "m"}, '"jsonrpc" must be "2.0"', "x"),
        ({"jsonrpc": "2.0", "id": 2, "method": ""}, '"method" must be a non-empty string', 2),
        ({"jsonrpc": "2.0", "id": 3, "method": 5}, '"method" must be a non-empty string', 3),
        ({"jsonrpc": "2.0", "id": 4, "method": "m", "params": []}, '"params" must be an object', 4),
        ({"jsonrpc": "2.0", "id": True, "method": "m"}, BAD_ID, None),
        ({"jsonrpc": "2.0", "id": None, "method": "m"}, BAD_ID, None),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "m"}, BAD_ID, None),
        ({"jsonrpc": "2.0"}, 'Invalid Request: missing "method"', None),
        ({"jsonrpc": "2.0", "id": [1], "result": {}}, 'a response "id" must be a string', None),
        # a malformed response is never answered: its id is not kept
        ({"jsonrpc": "2.0", "id": 5}, "a response has exactly one of result and error", None),
        ({"jsonrpc": "2.0", "id": 5, "result": {}, "error": {"code": 1, "message": "m"}},
         "exactly one of result and error", None),
        ({"jsonrpc": "2.0", "id": 6, "error": {"code": "1", "message": "m"}},
         'a response "error" is an object with an integer "code"', None),
        ({"jsonrpc": "2.0", "id": 6, "error": {"code": True, "message": "m"}},
         'integer "code"', None),
        ({"jsonrpc": "2.0", "id": 6, "error": {"code": 1}}, 'a string "message"', None),
        ({"jsonrpc": "2.0", "id": 8, "result": [1]}, 'a response "result" must be an object', None),
    ],
)  # fmt: skip
def test_what_is_no_message_is_invalid_request_keeping_a_valid_id(
    obj: Any, message: str, request_id: Any
) -> None:
    with pytest.raises(EnvelopeError) as caught:
        parse_message(obj)
    assert caught.value.reason == "invalid_request"
    assert message in caught.value.message
    assert caught.value.request_id == request_id


def test_a_batch_is_refused_and_garbage_is_a_parse_error() -> None:
    with pytest.raises(EnvelopeError) as caught:
        parse('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')
    assert caught.value.reason == "batch_rejected"
    for garbage in (b"", b"{", b"\xff\xfe\x00", b'{"a":1}x'):
        with pytest.raises(EnvelopeError) as caught:
            parse(garbage)
        assert (caught.value.reason, caught.value.code) == ("parse_error", PARSE_ERROR)


@pytest.mark.parametrize(
    ("value", "ok"), [(1, True), ("a", True), (0, True), (True, False), (None, False), (1.0, False)]
)
def test_is_request_id(value: Any, ok: bool) -> None:
    assert is_request_id(value) is ok


def test_the_envelope_builders() -> None:
    assert result_response("r", {}) == {"jsonrpc": "2.0", "id": "r", "result": {}}
    error = MCPError("invalid_params", "bad", {"k": 1})
    assert error_response(None, error) == {
        "jsonrpc": "2.0",
        "error": {"code": -32602, "message": "bad", "data": {"k": 1}},
    }  # an unknown id is left out, never null
    assert notification("n") == {"jsonrpc": "2.0", "method": "n"}
    assert notification("n", {}) == {"jsonrpc": "2.0", "method": "n", "params": {}}


def test_encode_is_compact_utf8_and_escapes_a_lone_surrogate() -> None:
    assert encode({"a": "é", "b": [1, 2]}) == '{"a":"é","b":[1,2]}'.encode()
    assert encode({"a": "\ud800"}) == b'{"a":"\\ud800"}'


# -- the codec: orjson, with the standard library's rules ------------------------------------


def test_orjson_is_the_codec_when_installed() -> None:
    orjson = pytest.importorskip("orjson")  # a dependency wherever it has wheels
    assert (jsonrpc._loads, jsonrpc._dumps) == (orjson.loads, orjson.dumps)


@pytest.mark.parametrize(
    "body",
    [
        b'{"id":123456789012345678901,"n":-9223372036854775809}',  # past 64 bits: ints, not floats
        b'{"n":[1234567890123456789,1e2,123456789012345678]}',  # 19 digits, then 18 (orjson)
        b'{"s":"12345678901234567890123","n":0.1234567890123456789}',  # long runs, no long int
        b'{"a":"\\ud800","b":"\\udfff x"}',  # lone surrogates: valid JSON text
        '{"a":"é"}'.encode("utf-16"),  # UTF-16 with its BOM
        b'{"a":1,"a":2}',  # the last duplicate wins
        b'{"x":[1.5e308,-0.0,0.1,1E5]}',
    ],
)
def test_bytes_decode_as_the_standard_library_decodes_them(body: bytes) -> None:
    text = body.decode(json.detect_encoding(body), "surrogatepass")
    expected = json.JSONDecoder().decode(text)
    value = decode_json(body)
    assert value == expected
    assert json.dumps(value) == json.dumps(expected)  # same types: 2**70 stays an int


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"[NaN]", "Parse error: NaN is not JSON"),
        (b"[1e400]", "Parse error: 1e400 is out of range"),
        (b"1" * 5_000, "Parse error: an integer has over 4300 digits"),
        (nested(65).encode(), "Parse error: JSON nested deeper than 64 levels"),
        (nested(5_000).encode(), "Parse error: JSON nested deeper than 64 levels"),
        (b'\xef\xbb\xbf{"a":1}', "Parse error: the body is not valid JSON"),  # a UTF-8 BOM
    ],
)
def test_bytes_refused_say_why_as_before(body: bytes, message: str) -> None:
    with pytest.raises(EnvelopeError) as caught:
        decode_json(body)
    assert (caught.value.code, caught.value.message) == (PARSE_ERROR, message)


def test_encoding_gives_the_standard_librarys_bytes() -> None:
    stdlib = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    texts = ["", "é", "日本語", "\x00\x1f\x7f", '"\\/', "\u2028\u2029", "😀", "a\tb\nc"]
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {t or "k": [t, 1, -2, 0.1, 1e16, 1 / 3, True, None] for t in texts},
    }
    assert encode(message) == stdlib.encode(message).encode()


def test_what_orjson_cannot_encode_is_encoded_the_standard_librarys_way() -> None:
    assert encode({"n": 2**70, 1: "int key"}) == b'{"n":1180591620717411303424,"1":"int key"}'
    assert encode(["\udfff"]) == b'["\\udfff"]'
    assert encode({"x": float("nan")}) in (b'{"x":null}', b'{"x":NaN}')  # orjson: null

"""Hostile arguments and bodies: each case must be answered fast and precisely, never hang.

The corpus is what DESIGN §9 names: catastrophic regexes (`pattern`, `patternProperties`,
`format: regex`), `uniqueItems` over many objects, huge arrays, deep nesting, huge numbers
and strings near the body cap. `@pytest.mark.timeout(5)` is a hang guard, not a benchmark:
before the hardening each of these cases ran for seconds to hours (bench/validation/).
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from fastapi import FastAPI

from genmcp import Channel, InvalidArguments, Result, Suite, Tool, ToolRequest, call_tool_result
from genmcp.protocol import jsonrpc
from genmcp.protocol.jsonrpc import EnvelopeError, decode_json
from genmcp.schema import compile_schema, merge_options
from genmcp.schema import limits as schema_module
from genmcp.transports.fastapi import mcp_router
from genmcp.transports.http import MAX_BODY_BYTES
from support.client import ModernClient

PARSE_ERROR = -32700


def validate(schema: dict[str, Any], arguments: Any, **options: Any) -> str | None:
    """None when valid, else the client-facing description of the failure."""
    validator = compile_schema(schema, owner="T", options=merge_options(None, options, owner="T"))
    try:
        validator.validate(arguments)
    except InvalidArguments as exc:
        return exc.describe()
    return None


@pytest.fixture
def roomy_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests of complexity: the time budget must not be what keeps them short."""
    monkeypatch.setattr(schema_module, "VALIDATION_BUDGET_S", 30.0, raising=False)


def string_with(pattern: str) -> dict[str, Any]:
    return {"type": "string", "pattern": pattern}


# -- pattern: linear time ---------------------------------------------------------------

CATASTROPHIC = [
    r"^(a|a)*$",
    r"^(a+)+$",
    r"^(a|aa)+$",
    r"^(\w+\s?)*$",
    r"^([a-zA-Z0-9]+([._-]?[a-zA-Z0-9]+)*)*@example\.com$",
]


@pytest.mark.timeout(5)
@pytest.mark.parametrize("pattern", CATASTROPHIC)
@pytest.mark.parametrize("length", [27, 1_000_000])
def test_catastrophic_patterns_answer_fast_on_long_input(pattern: str, length: int) -> None:
    # stdlib re: 1.8 s at 24 characters for (a|a)*, doubling with each more one.
    problem = validate(string_with(pattern), "a" * length + "!")
    assert problem is not None and "does not match" in problem


@pytest.mark.timeout(5)
def test_a_catastrophic_pattern_still_accepts_what_matches() -> None:
    assert validate(string_with(r"^(a|a)*$"), "a" * 100_000) is None


@pytest.mark.timeout(5)
def test_pattern_properties_use_the_linear_engine() -> None:
    schema = {
        "type": "object",
        "patternProperties": {r"^(a|a)*$": {"type": "integer"}},
        "additionalProperties": False,
    }
    assert validate(schema, {"a" * 30: 1}) is None
    assert "is not of type 'integer'" in (validate(schema, {"a" * 30: "x"}) or "")
    hostile = {"a" * 40 + "!": 1, "a" * 500_000 + "!": 2}
    problem = validate(schema, hostile)
    assert problem is not None and "do not match any of the regexes" in problem


@pytest.mark.timeout(5)
def test_additional_properties_with_a_dict_schema_check_unmatched_names() -> None:
    schema = {
        "type": "object",
        "patternProperties": {r"^(x|x)*$": {}},
        "additionalProperties": {"type": "string"},
    }
    assert validate(schema, {"x" * 40: 5, "other": "s"}) is None
    assert "is not of type 'string'" in (validate(schema, {"x" * 40 + "!": 5}) or "")


@pytest.mark.parametrize(
    ("pattern", "text", "valid"),
    [
        (r"^[a-z]+$", "abc\n", False),  # Python's $ also matches before a final newline
        (r"^\d$", "\u0663", False),  # ECMA-262 \d is ASCII
        (r"^\w+$", "\u00e9t\u00e9", False),  # and so is \w
        (r"^\s$", "\u00a0", True),  # but \s is Unicode white space
        (r"^\s$", "\v", True),
        (r"^[\s]$", "\u3000", True),
        (r"^\S+$", "a\u2028b", False),
        (r"^\u00e9$", "\u00e9", True),
        (r"^\uD83D\uDE00$", "\U0001f600", True),
        (r"^.$", "\U0001f600", True),
        (r"^.$", "\ud800", True),  # a lone surrogate (legal JSON) is one character
        (r"^[^a]+$", "\ud800\udfff", True),
    ],
)
def test_patterns_follow_ecma_262(pattern: str, text: str, valid: bool) -> None:
    assert (validate(string_with(pattern), text) is None) is valid


def test_the_schema_is_advertised_verbatim() -> None:
    schema = {
        "type": "object",
        "properties": {"s": string_with(r"^\u00e9\s+$")},
        "patternProperties": {r"^(a|a)*$": {}},
    }
    assert compile_schema(schema, owner="T").advertised == schema


# -- patterns RE2 cannot run: Python's re, guarded ----------------------------------------


def test_lookaround_patterns_run_on_short_strings() -> None:
    schema = string_with(r"^(?=.*\d)(?!.*admin)\w{3,}$")
    assert validate(schema, "abc1", backtracking_patterns=True) is None
    assert validate(schema, "admin1", backtracking_patterns=True) is not None


@pytest.mark.timeout(5)
def test_lookaround_patterns_refuse_long_strings_unchecked() -> None:
    schema = string_with(r"^(?=.*\d).*$")
    limit = schema_module.BACKTRACKING_MAX_CHARS
    assert validate(schema, "a" * (limit - 1) + "1", backtracking_patterns=True) is None
    problem = validate(schema, "a" * limit + "1", backtracking_patterns=True)
    assert problem is not None and f"over the {limit}" in problem


@pytest.mark.parametrize("pattern", [r"^(a+)+\1$", r"^(?:(?=a)a|a)*$", r"^(\w+\s?)*(?<!x)$"])
def test_exponential_backtracking_patterns_are_refused_at_build(pattern: str) -> None:
    with pytest.raises(ValueError, match="nests a repeat inside a repeat"):
        compile_schema({"type": "object", "properties": {"p": string_with(pattern)}}, owner="T")


def test_a_tool_with_an_exponential_pattern_fails_when_the_suite_is_built() -> None:
    class Bad(Tool, name="bad", input_schema={"patternProperties": {r"(x+)+(?=y)": {}}}):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
            raise AssertionError("never called")

    expected = r"Bad: at /patternProperties/.*: pattern '\(x\+\)\+\(\?=y\)'"
    with pytest.raises(ValueError, match=expected):
        Suite(server_name="s", server_version="1", tools=[Bad], secret_key="k" * 48)


def test_pattern_like_data_is_not_taken_for_a_pattern() -> None:
    schema = {
        "type": "object",
        "properties": {"pattern": {"type": "string", "default": r"(a+)+\1"}},
        "examples": [{"pattern": r"(a+)+\1"}],
    }
    assert validate(schema, {"pattern": "x"}) is None


# -- format: regex -------------------------------------------------------------------------


@pytest.mark.timeout(5)
def test_format_regex_refuses_long_strings_without_compiling() -> None:
    # re.compile of a 1 MB literal takes ~25 s
    schema = {"type": "string", "format": "regex"}
    problem = validate(schema, "a" * 1_000_000)
    assert problem is not None and "not checked" in problem
    assert validate(schema, "a" * schema_module.REGEX_FORMAT_MAX_CHARS) is None


@pytest.mark.timeout(5)
def test_format_regex_answers_deep_groups_as_invalid_not_as_a_crash() -> None:
    schema = {"type": "string", "format": "regex"}
    assert validate(schema, "(" * 480 + ")" * 480) is None  # RE2 takes it
    problem = validate(schema, "(" * 480 + ")" * 480 + r"\1")  # RecursionError inside re
    assert problem is not None and problem.endswith("is not a 'regex' (nested too deeply to check)")


@pytest.mark.parametrize(
    ("text", "valid"), [(r"(?<year>\d{4})", True), (r"\p{L}+", True), ("(a", False)]
)
def test_format_regex_accepts_ecma_syntax(text: str, valid: bool) -> None:
    assert (validate({"format": "regex"}, text) is None) is valid


def test_schemas_may_use_ecma_only_pattern_syntax() -> None:
    assert validate(string_with(r"^\p{Lu}"), "\u00c9t\u00e9") is None


# -- uniqueItems -----------------------------------------------------------------------------


@pytest.mark.timeout(5)
@pytest.mark.usefixtures("roomy_budget")
def test_unique_items_over_many_objects_is_not_quadratic() -> None:
    # jsonschema compares objects pairwise: 20k objects are 2e8 deep comparisons
    schema = {"type": "array", "uniqueItems": True}
    objects: list[Any] = [{"id": i, "tags": ["t", i]} for i in range(20_000)]
    assert validate(schema, objects) is None
    problem = validate(schema, [*objects, {"tags": ["t", 7], "id": 7.0}])
    assert problem == "arguments: array has non-unique elements (items 7 and 20000 are equal)"


@pytest.mark.timeout(5)
@pytest.mark.usefixtures("roomy_budget")
def test_unique_items_over_mixed_scalars_is_not_quadratic() -> None:
    # sorting strings with numbers fails, and jsonschema then goes pairwise
    mixed: list[Any] = [x for i in range(100_000) for x in (str(i), i)]
    assert validate({"uniqueItems": True}, mixed) is None
    assert validate({"uniqueItems": True}, [*mixed, "99999"]) is not None


@pytest.mark.parametrize(
    ("items", "unique"),
    [
        ([1, 1.0], False),
        ([0, -0.0], False),
        ([1, True], True),
        ([0, False, None, "", [], {}], True),
        (["1", 1], True),
        ([[1, {"a": 2}], [1.0, {"a": 2.0}]], False),
        ([{"a": 1, "b": 2}, {"b": 2, "a": 1}], False),
        ([{"a": [1]}, {"a": [True]}], True),
        ([[1, 2], [2, 1]], True),
        ([float("nan"), float("nan")], True),  # in-process only: NaN is not JSON
        ([2**61 - 1, 0, 2 * (2**61 - 1)], True),  # equal int hashes, different values
        (["x", "x"], False),
        ([3, 1, 2, 3.0], False),
    ],
)
def test_unique_items_uses_json_equality(items: list[Any], unique: bool) -> None:
    assert (validate({"uniqueItems": True}, items) is None) is unique


# -- unevaluatedProperties / unevaluatedItems (2020-12) ------------------------------------


@pytest.mark.timeout(5)
def test_unevaluated_properties_use_the_linear_engine() -> None:
    schema = {"patternProperties": {r"^(a|a)*$": {}}, "unevaluatedProperties": False}
    assert validate(schema, {"a" * 40: 1}) is None
    problem = validate(schema, {"a" * 40 + "!": 1})
    assert problem is not None and "Unevaluated properties are not allowed (1 unexpected" in problem


@pytest.mark.timeout(5)
@pytest.mark.usefixtures("roomy_budget")
def test_unevaluated_properties_over_many_keys_is_not_quadratic() -> None:
    # jsonschema looks each key up in a list of the evaluated ones: 40k keys, 8e8 compares
    schema = {"allOf": [{"properties": {"x": {}}}], "additionalProperties": {}}
    keys = {f"k{i}": i for i in range(40_000)}
    assert validate({**schema, "unevaluatedProperties": False}, keys) is None


@pytest.mark.timeout(5)
@pytest.mark.usefixtures("roomy_budget")
def test_unevaluated_items_over_many_items_is_not_quadratic() -> None:
    schema = {"prefixItems": [{}], "items": {}, "unevaluatedItems": False}
    assert validate(schema, list(range(50_000))) is None


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"properties": {"a": {}}}, {"a": 1, "b": 2}),
        ({"patternProperties": {"^x": {}}}, {"x1": 1, "y": 1}),
        ({"allOf": [{"properties": {"a": {}}}]}, {"a": 1}),
        ({"anyOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}]}, {"a": 1}),
        ({"if": {"required": ["k"]}, "then": {"properties": {"t": {}}}}, {"k": 1, "t": 1}),
        ({"if": {"required": ["k"]}, "else": {"properties": {"e": {}}}}, {"e": 1}),
        ({"dependentSchemas": {"d": {"properties": {"d": {}, "dd": {}}}}}, {"d": 1, "dd": 1}),
        ({"$defs": {"b": {"properties": {"a": {}}}}, "$ref": "#/$defs/b"}, {"a": 1}),
        ({"additionalProperties": {"type": "string"}}, {"a": 1}),
    ],
)
@pytest.mark.parametrize("unevaluated", [False, {"type": "integer"}])
def test_unevaluated_properties_agree_with_jsonschema(
    schema: dict[str, Any], instance: dict[str, Any], unevaluated: Any
) -> None:
    full = {**schema, "unevaluatedProperties": unevaluated}
    expected = jsonschema.Draft202012Validator(full).is_valid(instance)
    assert (validate(full, instance) is None) is expected


# -- the validation budget and the error report ---------------------------------------------


@pytest.mark.timeout(5)
def test_validation_stops_at_its_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # jsonschema spends ~10 us per item: 2M items would take ~20 s (multipleOf keeps this
    # schema off the fast path, which would accept it in a fraction of a second)
    monkeypatch.setattr(schema_module, "VALIDATION_BUDGET_S", 0.05)
    slow = {"type": "array", "items": {"type": "integer", "multipleOf": 1}}
    problem = validate(slow, [1] * 2_000_000)
    assert problem == "arguments: validation stopped after 0.05 s: the arguments are too large"


@pytest.mark.timeout(5)
def test_only_the_first_errors_are_collected_and_messages_are_short() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    validator = compile_schema(schema, owner="T")
    with pytest.raises(InvalidArguments) as caught:
        validator.validate([1] * 1_000_000)
    assert len(caught.value.errors) == schema_module.MAX_REPORTED_ERRORS
    with pytest.raises(InvalidArguments) as caught:
        compile_schema({"type": "integer"}, owner="T").validate("z" * 4_000_000)
    (entry,) = caught.value.errors
    assert entry["msg"].endswith("is not of type 'integer'")
    assert len(entry["msg"]) <= schema_module.MAX_MESSAGE_CHARS


@pytest.mark.timeout(5)
def test_in_process_nesting_beyond_the_stack_is_invalid_not_a_crash() -> None:
    deep: Any = "leaf"
    for _ in range(5_000):
        deep = [deep]
    schema = {"$defs": {"t": {"anyOf": [{"type": "string"}, {"items": {"$ref": "#/$defs/t"}}]}}}
    problem = validate({**schema, "$ref": "#/$defs/t"}, deep)
    assert problem == "arguments: arguments are nested too deeply to validate"


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


# -- over a real server ----------------------------------------------------------------------


class Guarded(
    Tool,
    name="guarded",
    input_schema={
        "type": "object",
        "properties": {
            "word": {"type": "string", "pattern": r"^(a|a)*$"},
            "things": {"type": "array", "uniqueItems": True},
            "numbers": {"type": "array", "items": {"type": "integer"}},
            "tree": {},
        },
        "additionalProperties": False,
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="accepted"))


@pytest.fixture
def client(live_server: Any, modern_client: Any) -> ModernClient:
    app = FastAPI()
    app.include_router(
        mcp_router(server_name="t", server_version="1", tools=[Guarded]), prefix="/mcp"
    )
    made: ModernClient = modern_client(live_server(app), timeout=4.0)
    return made


def call_body(client: ModernClient, arguments_json: str) -> tuple[str, dict[str, Any]]:
    """A tools/call body whose arguments are the raw JSON text given."""
    body, headers = client.build("tools/call", {"name": "guarded", "arguments": {"$": 0}}, id=9)
    text = json.dumps(body).replace('{"$": 0}', arguments_json)
    assert arguments_json in text
    return text, headers


async def tool_error(client: ModernClient, arguments_json: str) -> str:
    text, headers = call_body(client, arguments_json)
    reply = await client.raw_post(text, headers)
    assert reply.status == 200, reply.body[:300]
    assert reply.result is not None and reply.result["isError"] is True, reply.body[:300]
    message: str = reply.result["content"][0]["text"]
    return message


@pytest.mark.timeout(5)
async def test_a_catastrophic_pattern_over_http_is_an_error_result(client: ModernClient) -> None:
    accepted = await client.request(
        "tools/call", {"name": "guarded", "arguments": {"word": "a" * 27}}
    )
    assert accepted.result["content"][0]["text"] == "accepted"
    message = await tool_error(client, json.dumps({"word": "a" * 27 + "!"}))
    assert "Invalid arguments for tool 'guarded'" in message and "does not match" in message


@pytest.mark.timeout(5)
async def test_a_string_near_the_body_cap_is_answered(client: ModernClient) -> None:
    word = "a" * (MAX_BODY_BYTES - 1024) + "!"
    message = await tool_error(client, json.dumps({"word": word}))
    assert "word: 'aaaa" in message and "characters) does not match" in message
    assert len(message) < 1000  # the 4 MiB argument is not echoed back
    text, headers = call_body(client, json.dumps({"word": word + "a" * 2048}))
    reply = await client.raw_post(text, headers)
    assert reply.status == 413


@pytest.mark.timeout(5)
async def test_unique_items_over_http(client: ModernClient) -> None:
    things = [{"id": i, "name": f"n{i}"} for i in range(20_000)]
    message = await tool_error(client, json.dumps({"things": [*things, things[123]]}))
    assert "things: array has non-unique elements (items 123 and 20000 are equal)" in message


@pytest.mark.timeout(5)
async def test_a_huge_array_is_refused_within_the_budget(client: ModernClient) -> None:
    numbers = "[" + ",".join(["1"] * 1_500_000) + "]"
    message = await tool_error(client, '{"numbers": ' + numbers + "}")
    assert "validation stopped after 0.5 s" in message


def deep_arguments(depth: int) -> str:
    return '{"tree": ' + nested(depth) + "}"


@pytest.mark.timeout(5)
@pytest.mark.parametrize("depth", [62, 500])
async def test_deep_bodies_are_a_precise_parse_error(client: ModernClient, depth: int) -> None:
    # arguments sit at depth 3 (envelope, params, arguments): 62 more is 65 in all
    text, headers = call_body(client, deep_arguments(depth))
    reply = await client.raw_post(text, headers)
    assert reply.status == 400, reply.body[:300]
    assert reply.error == {
        "code": PARSE_ERROR,
        "message": "Parse error: JSON nested deeper than 64 levels",
    }


@pytest.mark.timeout(5)
async def test_nesting_at_the_limit_reaches_the_tool(client: ModernClient) -> None:
    text, headers = call_body(client, deep_arguments(61))
    reply = await client.raw_post(text, headers)
    assert reply.status == 200 and reply.result["content"][0]["text"] == "accepted"


@pytest.mark.timeout(5)
@pytest.mark.parametrize("depth", [100_000, 1_000_000])
async def test_very_deep_bodies_are_a_parse_error_not_a_500(
    client: ModernClient, depth: int
) -> None:
    # Sent with httpx directly: raw_post decodes the body it sends to find the method,
    # and json.loads of 100k levels raises RecursionError in the test client itself.
    text, headers = call_body(client, deep_arguments(depth))
    response = await client.http.post(
        client.url, content=text.encode(), headers={k: str(v) for k, v in headers.items()}
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == PARSE_ERROR
    assert "nested deeper than 64" in response.json()["error"]["message"]


@pytest.mark.timeout(5)
@pytest.mark.parametrize(
    ("number", "message"),
    [
        ("9" * 100_000, "Parse error: an integer has over 4300 digits"),
        ("1e999", "Parse error: 1e999 is out of range"),
        ("NaN", "Parse error: NaN is not JSON"),
    ],
)
async def test_numbers_json_cannot_carry_over_http(
    client: ModernClient, number: str, message: str
) -> None:
    text, headers = call_body(client, '{"numbers": [' + number + "]}")
    reply = await client.raw_post(text, headers)
    assert (reply.status, reply.error) == (400, {"code": PARSE_ERROR, "message": message})

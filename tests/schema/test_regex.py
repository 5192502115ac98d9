"""schema.regex: ECMA-262 patterns on RE2 in linear time, the rest guarded; a schema's patterns.

The cases of `pattern`, `patternProperties` and their ECMA-262 reading moved here from
test_schema_hostile.py (DESIGN §9: catastrophic regexes answer fast, never hang;
`@pytest.mark.timeout(30)` is a hang guard, not a benchmark), then the module's own parts.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from genmcp import Channel, Result, Suite, Tool, ToolRequest
from genmcp.schema import compile_schema, sandbox
from genmcp.schema import limits as schema_module
from genmcp.schema.regex import Regex, Unchecked, compiles, regex, schema_patterns
from support.arguments import validate


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


@pytest.mark.timeout(30)
@pytest.mark.parametrize("pattern", CATASTROPHIC)
@pytest.mark.parametrize("length", [27, 1_000_000])
def test_catastrophic_patterns_answer_fast_on_long_input(pattern: str, length: int) -> None:
    # stdlib re: 1.8 s at 24 characters for (a|a)*, doubling with each more one.
    problem = validate(string_with(pattern), "a" * length + "!")
    assert problem is not None and "does not match" in problem


@pytest.mark.timeout(30)
def test_a_catastrophic_pattern_still_accepts_what_matches() -> None:
    assert validate(string_with(r"^(a|a)*$"), "a" * 100_000) is None


@pytest.mark.timeout(30)
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


@pytest.mark.timeout(30)
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


@pytest.mark.timeout(30)
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


def test_schemas_may_use_ecma_only_pattern_syntax() -> None:
    assert validate(string_with(r"^\p{Lu}"), "\u00c9t\u00e9") is None


# -- the module's parts: Regex, regex(), compiles(), schema_patterns() ----------------------


def test_regex_compiles_each_source_once() -> None:
    assert regex(r"^[a-z]+\d$") is regex(r"^[a-z]+\d$")
    assert regex(r"^[a-z]+\d$") is not regex(r"^[a-z]+\d+$")


@pytest.mark.parametrize(
    ("source", "linear"),
    [
        (r"^[a-z]+$", True),  # plain: RE2 compiles it on the first search
        (r"^\u00e9\cJ$", True),  # not plain, translated for RE2 at once
        (r"\p{Lu}", True),
        (r"(?=a)a", False),  # lookaround: Python's re, guarded
        (r"(a)\1", False),
        (r"\ud800", False),  # a lone surrogate: RE2 (UTF-8) has no such character
    ],
)
def test_what_runs_on_re2(source: str, linear: bool) -> None:
    assert Regex(source).linear is linear


@pytest.mark.parametrize(
    ("source", "text", "found"),
    [
        (r"\cJ", "a\nb", True),  # a control escape
        (r"^\u0041\u00e9$", "A\u00e9", True),
        (r"^\uD83D\uDE00$", "\U0001f600", True),  # a surrogate pair is one character
        (r"[\s]", "\u2028", True),  # ECMA \s inside a class
        (r"\S", "\u3000 \t", False),
        (r"b", "abc", True),  # a search, not a full match
        (r"^b", "abc", False),
    ],
)
def test_ecma_escapes_translate(source: str, text: str, found: bool) -> None:
    assert regex(source).search(text, backtracking_max_chars=0) is found


def test_a_backtracking_search_is_limited_in_length_and_time() -> None:
    lookahead = regex(r"^(?=.*\d)")
    assert lookahead.search("ab1", backtracking_max_chars=3) is True
    with pytest.raises(Unchecked, match="4 characters is over the 3"):
        lookahead.search("abc1", backtracking_max_chars=3)
    slow = regex(r"(?=a)a*a*a*a*a*a*b")  # polynomial, not refused: seconds on 1000 characters
    with pytest.raises(sandbox.TimedOut):
        slow.search("a" * 1000, backtracking_max_chars=1000, deadline=time.monotonic() + 0.1)


@pytest.mark.parametrize("source", ["(a", "[z-a]", "a**"])
def test_a_pattern_neither_engine_compiles_is_refused(source: str) -> None:
    with pytest.raises(re.error):
        Regex(source)


@pytest.mark.parametrize(
    ("instance", "ok"), [(5, True), ("^a+$", True), (r"(?<y>\d{4})", True), (r"(?<=a)b", True)]
)
def test_compiles(instance: object, ok: bool) -> None:
    assert compiles(instance) is ok


def test_compiles_raises_for_what_no_engine_compiles() -> None:
    with pytest.raises(re.error):
        compiles("(a")


def test_schema_patterns_are_found_with_their_json_pointers() -> None:
    schema = {
        "properties": {
            "a/b": {"pattern": "^x"},
            "list": {"items": [{"pattern": "^y"}]},
            "pattern": {"type": "string"},  # a property named pattern holds a schema
        },
        "patternProperties": {"^p~": {"pattern": "^z"}},
        "$defs": {"d": {"anyOf": [{"pattern": "^w"}]}},
        "const": {"pattern": "data"},
        "enum": [{"pattern": "data"}],
        "pattern": 7,  # not a string: not a pattern
    }
    assert list(schema_patterns(schema)) == [
        ("/properties/a~1b/pattern", "^x"),
        ("/properties/list/items/0/pattern", "^y"),
        ("/patternProperties/^p~0", "^p~"),
        ("/patternProperties/^p~0/pattern", "^z"),
        ("/$defs/d/anyOf/0/pattern", "^w"),
    ]

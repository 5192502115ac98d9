"""The fast path may only skip work: whenever it says valid, jsonschema agrees."""

from __future__ import annotations

import itertools
from typing import Any

import jsonschema
import pytest

from genmcp.schema import InvalidArguments, compile_schema
from genmcp.schema.fastcheck import compile_fast

CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER

SCHEMAS: list[dict[str, Any]] = [
    {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
     "required": ["a", "b"]},
    {"type": "object", "additionalProperties": False,
     "properties": {"n": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10},
                    "tag": {"enum": ["x", "y"]}, "when": {"type": "string", "format": "date"}}},
    {"type": "object", "properties": {"items": {"type": "array", "minItems": 1, "maxItems": 3,
     "items": {"type": "object", "properties": {"sku": {"type": "string", "minLength": 2,
     "maxLength": 4}, "qty": {"type": ["integer", "null"]}}, "required": ["sku"],
     "additionalProperties": {"type": "boolean"}}}}},
    {"type": "object", "properties": {"k": {"const": "only"}, "free": {}}},
    # properties that say only their type (and annotations): passed by exact type at once
    {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "integer"},
     "n": {"type": "boolean"}, "tag": {"type": "string", "description": "d"},
     "when": {"type": "null"}, "items": {"type": "array", "title": "t"}, "k": {"type": "object"},
     "other": {"type": "number", "minimum": 2}}},
    # members with and without the object type said beside them (one closure tests both, or
    # the members only): a value that is no object fails the first, passes the others
    {"type": "object", "properties": {"k": {"type": "object", "properties": {"a": {}}}}},
    {"type": ["object", "null"], "properties": {"a": {"type": "number"}}},
    {"properties": {"a": {"type": "number"}}, "required": ["a"]},
]  # fmt: skip

VALUES: list[Any] = [
    None, True, False, 0, 1, 1.0, 1.5, -3, 10, 9.999, "", "x", "y", "ab", "abcde", "2026-11-29",
    "2026-13-40", "only", [], [1], {}, {"a": 1}, {"b": 2.5}, {"sku": "ab"}, {"sku": "ab", "qty": 2},
    {"sku": "ab", "qty": 2.0}, {"sku": "ab", "gift": True}, {"sku": "ab", "gift": 1},
    {"sku": "a"}, {"qty": None},
]  # fmt: skip


def instances() -> list[Any]:
    found: list[Any] = list(VALUES)
    keys = ["a", "b", "n", "tag", "when", "items", "k", "free", "other"]
    for left, right in itertools.product(keys, VALUES[:20]):
        found.append({left: right})
        found.append({"a": 1, "b": 2, left: right})
    found += [{"items": [v]} for v in VALUES] + [{"items": [v, v, v, v]} for v in VALUES[20:]]
    return found


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_fast_valid_implies_jsonschema_valid(schema: dict[str, Any]) -> None:
    fast = compile_fast(schema, CHECKER)
    assert fast is not None
    full = jsonschema.Draft202012Validator(schema, format_checker=CHECKER)
    said_valid = 0
    for instance in instances():
        verdict = fast(instance)
        if verdict:
            said_valid += 1
            assert full.is_valid(instance), (schema, instance)
        else:
            assert not full.is_valid(instance), (schema, instance)  # and it never gives up
    assert said_valid > 0


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(?=a)a"}}},
        {"type": "object", "properties": {"r": {"$ref": "#/$defs/x"}}, "$defs": {"x": {}}},
        {"type": "array", "uniqueItems": True},
        {"anyOf": [{"type": "string"}, {"type": "number"}]},
        {"enum": [1, "a"]},
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"},
        {"type": "number", "minimum": 0, "exclusiveMinimum": True},
    ],
)
def test_schemas_outside_the_subset_are_left_to_jsonschema(schema: dict[str, Any]) -> None:
    assert compile_fast(schema, CHECKER) is None


PATTERNED = {
    "type": "object",
    "properties": {
        "sku": {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"},
        "note": {"type": "string", "pattern": "caf\u00e9|tea"},
    },
    "required": ["sku"],
}


@pytest.mark.parametrize(
    "instance",
    [
        {"sku": "ABC-1234"},
        {"sku": "ABC-1234\n"},  # ECMA $: no match before a final newline
        {"sku": "abc-1234"},
        {"sku": "ABC-12345"},
        {"sku": "ABC-\u0661\u0662\u0663\u0664"},  # ECMA \d is ASCII only
        {"sku": "ABC-1234", "note": "a caf\u00e9 please"},
        {"sku": "ABC-1234", "note": "coffee"},
        {"sku": 7},
        {"note": "tea"},
    ],
)
def test_patterns_take_the_fast_path_with_the_full_validators_verdict(instance: Any) -> None:
    fast = compile_schema(PATTERNED, owner="t")
    slow = compile_schema(PATTERNED, owner="t")
    slow._certainly_valid = None  # type: ignore[attr-defined]
    assert fast._certainly_valid is not None  # type: ignore[attr-defined]

    def verdict(validator: Any) -> bool:
        try:
            validator.validate(instance)
        except InvalidArguments:
            return False
        return True

    assert verdict(fast) is verdict(slow)
    assert fast._certainly_valid(instance) is verdict(slow)  # type: ignore[attr-defined]

"""genmcp.schema: compile a tool schema once, validate arguments, report failures precisely.

Written against the names `genmcp.schema` exports (the compiler may live in a module of its
own behind them). The budget and error-report cases moved here from test_schema_hostile.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from genmcp.schema import (
    InvalidArguments,
    advertised_schema,
    compile_schema,
    merge_options,
)
from genmcp.schema import limits as schema_module
from genmcp.schema.clock import Budget
from support.arguments import validate

# -- the validation budget and the error report ---------------------------------------------


@pytest.mark.timeout(30)
def test_validation_stops_at_its_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # jsonschema spends ~10 us per item: 2M items would take ~20 s (multipleOf keeps this
    # schema off the fast path, which would accept it in a fraction of a second)
    monkeypatch.setattr(schema_module, "VALIDATION_BUDGET_S", 0.05)
    slow = {"type": "array", "items": {"type": "integer", "multipleOf": 1}}
    problem = validate(slow, [1] * 2_000_000)
    assert problem == "arguments: validation stopped after 0.05 s: the arguments are too large"


@pytest.mark.timeout(30)
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


@pytest.mark.timeout(30)
def test_in_process_nesting_beyond_the_stack_is_invalid_not_a_crash() -> None:
    deep: Any = "leaf"
    for _ in range(5_000):
        deep = [deep]
    schema = {"$defs": {"t": {"anyOf": [{"type": "string"}, {"items": {"$ref": "#/$defs/t"}}]}}}
    problem = validate({**schema, "$ref": "#/$defs/t"}, deep)
    assert problem == "arguments: arguments are nested too deeply to validate"


# -- compile_schema, advertised_schema, InvalidArguments -------------------------------------


class Address(BaseModel):
    street: str


class Order(BaseModel):
    sku: str
    qty: int = 1
    ship_to: Address | None = None


def test_invalid_arguments_describe_each_location() -> None:
    error = InvalidArguments(
        [
            {"type": "type", "loc": ["items", 0, "sku"], "msg": "1 is not of type 'string'"},
            {"type": "required", "loc": [], "msg": "'qty' is a required property"},
        ]
    )
    assert (
        error.describe()
        == str(error)
        == ("items.0.sku: 1 is not of type 'string'; arguments: 'qty' is a required property")
    )


def test_a_dict_schema_is_advertised_verbatim_and_validates() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    validator = compile_schema(schema, owner="T")
    assert validator.advertised == schema and validator.advertised is not schema
    arguments = {"n": 1}
    assert validator.validate(arguments) is arguments
    with pytest.raises(InvalidArguments) as caught:
        validator.validate({"n": "1", "m": 2})
    assert caught.value.errors == [
        {"type": "type", "loc": ["n"], "msg": "'1' is not of type 'integer'"}
    ]


def test_errors_are_sorted_by_location_and_carry_the_checkers_reason() -> None:
    def sku(value: object) -> bool:
        raise ValueError("no such product")

    schema = {
        "type": "object",
        "properties": {"b": {"type": "string", "format": "sku"}, "a": {"type": "integer"}},
    }
    options = merge_options(None, {"formats": {"sku": sku}}, owner="T")
    with pytest.raises(InvalidArguments) as caught:
        compile_schema(schema, owner="T", options=options).validate({"b": "x", "a": "y"})
    assert [(e["loc"], e["msg"]) for e in caught.value.errors] == [
        (["a"], "'y' is not of type 'integer'"),
        (["b"], "'x' is not a 'sku' (no such product)"),
    ]


def test_a_model_is_advertised_inlined_and_arguments_are_cast() -> None:
    validator = compile_schema(Order, owner="T")
    assert "$defs" not in validator.advertised
    assert advertised_schema(Order, owner="T") == validator.advertised
    assert validator.validate({"sku": "A", "ship_to": {"street": "s"}}) == Order(
        sku="A", ship_to=Address(street="s")
    )
    with pytest.raises(InvalidArguments) as caught:
        validator.validate({"qty": "many"})
    assert [(e["type"], e["loc"]) for e in caught.value.errors] == [
        ("missing", ["sku"]),
        ("int_parsing", ["qty"]),
    ]


@pytest.mark.parametrize("schema", [[{"type": "object"}], "object", None, int])
def test_a_schema_must_be_a_dict_or_a_model(schema: Any) -> None:
    with pytest.raises(TypeError, match=r"^Echo: a schema must be a dict or a pydantic model"):
        compile_schema(schema, owner="Echo")
    with pytest.raises(TypeError, match=r"^Echo: a schema must be a dict"):
        advertised_schema(schema, owner="Echo")


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "nope"}, "^Echo: invalid JSON Schema: 'nope' is not valid"),
        ({"pattern": "(a"}, r"^Echo: invalid JSON Schema: '\(a' is not a 'regex'"),
        ({"pattern": "(?=a)a"}, r"^Echo: the pattern '\(\?=a\)a' at /pattern needs backtracking"),
    ],
)
def test_a_bad_schema_fails_at_build_naming_the_owner(schema: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        compile_schema(schema, owner="Echo")


def test_inline_takes_small_plain_arguments_and_leaves_the_rest() -> None:
    schema = {"type": "object", "properties": {"s": {"type": "string"}}}
    validator = compile_schema(schema, owner="T")
    assert validator.inline({"s": "x"}) == (True, {"s": "x"})
    assert validator.inline({"s": "x" * (schema_module.INLINE_MAX_CHARS + 1)}) == (False, None)
    backtracking = compile_schema(
        {"type": "string", "pattern": "(?=a)a"},
        owner="T",
        options=merge_options(None, {"backtracking_patterns": True}, owner="T"),
    )
    assert backtracking.inline_safe is False
    assert backtracking.inline("a") == (False, None)  # a helper process: never on the loop


def test_a_model_validates_inline_when_small() -> None:
    validator = compile_schema(Order, owner="T")
    assert validator.inline({"sku": "A"}) == (True, Order(sku="A"))
    with pytest.raises(InvalidArguments):
        validator.inline({"sku": 1})
    assert validator.inline({"sku": "A", "pad": list(range(2000))}) == (False, None)


def test_a_spent_budget_is_a_budget_error() -> None:
    validator = compile_schema({"type": "array", "items": {"multipleOf": 1}}, owner="T")
    with pytest.raises(InvalidArguments) as caught:
        validator.validate(list(range(5000)), budget=Budget(-1.0))
    assert [entry["type"] for entry in caught.value.errors] == ["budget"]

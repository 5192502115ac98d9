"""genmcp.schema: compile a tool schema once, validate arguments, report failures precisely.

Written against the names `genmcp.schema` exports (the compiler may live in a module of its
own behind them). The budget and error-report cases moved here from test_schema_hostile.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp import schema as schema_module
from genmcp.schema import InvalidArguments, compile_schema
from support.arguments import validate

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

"""schema.keywords: the hardened jsonschema keywords, linear on hostile input.

The `format: regex`, `uniqueItems` and `unevaluated*` cases moved here from
test_schema_hostile.py (`@pytest.mark.timeout(30)` is a hang guard, not a benchmark), then
the module's own parts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from genmcp.schema import limits as schema_module
from genmcp.schema.keywords import format_checker, hardened
from support.arguments import validate


@pytest.fixture
def roomy_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests of complexity: the time budget must not be what keeps them short."""
    monkeypatch.setattr(schema_module, "VALIDATION_BUDGET_S", 30.0, raising=False)


# -- format: regex -------------------------------------------------------------------------


@pytest.mark.timeout(30)
def test_format_regex_refuses_long_strings_without_compiling() -> None:
    # re.compile of a 1 MB literal takes ~25 s
    schema = {"type": "string", "format": "regex"}
    problem = validate(schema, "a" * 1_000_000)
    assert problem is not None and "not checked" in problem
    assert validate(schema, "a" * schema_module.REGEX_FORMAT_MAX_CHARS) is None


@pytest.mark.timeout(30)
@pytest.mark.usefixtures("roomy_budget")  # the answer is judged here, not a busy machine's speed
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


# -- uniqueItems -----------------------------------------------------------------------------


def growth(run: Callable[[int], object], size: int) -> float:
    """CPU time of ``run(size)`` over ``run(size // 4)``, the best of three each: about 4 when
    the work is linear (a little more for n log n), 16 when it is quadratic. Measured in the
    same test and in this process's CPU time, so another job's load does not move it much."""

    def best(n: int) -> float:
        spent = []
        for _ in range(3):
            start = time.process_time()
            run(n)
            spent.append(time.process_time() - start)
        return min(spent)

    return best(size) / max(best(size // 4), 1e-6)


LINEAR: float = 9.0
"""A growth under this for 4x the input is not quadratic (which is 16)."""

@pytest.mark.timeout(60)  # a hang guard: the growth is what is judged
@pytest.mark.usefixtures("roomy_budget")
def test_unique_items_over_many_objects_is_not_quadratic() -> None:
    # jsonschema compares objects pairwise: 20k objects are 2e8 deep comparisons
    schema = {"type": "array", "uniqueItems": True}
    objects: list[Any] = [{"id": i, "tags": ["t", i]} for i in range(20_000)]
    def made(n: int) -> list[Any]:
        return [{"id": i, "tags": ["t", i]} for i in range(n)]

    assert growth(lambda n: validate(schema, made(n)), 8_000) < LINEAR
    assert validate(schema, objects) is None
    problem = validate(schema, [*objects, {"tags": ["t", 7], "id": 7.0}])
    assert problem == "arguments: array has non-unique elements (items 7 and 20000 are equal)"


@pytest.mark.timeout(60)  # a hang guard: the growth is what is judged
@pytest.mark.usefixtures("roomy_budget")
def test_unique_items_over_mixed_scalars_is_not_quadratic() -> None:
    # sorting strings with numbers fails, and jsonschema then goes pairwise
    def mixed(n: int) -> list[Any]:
        return [x for i in range(n) for x in (str(i), i)]

    assert validate({"uniqueItems": True}, mixed(100_000)) is None
    assert validate({"uniqueItems": True}, [*mixed(100_000), "99999"]) is not None
    assert growth(lambda n: validate({"uniqueItems": True}, mixed(n)), 40_000) < LINEAR


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


@pytest.mark.timeout(30)
def test_unevaluated_properties_use_the_linear_engine() -> None:
    schema = {"patternProperties": {r"^(a|a)*$": {}}, "unevaluatedProperties": False}
    assert validate(schema, {"a" * 40: 1}) is None
    problem = validate(schema, {"a" * 40 + "!": 1})
    assert problem is not None and "Unevaluated properties are not allowed (1 unexpected" in problem


@pytest.mark.timeout(60)  # a hang guard: the growth is what is judged
@pytest.mark.usefixtures("roomy_budget")
def test_unevaluated_properties_over_many_keys_is_not_quadratic() -> None:
    # jsonschema looks each key up in a list of the evaluated ones: 40k keys, 8e8 compares
    schema = {"allOf": [{"properties": {"x": {}}}], "additionalProperties": {}}
    closed = {**schema, "unevaluatedProperties": False}
    assert validate(closed, {f"k{i}": i for i in range(40_000)}) is None
    assert growth(lambda n: validate(closed, {f"k{i}": i for i in range(n)}), 40_000) < LINEAR


@pytest.mark.timeout(60)  # a hang guard: the growth is what is judged
@pytest.mark.usefixtures("roomy_budget")
def test_unevaluated_items_over_many_items_is_not_quadratic() -> None:
    schema = {"prefixItems": [{}], "items": {}, "unevaluatedItems": False}
    assert validate(schema, list(range(50_000))) is None
    assert growth(lambda n: validate(schema, list(range(n))), 50_000) < LINEAR


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


# -- the module's parts: hardened(), format_checker(), the messages -------------------------


def test_hardened_classes_are_made_once_per_dialect() -> None:
    assert hardened(jsonschema.Draft202012Validator) is hardened(jsonschema.Draft202012Validator)
    assert hardened(jsonschema.Draft7Validator) is not hardened(jsonschema.Draft202012Validator)


def test_2019_09_keeps_jsonschemas_own_unevaluated_keywords() -> None:
    draft2019 = hardened(jsonschema.Draft201909Validator)
    draft2020 = hardened(jsonschema.Draft202012Validator)
    assert draft2019.VALIDATORS["unevaluatedProperties"].__name__ == (
        "unevaluatedProperties_draft2019"
    )
    assert draft2020.VALIDATORS["unevaluatedProperties"].__name__ == "_unevaluated_properties"


def test_additional_properties_name_the_first_extras_and_count_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(schema_module, "MAX_REPORTED_ERRORS", 3)
    extras = {f"k{i:02}": i for i in range(12)}
    problem = validate({"properties": {"a": {}}, "additionalProperties": False}, extras)
    assert problem == (
        "arguments: Additional properties are not allowed ('k00', 'k01', 'k02' and 9 more "
        "unexpected)"
    )


def test_unevaluated_items_are_counted_and_shown() -> None:
    schema = {"prefixItems": [{}], "unevaluatedItems": False}
    assert validate(schema, [1, "x", None]) == (
        "arguments: Unevaluated items are not allowed (2 unexpected: 'x', None)"
    )


def test_unevaluated_properties_against_a_schema_say_so() -> None:
    schema = {"properties": {"a": {}}, "unevaluatedProperties": {"type": "integer"}}
    assert validate(schema, {"a": "s", "b": 1}) is None
    assert validate(schema, {"a": "s", "b": "x"}) == (
        "arguments: Unevaluated properties are not valid under the given schema (1 unexpected: 'b')"
    )


def test_a_false_subschema_describes_a_huge_value() -> None:
    problem = validate({"properties": {"big": False}}, {"big": list(range(10_000))})
    # jsonschema reports a false subschema's error without the property in its path
    assert problem == "arguments: False schema does not allow an array of 10000 items"


def test_format_checker_adds_a_tools_checkers_and_bounds_regex() -> None:
    def mine(value: object) -> bool:
        raise ValueError("never")

    base = format_checker(jsonschema.Draft202012Validator)
    extended = format_checker(jsonschema.Draft202012Validator, {"mine": mine})
    assert "mine" not in base.checkers and "mine" in extended.checkers
    assert extended.checkers["date"] == base.checkers["date"]
    assert base is format_checker(jsonschema.Draft202012Validator)  # made once
    schemas = format_checker(jsonschema.Draft202012Validator, for_schemas=True)
    long = "a" * (schema_module.REGEX_FORMAT_MAX_CHARS + 1)
    assert schemas.conforms(long, "regex")  # a tool's own schema has no length limit
    assert not base.conforms(long, "regex")

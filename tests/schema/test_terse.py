"""schema.terse: the same verdicts and messages as jsonschema's keywords, short on huge values.

Each keyword is checked against jsonschema's own on small instances (same verdict, same
message), then on instances too large to quote.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import jsonschema.validators
import pytest

from genmcp.schema.terse import KEYWORDS, describe, false_schema_error

BASE = jsonschema.Draft202012Validator
TERSE: Any = jsonschema.validators.extend(
    BASE, {name: KEYWORDS.get(fn, fn) for name, fn in BASE.VALIDATORS.items()}
)


def messages(cls: Any, schema: Any, instance: Any) -> list[str]:
    return sorted(error.message for error in cls(schema).iter_errors(instance))


SMALL: list[tuple[dict[str, Any], Any]] = [
    ({"type": "integer"}, "x"),
    ({"type": ["integer", "null"]}, 1.5),
    ({"enum": ["a", 1]}, "b"),
    ({"enum": [1]}, 1.0),
    ({"contains": {"type": "string"}}, [1, 2]),
    ({"contains": {"type": "string"}, "minContains": 2}, ["a", 1]),
    ({"contains": {"type": "string"}, "maxContains": 1}, ["a", "b"]),
    ({"minItems": 1}, []),
    ({"minItems": 2}, [1]),
    ({"maxItems": 0}, [1]),
    ({"maxItems": 1}, [1, 2]),
    ({"minLength": 1}, ""),
    ({"minLength": 3}, "ab"),
    ({"maxLength": 0}, "a"),
    ({"maxLength": 1}, "ab"),
    ({"minProperties": 1}, {}),
    ({"minProperties": 2}, {"a": 1}),
    ({"maxProperties": 0}, {"a": 1}),
    ({"maxProperties": 1}, {"a": 1, "b": 2}),
    ({"anyOf": [{"type": "string"}, {"minimum": 5}]}, 3),
    ({"oneOf": [{"type": "string"}, {"minimum": 5}]}, 3),
    ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 3),
    ({"not": {"type": "integer"}}, 3),
    ({"multipleOf": 3}, 7),
    ({"multipleOf": 0.5}, 1.25),
    ({"multipleOf": 0.01}, 0.07),
    ({"multipleOf": 2}, 4),
]


@pytest.mark.parametrize(("schema", "instance"), SMALL)
def test_small_values_get_jsonschemas_verdict_and_message(
    schema: dict[str, Any], instance: Any
) -> None:
    assert messages(TERSE, schema, instance) == messages(BASE, schema, instance)


@pytest.mark.parametrize(
    ("value", "described"),
    [
        ("short", "'short'"),
        ("x" * 51, "'" + "x" * 50 + "'... (51 characters)"),
        (list(range(21)), "an array of 21 items"),
        ({str(i): i for i in range(21)}, "an object with 21 properties"),
        ({"a": list(range(10)), "b": list(range(9))}, "an object with 2 properties"),  # 2+10+9
        ([["y" * 51]], "an array of 1 items"),  # a long string anywhere inside
        ({"k" * 51: 1}, "an object with 1 properties"),  # or a long key
        (list(range(20)), repr(list(range(20)))),
        (12345678901234567890, "12345678901234567890"),
    ],
)
def test_describe(value: Any, described: str) -> None:
    assert describe(value) == described


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "string"}, "an array of 1000 items is not of type 'string'"),
        ({"enum": ["a"]}, "an array of 1000 items is not one of ['a']"),
        ({"maxItems": 3}, "an array of 1000 items is too long"),
        (
            {"anyOf": [{"type": "string"}, {"type": "object"}]},
            "an array of 1000 items is not valid",
        ),
        ({"not": {"type": "array"}}, "an array of 1000 items should not be valid under"),
        ({"contains": {"type": "string"}}, "an array of 1000 items does not contain items"),
    ],
)
def test_huge_values_are_described_not_quoted(schema: dict[str, Any], message: str) -> None:
    (found,) = messages(TERSE, schema, list(range(1000)))
    assert found.startswith(message)
    assert len(found) < 200


def test_any_of_keeps_one_error_per_branch_as_context() -> None:
    schema = {"anyOf": [{"type": "string", "minLength": 9}, {"type": "object"}]}
    (error,) = TERSE(schema).iter_errors(5)
    assert [each.message for each in error.context] == [
        "5 is not of type 'string'",
        "5 is not of type 'object'",
    ]


@pytest.mark.parametrize(
    ("offset", "divisor", "multiple"),
    [
        (0, 0.01, True),  # jsonschema's float division overflows on 10**4299
        (1, 0.01, True),  # an integer is a multiple of 1/100
        (0, 0.3, False),  # 3/10 divides only multiples of 3
        (2, 0.3, True),  # 10**4299 + 2 is one
        (2, 2, True),
        (1, 2, False),
    ],
)
def test_multiple_of_is_exact_where_floats_overflow(
    offset: int, divisor: float, multiple: bool
) -> None:
    errors = messages(TERSE, {"multipleOf": divisor}, 10**4299 + offset)
    assert (errors == []) is multiple
    if not multiple:
        assert errors[0].endswith(f"is not a multiple of {divisor}")


def test_the_false_schema_describes_the_instance() -> None:
    error = false_schema_error(list(range(1000)))
    assert error.message == "False schema does not allow an array of 1000 items"
    assert error.schema is False


def test_a_format_checkers_exception_is_the_cause() -> None:
    checker = jsonschema.FormatChecker(formats=())
    reason = ValueError("closed today")

    def mine(value: object) -> bool:
        raise reason

    checker.checkers["mine"] = (mine, (ValueError,))
    (error,) = TERSE({"format": "mine"}, format_checker=checker).iter_errors("x")
    assert (error.message, error.cause) == ("'x' is not a 'mine'", reason)
    assert list(TERSE({"format": "unknown"}, format_checker=checker).iter_errors("x")) == []

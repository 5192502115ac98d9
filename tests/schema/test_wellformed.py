"""schema.wellformed: a common tool schema proved valid without loading jsonschema.

The soundness property (True is never said of a schema jsonschema refuses) moved here from
test_lazy_imports.py; then what the glance accepts and what it leaves to jsonschema.
"""

from __future__ import annotations

import random
from typing import Any, Final

import pytest

from genmcp.schema import compile_schema, engine
from genmcp.schema.fastcheck import compile_fast
from genmcp.schema.wellformed import plainly_valid

DIALECTS: Final = (
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema#",
)
VALUES: Final[list[Any]] = [
    0, 1, -1, 2.5, 1.0, True, False, None, "", "x", "string", "integer", "^a$", "a{2000}",
    "(?=a)", "[z-a]", [], ["a"], ["a", "a"], ["string", "null"], ["strin"], [1], {}, {"a": 1},
    {"a": {"type": "string"}}, {"type": "number"}, {"type": "nope"}, {"$id": "x"},
]  # fmt: skip
KEYWORDS: Final = (
    "type", "properties", "required", "additionalProperties", "items", "minItems", "maxLength",
    "minimum", "exclusiveMaximum", "enum", "const", "format", "pattern", "title", "default",
    "examples", "deprecated", "readOnly", "$comment", "$id", "$schema", "anyOf", "propertys",
)  # fmt: skip


def _schemas(count: int) -> list[dict[str, Any]]:
    rnd = random.Random(19)
    found: list[dict[str, Any]] = []
    for _ in range(count):
        node = {key: rnd.choice(VALUES) for key in rnd.sample(KEYWORDS, rnd.randint(1, 4))}
        if rnd.random() < 0.5:
            node = {"type": "object", "properties": {"p": node}}
        found.append(node)
    return found


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_schema_said_plainly_valid_passes_the_meta_schema(dialect: str) -> None:
    said = 0
    for schema in _schemas(4000):
        if plainly_valid(schema, dialect=dialect):
            said += 1
            cls = engine.dialect_class(schema, dialect, owner="T")
            engine.check_meta(schema, cls, owner="T")  # raises if the shortcut was wrong
            assert compile_fast(schema, cls.FORMAT_CHECKER, dialect=dialect) is not None
    assert said > 100


def test_an_invalid_schema_still_fails_when_the_tool_is_built() -> None:
    for broken in ({"type": "object", "properties": {"a": {"minLength": -1}}},
                   {"type": "object", "properties": {"a": {"type": "nope"}}},
                   {"type": "object", "required": ["a", "a"]}):  # fmt: skip
        assert not plainly_valid(broken, dialect=DIALECTS[0])
        with pytest.raises(ValueError, match="T: invalid JSON Schema"):
            compile_schema(broken, owner="T")


PLAIN: Final[dict[str, Any]] = {
    "type": "object",
    "title": "Order",
    "properties": {
        "sku": {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3, "default": "ABC"},
        "qty": {"type": ["integer", "null"], "minimum": 1, "exclusiveMaximum": 10.5},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3},
        "when": {"type": "string", "format": "date", "deprecated": True},
        "any": True,
    },
    "required": ["sku"],
    "additionalProperties": False,
    "examples": [{"sku": "ABC"}],
}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_common_shape_is_plainly_valid_in_every_dialect(dialect: str) -> None:
    assert plainly_valid(PLAIN, dialect=dialect)
    assert plainly_valid({**PLAIN, "$schema": dialect}, dialect=DIALECTS[0])


@pytest.mark.parametrize(
    "change",
    [
        {"$schema": "https://json-schema.org/draft/2019-09/schema#"},  # not spelled as known
        {"$schema": "http://json-schema.org/draft-04/schema#"},
        {"$schema": 7},
        {"$id": "https://h.example/s"},
        {"propertys": {}},  # an unknown keyword: jsonschema's to judge
        {"anyOf": [{"type": "object"}]},
        {"items": [{"type": "string"}]},  # the tuple form of items
        {"required": ["sku", "sku"]},
        {"required": "sku"},
        {"type": ["object", "object"]},
        {"type": []},
        {"title": 5},
        {"minProperties": 1},
        {"properties": {"p": {"pattern": "(?=a)"}}},  # not plainly linear
        {"properties": {"p": {"minLength": -1}}},
        {"properties": {"p": {"minLength": 1.5}}},
        {"properties": {"p": {"minimum": True}}},  # a bool is no number here
        {"properties": {"p": {"enum": ["a", 1]}}},  # the subset enumerates strings only
        {"properties": {"p": False}},
        {"properties": {"p": {"$schema": "https://json-schema.org/draft/2020-12/schema"}}},
    ],
)
def test_anything_else_is_left_to_jsonschema(change: dict[str, Any]) -> None:
    assert not plainly_valid({**PLAIN, **change}, dialect=DIALECTS[0])


def test_an_unknown_default_dialect_is_never_plain() -> None:
    assert not plainly_valid(PLAIN, dialect="http://json-schema.org/draft-04/schema#")


def test_nesting_past_the_limit_is_left_to_jsonschema() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(70):
        deep = {"type": "object", "properties": {"p": deep}}
    assert not plainly_valid(deep, dialect=DIALECTS[0])
    shallow: dict[str, Any] = {"type": "string"}
    for _ in range(30):
        shallow = {"type": "object", "properties": {"p": shallow}}
    assert plainly_valid(shallow, dialect=DIALECTS[0])

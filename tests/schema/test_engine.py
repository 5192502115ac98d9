"""schema.engine: a schema's jsonschema dialect class and its check against the meta-schema."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from genmcp.schema import engine

LATEST = "https://json-schema.org/draft/2020-12/schema"
DRAFT4 = "http://json-schema.org/draft-04/schema#"


@pytest.mark.parametrize(
    ("schema", "default", "cls"),
    [
        ({}, LATEST, jsonschema.Draft202012Validator),
        ({}, "http://json-schema.org/draft-07/schema#", jsonschema.Draft7Validator),
        ({"$schema": DRAFT4}, LATEST, jsonschema.Draft4Validator),
        ({"$schema": "https://unknown.example/schema"}, LATEST, jsonschema.Draft202012Validator),
    ],
)
def test_the_dialect_is_the_schemas_else_the_default(
    schema: dict[str, Any], default: str, cls: type[Any]
) -> None:
    assert engine.dialect_class(schema, default, owner="T") is cls


def test_an_unknown_default_dialect_is_refused_naming_the_owner() -> None:
    with pytest.raises(ValueError, match=r"^Tool: schema_options default_dialect 'nope' is not"):
        engine.dialect_class({}, "nope", owner="Tool")


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "nope"}, "invalid JSON Schema: 'nope' is not valid under any"),
        ({"minLength": -1}, "invalid JSON Schema: -1 is less than the minimum of 0"),
        ({"pattern": "(unclosed"}, r"invalid JSON Schema: '\(unclosed' is not a 'regex'"),
    ],
)
def test_a_schema_its_meta_schema_refuses_names_the_owner(
    schema: dict[str, Any], message: str
) -> None:
    cls = engine.dialect_class(schema, LATEST, owner="T")
    with pytest.raises(ValueError, match=f"^Order: {message}"):
        engine.check_meta(schema, cls, owner="Order")


def test_ecma_patterns_pass_the_meta_check() -> None:
    schema = {"pattern": r"^\p{Lu}(?<word>\w+)$"}  # not Python syntax, valid ECMA-262
    engine.check_meta(schema, jsonschema.Draft202012Validator, owner="T")

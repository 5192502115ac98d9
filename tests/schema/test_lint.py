"""schema.lint: a tool's schema refused at build for what the meta-schema lets through."""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.schema.lint import KNOWN_KEYWORDS, lint_tool_schema, unknown_keywords


def test_unknown_keywords_are_found_wherever_a_subschema_can_sit() -> None:
    schema = {
        "typo": 1,
        "properties": {"a/b": {"maxLenght": 3}},
        "patternProperties": {"^x": {"p1": 0}},
        "additionalProperties": {"p2": 0},
        "items": {"p3": 0},
        "prefixItems": [{}, {"p4": 0}],
        "anyOf": [{"p5": 0}],
        "not": {"p6": 0},
        "if": {"p7": 0},
        "$defs": {"D": {"p8": 0}},
        "dependencies": {"d": {"p9": 0}},
        "x-vendor": {"anything": True},
    }
    assert list(unknown_keywords(schema)) == [
        ("/", "typo"),
        ("/additionalProperties", "p2"),
        ("/not", "p6"),
        ("/if", "p7"),
        ("/anyOf/0", "p5"),
        ("/prefixItems/1", "p4"),
        ("/items", "p3"),
        ("/properties/a/b", "maxLenght"),
        ("/patternProperties/^x", "p1"),
        ("/$defs/D", "p8"),
        ("/dependencies/d", "p9"),
    ]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "x-mcp-header": "H", "properties": {"a": {"x-ui": {"z": 1}}}},
        {"items": [{"type": "string"}]},  # draft-07's tuple items
        {"dependencies": {"a": ["b"]}},  # the array form holds no schema
        {"properties": {"enum": {"type": "string"}}},  # a property named like a keyword
        {"default": {"not_a_keyword": 1}, "examples": [{"nor": 2}], "const": {"this": 3}},
        True,
    ],
)
def test_extensions_data_and_property_names_are_not_keywords(schema: Any) -> None:
    assert list(unknown_keywords(schema)) == []


def test_known_keywords_cover_every_dialect_and_common_annotations() -> None:
    assert {"$recursiveRef", "definitions", "dependentRequired", "discriminator"} <= KNOWN_KEYWORDS


@pytest.mark.parametrize(
    ("schema", "shown"), [({}, "no type"), ({"type": "string"}, "type 'string'")]
)
def test_a_tool_schema_must_be_an_object_schema(schema: dict[str, Any], shown: str) -> None:
    with pytest.raises(
        ValueError, match=f"^Echo: output_schema must be an object schema, got {shown}"
    ):
        lint_tool_schema(schema, owner="Echo", which="output_schema")


def test_an_unknown_keyword_is_refused_with_its_place_and_the_likely_fix() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "minLenght": 1}}}
    with pytest.raises(ValueError) as caught:
        lint_tool_schema(schema, owner="Echo", which="input_schema")
    assert str(caught.value) == (
        "Echo: input_schema has the unknown JSON Schema keyword 'minLenght' at /properties/a: "
        "did you mean 'minLength'? (a custom keyword must start with 'x-')"
    )
    with pytest.raises(ValueError, match=r"'zzzzqqq' at /: \(a custom keyword"):
        lint_tool_schema({"type": "object", "zzzzqqq": 1}, owner="Echo", which="input_schema")


def test_a_clean_object_schema_passes() -> None:
    lint_tool_schema(
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        owner="Echo",
        which="input_schema",
    )

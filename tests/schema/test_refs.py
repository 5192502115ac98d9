"""schema.refs: local ``#/$defs`` references inlined, so clients need no resolver."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from genmcp.schema import inline_refs


def test_references_are_replaced_and_defs_dropped() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A"},
            "list": {"type": "array", "items": [{"$ref": "#/$defs/A"}, {"type": "null"}]},
        },
        "$defs": {"A": {"type": "string", "minLength": 1}},
    }
    a = {"type": "string", "minLength": 1}
    assert inline_refs(schema) == {
        "type": "object",
        "properties": {"a": a, "list": {"type": "array", "items": [a, {"type": "null"}]}},
    }
    assert "$defs" in schema  # the input is left as it was


def test_siblings_of_a_ref_win_over_the_definition() -> None:
    schema = {
        "properties": {"a": {"$ref": "#/$defs/A", "description": "mine"}},
        "$defs": {"A": {"type": "string", "description": "theirs"}},
    }
    assert inline_refs(schema)["properties"]["a"] == {"type": "string", "description": "mine"}


def test_nested_definitions_are_inlined_through() -> None:
    schema = {
        "properties": {"outer": {"$ref": "#/$defs/Outer"}},
        "$defs": {
            "Outer": {"properties": {"inner": {"$ref": "#/$defs/Inner"}}},
            "Inner": {"type": "integer"},
        },
    }
    assert inline_refs(schema) == {
        "properties": {"outer": {"properties": {"inner": {"type": "integer"}}}}
    }


def test_a_recursive_definition_keeps_its_ref_and_only_the_defs_it_needs() -> None:
    schema = {
        "properties": {"tree": {"$ref": "#/$defs/Node"}, "leaf": {"$ref": "#/$defs/Leaf"}},
        "$defs": {
            "Node": {"properties": {"children": {"items": {"$ref": "#/$defs/Node"}}}},
            "Leaf": {"type": "string"},
            "Unused": {"type": "null"},
        },
    }
    node = {"properties": {"children": {"items": {"$ref": "#/$defs/Node"}}}}
    assert inline_refs(schema) == {
        "properties": {"tree": node, "leaf": {"type": "string"}},
        "$defs": {"Node": node},
    }


def test_unknown_and_remote_refs_stay() -> None:
    schema: dict[str, Any] = {
        "properties": {
            "a": {"$ref": "#/$defs/Missing"},
            "b": {"$ref": "https://example.com/s.json"},
        },
    }
    assert inline_refs(schema)["properties"] == schema["properties"]


class Address(BaseModel):
    street: str


class Person(BaseModel):
    name: str
    home: Address
    work: Address | None = None


def test_a_pydantic_model_schema_becomes_self_contained() -> None:
    inlined = inline_refs(Person.model_json_schema())
    assert "$defs" not in inlined and "$ref" not in str(inlined)
    assert inlined["properties"]["home"]["properties"]["street"]["type"] == "string"

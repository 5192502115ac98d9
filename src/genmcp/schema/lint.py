"""Build-time lint of a tool's schemas: what ``jsonschema``'s meta-schema lets through.

A JSON Schema meta-schema accepts any unknown keyword (it is an annotation), so a misspelled
``"propertys"`` silently validates nothing, and it accepts ``{"type": "string"}`` as a tool's
input schema although MCP requires an object schema there (the official Python SDK then
fails ``tools/list`` for the whole server). :func:`lint_tool_schema` refuses both when the
Suite is built, naming the tool class, the place in the schema and the likely fix.

Keywords starting with ``x-`` (``x-mcp-header``) are extensions and always allowed.

Imports no asyncio and no web framework.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

__all__ = ["KNOWN_KEYWORDS", "lint_tool_schema", "unknown_keywords"]

KNOWN_KEYWORDS: Final = frozenset(
    {
        # core and applicators (2020-12, 2019-09, draft-07, draft-04)
        "$schema", "$id", "id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor",
        "$recursiveRef", "$recursiveAnchor", "$vocabulary", "$comment", "$defs", "definitions",
        "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
        "properties", "patternProperties", "additionalProperties", "propertyNames",
        "dependentSchemas", "dependencies", "items", "prefixItems", "additionalItems",
        "contains", "unevaluatedItems", "unevaluatedProperties",
        # validation
        "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
        "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
        "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
        "required", "dependentRequired",
        # format, content, metadata
        "format", "contentEncoding", "contentMediaType", "contentSchema", "title",
        "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
        # common in generated schemas (OpenAPI, pydantic)
        "discriminator", "nullable", "example",
    }
)  # fmt: skip
"""Every keyword of the JSON Schema dialects jsonschema knows, and a few common annotations."""

_ONE: Final = (
    "additionalProperties", "propertyNames", "additionalItems", "contains", "unevaluatedItems",
    "unevaluatedProperties", "not", "if", "then", "else", "contentSchema",
)  # fmt: skip
_MANY: Final = ("allOf", "anyOf", "oneOf", "prefixItems")
_NAMED: Final = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def unknown_keywords(schema: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """``(where, keyword)`` for each unknown keyword in ``schema`` and its subschemas."""
    if not isinstance(schema, Mapping):
        return
    for key in schema:
        if isinstance(key, str) and key not in KNOWN_KEYWORDS and not key.startswith("x-"):
            yield where or "/", key
    for key in _ONE:
        yield from unknown_keywords(schema.get(key), f"{where}/{key}")
    for key in (*_MANY, "items"):
        found = schema.get(key)
        if isinstance(found, list):
            for index, sub in enumerate(found):
                yield from unknown_keywords(sub, f"{where}/{key}/{index}")
        elif key == "items":
            yield from unknown_keywords(found, f"{where}/items")
    for key in (*_NAMED, "dependencies"):
        found = schema.get(key)
        if isinstance(found, Mapping):
            for name, sub in found.items():
                yield from unknown_keywords(sub, f"{where}/{key}/{name}")


def lint_tool_schema(schema: Mapping[str, Any], *, owner: str, which: str) -> None:
    """Refuse a tool's ``which`` schema (``input_schema``/``output_schema``) that is not an
    object schema or holds an unknown keyword; ``ValueError`` naming ``owner``."""
    kind = schema.get("type")
    if kind != "object":
        shown = "no type" if kind is None else f"type {kind!r}"
        raise ValueError(
            f"{owner}: {which} must be an object schema, got {shown}; MCP clients reject "
            "a tool whose schema is not {'type': 'object', ...} (wrap the value in a "
            "property: {'type': 'object', 'properties': {'value': ...}, 'required': ['value']})"
        )
    for where, key in unknown_keywords(schema):
        import difflib  # only for the error: a served schema never gets here

        close = difflib.get_close_matches(key, KNOWN_KEYWORDS, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ValueError(
            f"{owner}: {which} has the unknown JSON Schema keyword {key!r} at {where}: "
            f"{hint}(a custom keyword must start with 'x-')"
        )

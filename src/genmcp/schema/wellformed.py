"""Tool schemas certainly valid against their meta-schema, told without loading jsonschema.

``compile_schema`` checks every dict schema against its dialect's meta-schema when the tool is
built, so a broken schema fails at start-up, naming the tool. jsonschema does that check and
loading it costs ~3 MB of memory, although the common tool schema (``schema.fastcheck``'s
subset: plainly typed properties) is valid at a glance. :func:`plainly_valid` is that glance:
True only when the schema is in that subset with every keyword's value of the type all three
dialects the subset knows (2020-12, 2019-09, draft-07) require, and every ``pattern`` one that
``schema.re2syntax`` calls plain (RE2 compiles it, so ``format: regex`` holds). Anything else
answers False and jsonschema checks it as before, with the same error; the test suite checks
that True is never said of a schema jsonschema refuses.

Pure: no asyncio, no web framework; from genmcp only ``schema.fastcheck`` (its subset) and
``schema.re2syntax``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from genmcp.schema.fastcheck import DIALECTS, KNOWN
from genmcp.schema.re2syntax import plainly_linear

__all__ = ["plainly_valid"]

_TYPE_NAMES: Final = frozenset(
    ("object", "array", "string", "boolean", "null", "integer", "number")
)


def _count(value: Any) -> bool:
    """A non-negative integer (``minLength``...); a float such as ``1.0`` is left to jsonschema."""
    return type(value) is int and value >= 0


def _number(value: Any) -> bool:
    return type(value) in (int, float)


def _string(value: Any) -> bool:
    return type(value) is str


def _flag(value: Any) -> bool:
    return type(value) is bool


def _anything(value: Any) -> bool:
    return True


def _array(value: Any) -> bool:
    return type(value) is list


def _type(value: Any) -> bool:
    if type(value) is str:
        return value in _TYPE_NAMES
    if type(value) is not list or not value:
        return False
    names = [name for name in value if type(name) is str and name in _TYPE_NAMES]
    return len(names) == len(value) == len(set(names))


def _required(value: Any) -> bool:
    if type(value) is not list:
        return False
    return all(type(name) is str for name in value) and len(set(value)) == len(value)


def _choices(value: Any) -> bool:
    """``enum``: strings only, as in the fast path's subset."""
    return type(value) is list and all(type(option) is str for option in value)


def _pattern(value: Any) -> bool:
    return type(value) is str and plainly_linear(value)


_VALUES: Final[dict[str, Callable[[Any], bool]]] = {
    "type": _type,
    "required": _required,
    "minItems": _count,
    "maxItems": _count,
    "minLength": _count,
    "maxLength": _count,
    "minimum": _number,
    "maximum": _number,
    "exclusiveMinimum": _number,
    "exclusiveMaximum": _number,
    "enum": _choices,
    "const": _string,
    "format": _string,
    "pattern": _pattern,
    "title": _string,
    "description": _string,
    "$comment": _string,
    "contentMediaType": _string,
    "contentEncoding": _string,
    "default": _anything,
    "examples": _array,
    "deprecated": _flag,
    "readOnly": _flag,
    "writeOnly": _flag,
}
_MAX_DEPTH: Final = 64


def plainly_valid(schema: Mapping[str, Any], *, dialect: str) -> bool:
    """True when ``schema`` (``dialect`` when it names none) is certainly a valid schema."""
    named = schema.get("$schema", dialect)
    if dialect not in DIALECTS or type(named) is not str or named not in DIALECTS:
        return False
    rest = {key: value for key, value in schema.items() if key != "$schema"}
    return _valid(rest, 0)


def _valid(node: Any, depth: int) -> bool:
    if node is True:
        return True
    if type(node) is not dict or depth > _MAX_DEPTH:
        return False
    for key, value in node.items():
        if key == "properties":
            if type(value) is not dict or not all(
                type(name) is str and _valid(sub, depth + 1) for name, sub in value.items()
            ):
                return False
        elif key in ("additionalProperties", "items"):  # the fast path closes objects only
            closed = key == "additionalProperties" and value is False
            if not (closed or _valid(value, depth + 1)):
                return False
        else:
            check = _VALUES.get(key) if key in KNOWN else None
            if check is None or not check(value):
                return False  # $schema below the root, $id, an unknown keyword: jsonschema's
    return True

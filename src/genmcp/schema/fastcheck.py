"""A fast "certainly valid" check for the common shape of tool input schemas.

Most tools take an object of plainly typed properties. jsonschema validates such arguments
in tens of microseconds; a closure tree compiled once does it in a few. ``compile_fast``
returns a predicate that answers True only when the instance is valid, or None when the
schema uses a keyword outside the subset below. A False answer proves nothing: the full
validator then runs and explains the failure. So the fast path can only skip work, never
change a verdict.

Subset: ``type``, ``properties``, ``required``, ``additionalProperties`` (bool or schema),
``items`` (one schema), ``minItems``/``maxItems``, ``minLength``/``maxLength``,
``minimum``/``maximum``/``exclusiveMinimum``/``exclusiveMaximum``, ``enum``/``const`` of
strings, ``format`` (through the same format checker), ``pattern`` when RE2 runs it (the
same compiled pattern the full validator uses; patterns needing backtracking are left to it),
and annotations (``title``, ``description``, ``default``, ``examples`` ...). Pure: imports
the schema regex cache only (not jsonschema: a format checker is anything with ``checkers``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final, Protocol

from genmcp.schema.regex import regex

__all__ = ["DIALECTS", "KNOWN", "NO_FORMATS", "Check", "FormatChecker", "compile_fast"]

Check = Callable[[Any], bool]


class FormatChecker(Protocol):
    """What the fast path reads of a ``jsonschema.FormatChecker``: name -> (test, raises)."""

    @property
    def checkers(self) -> Mapping[str, tuple[Callable[[Any], object], Any]]:
        """The format names it checks, each with its test and the exceptions that fail it."""


class _NoFormats:
    """A format checker that knows no format: ``format`` is an annotation (formats off)."""

    checkers: Final[Mapping[str, tuple[Callable[[Any], object], Any]]] = {}


NO_FORMATS: Final = _NoFormats()
"""The checker when formats are off."""

_ANNOTATIONS: Final = frozenset(
    (
        "title", "description", "default", "examples", "$comment", "deprecated",
        "readOnly", "writeOnly", "$schema", "$id", "contentMediaType", "contentEncoding",
    )
)  # fmt: skip
DIALECTS: Final = frozenset(
    (
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-07/schema",
    )
)
"""The ``$schema`` values the subset is decided for."""
_DEFAULT: Final = "https://json-schema.org/draft/2020-12/schema"
_BOUNDS: Final = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
KNOWN: Final = _ANNOTATIONS | frozenset(
    (
        "type", "properties", "required", "additionalProperties", "items", "minItems",
        "maxItems", "minLength", "maxLength", "enum", "const", "format", "pattern", *_BOUNDS,
    )
)  # fmt: skip
"""The keywords of the subset."""


class _Unsupported(Exception):
    """The schema uses something the fast path does not decide."""


def compile_fast(
    schema: Any, format_checker: FormatChecker | None = None, *, dialect: str = _DEFAULT
) -> Check | None:
    """A predicate True only for valid instances; None for schemas outside the subset.

    ``dialect`` is the ``$schema`` assumed when the schema has none; a ``format`` that
    ``format_checker`` does not know is an annotation (an empty checker: formats off).
    """
    if isinstance(schema, Mapping) and schema.get("$schema", dialect) not in DIALECTS:
        return None
    try:
        return _compile(schema, format_checker)
    except _Unsupported:
        return None


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_TYPES: Final[dict[str, Check]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": _is_integer,
    "number": _is_number,
}


def _compile(schema: Any, checker: FormatChecker | None) -> Check:
    if schema is True or schema == {}:
        return lambda value: True
    if not isinstance(schema, Mapping) or not set(schema) <= KNOWN:
        raise _Unsupported
    members = _object(schema, checker)
    # {"type": "object", "properties": ...}: the members' check tests the type too (one call)
    typed = None if members is not None and schema.get("type") == "object" else _type(schema)
    checks = [
        check
        for check in (
            typed,
            members,
            _array(schema, checker),
            _string(schema),
            _number(schema),
            _choice(schema),
            _format(schema, checker),
            _pattern(schema),
        )
        if check is not None
    ]
    return _all(checks)


def _all(checks: list[Check]) -> Check:
    """Checks in order, as nested ``and`` (cheaper than ``all()`` over a generator)."""
    if not checks:
        return lambda value: True
    first, rest = checks[0], checks[1:]
    if not rest:
        return first
    tail = _all(rest)
    return lambda value: first(value) and tail(value)


def _type(schema: Mapping[str, Any]) -> Check | None:
    wanted = schema.get("type")
    if wanted is None:
        return None
    names = [wanted] if isinstance(wanted, str) else wanted
    if not isinstance(names, list) or not all(name in _TYPES for name in names):
        raise _Unsupported
    tests = [_TYPES[name] for name in names]
    if len(tests) == 1:
        return tests[0]
    return lambda value: any(test(value) for test in tests)


def _object(schema: Mapping[str, Any], checker: FormatChecker | None) -> Check | None:
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if not properties and not required and extra is True:
        return None
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        raise _Unsupported
    known = {name: _compile(sub, checker) for name, sub in properties.items()}
    plain = {name: kinds for name, sub in properties.items() if (kinds := _plain(sub))}
    needed = tuple(required)
    extra_check = None if extra is True else (_compile(extra, checker) if extra else None)
    closed = extra is False
    typed = schema.get("type") == "object"  # then _compile tests the type here, not apart

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return not typed
        for name in needed:
            if name not in value:
                return False
        for name, item in value.items():
            kinds = plain.get(name)
            if kinds is not None and type(item) in kinds:
                continue  # a plainly typed property of its exact type: no call (hot path)
            sub = known.get(name)
            if sub is not None:
                if not sub(item):
                    return False
            elif closed or (extra_check is not None and not extra_check(item)):
                return False
        return True

    return check


_EXACT: Final[dict[str, tuple[type, ...]]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
    "integer": (int,),
    "number": (int, float),
}
"""The exact types that certainly pass a bare ``{"type": ...}`` (``bool`` is neither an
integer nor a number here, as ``_TYPES`` says; anything else is left to the check)."""


def _plain(schema: Any) -> tuple[type, ...] | None:
    """The exact types that certainly satisfy ``schema`` when it says only its ``type`` (and
    annotations); None otherwise. Checked by ``type(value) in ...``: one C test per value."""
    if not isinstance(schema, Mapping) or not isinstance(schema.get("type"), str):
        return None
    if not set(schema) - {"type"} <= _ANNOTATIONS:
        return None
    return _EXACT.get(schema["type"])


def _array(schema: Mapping[str, Any], checker: FormatChecker | None) -> Check | None:
    items = schema.get("items")
    low, high = schema.get("minItems", 0), schema.get("maxItems")
    if items is None and low == 0 and high is None:
        return None
    if isinstance(items, list):  # tuple validation of older drafts
        raise _Unsupported
    each = None if items is None else _compile(items, checker)

    def check(value: Any) -> bool:
        if not isinstance(value, list):
            return True
        if len(value) < low or (high is not None and len(value) > high):
            return False
        return each is None or all(each(item) for item in value)

    return check


def _string(schema: Mapping[str, Any]) -> Check | None:
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    if low == 0 and high is None:
        return None
    return lambda v: not isinstance(v, str) or (low <= len(v) and (high is None or len(v) <= high))


def _number(schema: Mapping[str, Any]) -> Check | None:
    bounds = {key: schema[key] for key in _BOUNDS if key in schema}
    if not bounds:
        return None
    if not all(_is_number(bound) for bound in bounds.values()):
        raise _Unsupported  # draft-04 style boolean exclusive bounds
    low, high = bounds.get("minimum"), bounds.get("maximum")
    above, below = bounds.get("exclusiveMinimum"), bounds.get("exclusiveMaximum")

    def check(value: Any) -> bool:
        if not _is_number(value):
            return True
        return (
            (low is None or value >= low)
            and (high is None or value <= high)
            and (above is None or value > above)
            and (below is None or value < below)
        )

    return check


def _choice(schema: Mapping[str, Any]) -> Check | None:
    if "enum" not in schema and "const" not in schema:
        return None
    options = schema["enum"] if "enum" in schema else [schema["const"]]
    if not isinstance(options, list) or not all(isinstance(option, str) for option in options):
        raise _Unsupported  # JSON equality of numbers, bools and containers: leave it to jsonschema
    allowed = frozenset(options)
    return lambda value: isinstance(value, str) and value in allowed


def _format(schema: Mapping[str, Any], checker: FormatChecker | None) -> Check | None:
    name = schema.get("format")
    if name is None:
        return None
    if checker is None or not isinstance(name, str):
        raise _Unsupported
    if name not in checker.checkers:
        return None  # an annotation, as for jsonschema
    test, raises = checker.checkers[name]

    def check(value: Any) -> bool:
        try:
            return bool(test(value))
        except raises:
            return False

    return check


def _pattern(schema: Mapping[str, Any]) -> Check | None:
    source = schema.get("pattern")
    if source is None:
        return None
    if not isinstance(source, str):
        raise _Unsupported
    try:
        compiled = regex(source)
    except (ValueError, re.error):
        raise _Unsupported from None  # compile_schema reports it
    if not compiled.linear:
        raise _Unsupported  # backtracking patterns carry length limits: the full path applies them
    limit = 0  # never reached for linear patterns: RE2 checks any length
    return lambda v: not isinstance(v, str) or compiled.search(v, backtracking_max_chars=limit)

"""Keywords whose error messages stay short on huge instances, and numbers that never raise.

jsonschema writes ``f"{instance!r} is not of type ..."``: on a 4 MiB argument that ``repr``
runs in C for ~200 ms holding the GIL, so even off the event loop it freezes the server, and
``anyOf``/``oneOf`` do it once per branch. The keywords here decide exactly as jsonschema's
(same verdicts, same messages on small values) but quote a value through ``describe``, which
summarizes a large one ("an array of 200000 items"). ``anyOf``/``oneOf`` keep one error per
branch as context instead of every error. ``multipleOf`` falls back to exact fractions where
jsonschema's float division overflows (a 4,300-digit integer against ``0.01``), reading
floats as the decimals they print as, which agrees with jsonschema on small integers.

``KEYWORDS`` maps jsonschema's functions to the replacements; ``schema.keywords`` installs
them wherever a dialect uses those functions (legacy drafts' own variants stay).
Pure: no asyncio, no web framework, no genmcp.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from fractions import Fraction
from typing import Any, Final

import jsonschema._keywords as _keywords
from jsonschema._utils import equal
from jsonschema.exceptions import ValidationError

__all__ = ["KEYWORDS", "describe", "false_schema_error"]

_QUOTED_CHARS: Final = 50
_QUOTED_NODES: Final = 20


def describe(value: Any) -> str:
    """``repr(value)`` when it is small; else a summary that costs nothing to build."""
    if isinstance(value, str):
        if len(value) > _QUOTED_CHARS:
            return repr(value[:_QUOTED_CHARS]) + f"... ({len(value)} characters)"
        return repr(value)
    if isinstance(value, list | dict) and not _small(value):
        if isinstance(value, list):
            return f"an array of {len(value)} items"
        return f"an object with {len(value)} properties"
    return repr(value)


def _small(value: Any) -> bool:
    """True when ``value`` has at most ``_QUOTED_NODES`` nodes and no long string or key."""
    budget, stack = _QUOTED_NODES, [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            budget -= len(node)
            stack.extend(node.values())
            stack.extend(node.keys())
        elif isinstance(node, list):
            budget -= len(node)
            stack.extend(node)
        elif isinstance(node, str) and len(node) > _QUOTED_CHARS:
            return False
        if budget < 0:
            return False
    return True


def false_schema_error(instance: Any) -> ValidationError:
    """What jsonschema says for the ``false`` schema, with the instance described."""
    unset: Any = None  # as jsonschema: the keyword that descended sets them
    return ValidationError(
        f"False schema does not allow {describe(instance)}",
        validator=unset,
        validator_value=unset,
        instance=instance,
        schema=False,
    )


def _type(validator: Any, types: Any, instance: Any, schema: Any) -> Iterator[Any]:
    names = [types] if isinstance(types, str) else types
    if not any(validator.is_type(instance, name) for name in names):
        wanted = ", ".join(repr(name) for name in names)
        yield ValidationError(f"{describe(instance)} is not of type {wanted}")


def _enum(validator: Any, enums: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if all(not equal(each, instance) for each in enums):
        yield ValidationError(f"{describe(instance)} is not one of {enums!r}")


def _contains(validator: Any, contains: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "array"):
        return
    low = schema.get("minContains", 1)
    high = schema.get("maxContains", len(instance))
    inner = validator.evolve(schema=contains)
    matches = 0
    for each in instance:
        if inner.is_valid(each):
            matches += 1
            if matches > high:
                yield ValidationError(
                    f"Too many items match the given schema (expected at most {high})",
                    validator="maxContains",
                    validator_value=high,
                )
                return
    if matches >= low:
        return
    if matches:
        yield ValidationError(
            f"Too few items match the given schema (expected at least {low} but only "
            f"{matches} matched)",
            validator="minContains",
            validator_value=low,
        )
    else:
        yield ValidationError(
            f"{describe(instance)} does not contain items matching the given schema"
        )


def _sized(kind: str, name: str, short: str, long: str, empty: str, nonempty: str) -> Any:
    def check(validator: Any, limit: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, kind):
            return
        size = len(instance)
        if name == "min" and size < limit:
            message = nonempty if limit == 1 else short
        elif name == "max" and size > limit:
            message = empty if limit == 0 else long
        else:
            return
        yield ValidationError(f"{describe(instance)} {message}")

    return check


def _any_of(validator: Any, subschemas: Any, instance: Any, schema: Any) -> Iterator[Any]:
    context = []
    for index, subschema in enumerate(subschemas):
        first = next(validator.descend(instance, subschema, schema_path=index), None)
        if first is None:
            return
        context.append(first)
    yield ValidationError(
        f"{describe(instance)} is not valid under any of the given schemas", context=context
    )


def _one_of(validator: Any, subschemas: Any, instance: Any, schema: Any) -> Iterator[Any]:
    context = []
    valid: list[Any] = []
    for index, subschema in enumerate(subschemas):
        if valid:
            if validator.evolve(schema=subschema).is_valid(instance):
                valid.append(subschema)
            continue
        first = next(validator.descend(instance, subschema, schema_path=index), None)
        if first is None:
            valid.append(subschema)
        else:
            context.append(first)
    if not valid:
        yield ValidationError(
            f"{describe(instance)} is not valid under any of the given schemas", context=context
        )
    elif len(valid) > 1:
        shown = ", ".join(repr(each) for each in itertools.chain(valid[1:], valid[:1]))
        yield ValidationError(f"{describe(instance)} is valid under each of {shown}")


def _not(validator: Any, not_schema: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.evolve(schema=not_schema).is_valid(instance):
        yield ValidationError(f"{describe(instance)} should not be valid under {not_schema!r}")


def _multiple_of(validator: Any, divisor: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """jsonschema's verdict where it has one; exact fractions where its division overflows."""
    if not validator.is_type(instance, "number"):
        return
    try:
        if isinstance(divisor, float):
            quotient = instance / divisor
            failed = int(quotient) != quotient
        else:
            failed = bool(instance % divisor)
    except (OverflowError, ValueError):  # an int too large for a float, an infinite quotient
        # exact, reading floats as the decimals they print as (0.01 is 1/100, as written)
        failed = (_exact(instance) / _exact(divisor)).denominator != 1
    if failed:
        yield ValidationError(f"{describe(instance)} is not a multiple of {divisor}")


def _exact(number: int | float) -> Fraction:
    return Fraction(repr(number)) if isinstance(number, float) else Fraction(number)


def _format(validator: Any, name: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """The format checker's verdict; a checker's exception is the reason told to the client."""
    checker = validator.format_checker
    if checker is None or name not in checker.checkers:
        return
    check, raises = checker.checkers[name]
    cause: Exception | None = None
    try:
        conforms = check(instance)
    except raises as exc:
        conforms, cause = False, exc
    if not conforms:  # the reason, if any, is the cause: genmcp.schema adds it to the message
        yield ValidationError(f"{describe(instance)} is not a {name!r}", cause=cause)


_SIZED: Final = {
    "minItems": _sized("array", "min", "is too short", "", "", "should be non-empty"),
    "maxItems": _sized("array", "max", "", "is too long", "is expected to be empty", ""),
    "minLength": _sized("string", "min", "is too short", "", "", "should be non-empty"),
    "maxLength": _sized("string", "max", "", "is too long", "is expected to be empty", ""),
    "minProperties": _sized(
        "object", "min", "does not have enough properties", "", "", "should be non-empty"
    ),
    "maxProperties": _sized(
        "object", "max", "", "has too many properties", "is expected to be empty", ""
    ),
}
KEYWORDS: Final[dict[Any, Any]] = {
    _keywords.type: _type,
    _keywords.enum: _enum,
    _keywords.contains: _contains,
    **{getattr(_keywords, name): check for name, check in _SIZED.items()},
    _keywords.anyOf: _any_of,
    _keywords.oneOf: _one_of,
    _keywords.not_: _not,
    _keywords.multipleOf: _multiple_of,
    _keywords.format: _format,
}
"""jsonschema's keyword function -> its replacement (legacy drafts' own functions stay)."""

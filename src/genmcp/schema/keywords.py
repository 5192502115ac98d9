"""Hardened jsonschema keywords: linear on hostile input, every keyword on the clock.

``hardened(base)`` is a jsonschema validator class whose slow or unbounded keywords are
replaced: ``pattern`` and ``patternProperties`` (and ``additionalProperties``, which depends
on them) run on ``schema.regex`` (RE2, linear), ``uniqueItems`` and ``unevaluated*`` are
linear and work in chunks (no long C call holding the GIL), the keywords that quote the
instance come from ``schema.terse`` (short messages), and every keyword checks this thread's
deadline. ``format_checker(base, formats)`` bounds ``format: regex`` and adds a tool's own
checkers.

The limits are ``genmcp.schema.limits``' knobs, read there at each use (an assignment there
holds from the next validation on); ``start_clock(budget)``/``stop_clock`` bracket one
validation's ``Budget`` on this thread (another thread may ``cancel`` it). Pure: imports no
asyncio and no web framework; from genmcp only ``schema.limits``, ``schema.regex``,
``schema.sandbox`` and ``schema.terse``.
"""

from __future__ import annotations

import heapq
import json.encoder
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final, TypeVar

import jsonschema
import jsonschema._keywords as _keywords
import jsonschema._utils
import jsonschema.validators
from jsonschema.exceptions import ValidationError as SchemaValidationError

from genmcp.schema import limits, sandbox, terse
from genmcp.schema.clock import OverBudget
from genmcp.schema.clock import check as _check_budget
from genmcp.schema.clock import chunks as _chunks
from genmcp.schema.clock import deadline as _deadline
from genmcp.schema.clock import each as _on_the_clock_each
from genmcp.schema.clock import extend as _extend_deadline
from genmcp.schema.regex import Regex, Unchecked, compiles, regex

__all__ = ["format_checker", "hardened"]

_T = TypeVar("_T")
_SMALL_INT: Final = 2**60
_quote: Final = json.encoder.encode_basestring_ascii


_short = terse.describe


def _search(pattern: Regex, text: str) -> bool:
    if not pattern.linear and len(text) <= limits.BACKTRACKING_MAX_CHARS:
        _extend_deadline(sandbox.prepare())  # starting a helper is not the arguments' time
    try:
        return pattern.search(
            text,
            backtracking_max_chars=limits.BACKTRACKING_MAX_CHARS,
            deadline=_deadline(),
        )
    except sandbox.TimedOut:
        raise OverBudget from None


# -- the replaced keywords ----------------------------------------------------------------


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "string"):
        return
    try:
        matched = _search(regex(pattern), instance)
    except Unchecked as exc:
        yield SchemaValidationError(
            f"{_short(instance)} was not checked against {pattern!r}: {exc}"
        )
        return
    if not matched:
        yield SchemaValidationError(f"{_short(instance)} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        compiled = regex(pattern)
        for key, value in _on_the_clock_each(instance.items()):
            try:
                matched = _search(compiled, key)
            except Unchecked as exc:
                yield SchemaValidationError(
                    f"property name {_short(key)} was not checked against {pattern!r}: {exc}",
                    path=[key],
                )
                continue
            if matched:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _matches_any(regexes: list[Regex], key: str) -> bool:
    for each in regexes:
        try:
            if _search(each, key):
                return True
        except Unchecked:  # patternProperties reports it
            pass
    return False


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    regexes = [regex(pattern) for pattern in schema.get("patternProperties", {})]
    extras = [
        key
        for key in _on_the_clock_each(instance)
        if key not in properties and not _matches_any(regexes, key)
    ]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        named = limits.MAX_REPORTED_ERRORS
        shown = ", ".join(_short(key) for key in heapq.nsmallest(named, extras))
        more = f" and {len(extras) - named} more" if len(extras) > named else ""
        if "patternProperties" in schema:
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield SchemaValidationError(
                f"{shown}{more} do not match any of the regexes: {patterns}"
            )
        else:
            yield SchemaValidationError(
                f"Additional properties are not allowed ({shown}{more} unexpected)"
            )


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not (unique and validator.is_type(instance, "array")):
        return
    same = _first_duplicate(instance)
    if same is not None:
        yield SchemaValidationError(
            f"array has non-unique elements (items {same[0]} and {same[1]} are equal)"
        )


def _first_duplicate(items: list[Any]) -> tuple[int, int] | None:
    """Two indexes of equal items (JSON equality: ``1 == 1.0``, ``true != 1``), or None.

    Linear, and in chunks (no long C call): arrays of only strings, or only integers of
    magnitude under 2**60, go through a set at C speed (str hashes are randomized; such ints
    hash to themselves, all distinct). Any other array keys each item by a hashable form
    whose other numbers are strings, so no hash an attacker can collide (Python's int hash
    is not randomized). jsonschema's own check is quadratic for objects.
    """
    kinds: set[type] = set()
    for chunk in _chunks(items):
        kinds.update(map(type, chunk))
    if kinds <= {str} or kinds <= {int}:
        distinct: set[Any] = set()
        for chunk in _chunks(items):
            if kinds <= {int} and not -_SMALL_INT < min(chunk) <= max(chunk) < _SMALL_INT:
                break
            distinct.update(chunk)
        else:
            if len(distinct) == len(items):
                return None
    seen: dict[Any, int] = {}
    for index, item in enumerate(items):
        if not index & 0x3FF:
            _check_budget()
        try:
            key = _key(item)
        except (TypeError, ValueError):  # not JSON data (only in-process), or NaN
            continue
        first = seen.setdefault(key, index)
        if first != index:
            return (first, index)
    return None


def _key(value: Any) -> str:
    """Canonical JSON text of a value: equal exactly when the values are equal.

    A string, not a tuple: strings are not tracked by the garbage collector, so 200k keys
    do not set off a full collection (~60 ms holding the GIL) while they are kept.
    """
    kind = type(value)
    if kind is str:
        return _quote(value)
    if kind is dict:
        pairs = sorted([f"{_quote(name)}:{_key(item)}" for name, item in value.items()])
        return "{" + ",".join(pairs) + "}"
    if kind is list:
        return "[" + ",".join([_key(item) for item in value]) + "]"
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if kind is float:
        if value != value:
            raise ValueError("NaN equals nothing")
        return str(int(value)) if value.is_integer() else repr(value)
    raise TypeError(f"not a JSON value: {kind.__name__}")


def _unevaluated_items(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """jsonschema's, with the evaluated indexes in a set (its list makes it quadratic)."""
    if not validator.is_type(instance, "array"):
        return
    find = jsonschema._utils.find_evaluated_item_indexes_by_schema
    evaluated = set(find(validator, instance, schema))
    unevaluated = [item for index, item in enumerate(instance) if index not in evaluated]
    if unevaluated:
        shown = ", ".join(_short(item) for item in unevaluated[: limits.MAX_REPORTED_ERRORS])
        yield SchemaValidationError(
            f"Unevaluated items are not allowed ({len(unevaluated)} unexpected: {shown})"
        )


def _unevaluated_properties(
    validator: Any, extra: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    """jsonschema's (2020-12), with a set of evaluated keys and patterns on ``schema.regex``."""
    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema)
    unevaluated = [
        key
        for key, value in _on_the_clock_each(instance.items())
        if key not in evaluated
        and (
            extra is False
            or next(validator.descend(value, extra, path=key, schema_path=key), None) is not None
        )
    ]
    if unevaluated:
        shown = ", ".join(
            _short(key) for key in heapq.nsmallest(limits.MAX_REPORTED_ERRORS, unevaluated)
        )
        verdict = "are not allowed" if extra is False else "are not valid under the given schema"
        yield SchemaValidationError(
            f"Unevaluated properties {verdict} ({len(unevaluated)} unexpected: {shown})"
        )


def _evaluated_keys(validator: Any, instance: Any, schema: Any) -> set[str]:  # noqa: C901
    """The keys of ``instance`` that ``schema`` evaluates (the 2020-12 rules)."""
    if validator.is_type(schema, "boolean"):
        return set()
    keys: set[str] = set()
    for keyword in ("$ref", "$dynamicRef"):
        ref = schema.get(keyword)
        if ref is not None:
            resolved = validator._resolver.lookup(ref)
            inner = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            keys |= _evaluated_keys(inner, instance, resolved.contents)
    properties = schema.get("properties")
    if validator.is_type(properties, "object"):
        keys |= properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        subschema = schema.get(keyword)
        if subschema is not None:
            keys.update(
                key
                for key, value in instance.items()
                if next(validator.descend(value, subschema), None) is None
            )
    if "patternProperties" in schema:
        regexes = [regex(pattern) for pattern in schema["patternProperties"]]
        keys.update(key for key in _on_the_clock_each(instance) if _matches_any(regexes, key))
    for name, subschema in schema.get("dependentSchemas", {}).items():
        if name in instance:
            keys |= _evaluated_keys(validator, instance, subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if next(validator.descend(instance, subschema), None) is None:
                keys |= _evaluated_keys(validator, instance, subschema)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys |= _evaluated_keys(validator, instance, schema["if"])
            if "then" in schema:
                keys |= _evaluated_keys(validator, instance, schema["then"])
        elif "else" in schema:
            keys |= _evaluated_keys(validator, instance, schema["else"])
    return keys


def _is_regex(instance: object) -> bool:
    """``format: regex`` on client data: as ``compiles``, but long strings are refused."""
    limit = limits.REGEX_FORMAT_MAX_CHARS
    if isinstance(instance, str) and len(instance) > limit:
        raise Unchecked(f"over {limit} characters: not checked")
    return compiles(instance)


_HARDENED: Final = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "uniqueItems": _unique_items,
}
_HARDENED_2020: Final = {
    "unevaluatedItems": _unevaluated_items,
    "unevaluatedProperties": _unevaluated_properties,
}
_extend: Any = jsonschema.validators.extend
_CLASSES: dict[type[Any], type[Any]] = {}  # memos per jsonschema class: bounded (tests/layout)
_CHECKERS: dict[tuple[type[Any], bool], jsonschema.FormatChecker] = {}


def hardened(base: type[Any]) -> type[Any]:
    """``base`` with the hostile-input keywords replaced and every keyword on the clock."""
    cls = _CLASSES.get(base)
    if cls is None:
        replaced = dict(_HARDENED)
        if base.VALIDATORS.get("unevaluatedProperties") is _keywords.unevaluatedProperties:
            replaced.update(_HARDENED_2020)  # 2020-12; 2019-09 keeps jsonschema's own
        keywords = {
            name: _on_the_clock(replaced.get(name, terse.KEYWORDS.get(fn, fn)))
            for name, fn in base.VALIDATORS.items()
        }
        cls = _CLASSES[base] = _extend(base, keywords)
        _quote_false_schemas_tersely(cls)
    return cls


def _quote_false_schemas_tersely(cls: Any) -> None:
    """The ``false`` schema's error, raised by ``descend`` and ``iter_errors`` themselves."""
    descend, iter_errors = cls.descend, cls.iter_errors

    def terse_descend(self: Any, instance: Any, schema: Any, *args: Any, **kw: Any) -> Any:
        if schema is False:
            return iter((terse.false_schema_error(instance),))
        return descend(self, instance, schema, *args, **kw)

    def terse_iter_errors(self: Any, instance: Any, *args: Any) -> Any:
        if self.schema is False and not args:
            return iter((terse.false_schema_error(instance),))
        return iter_errors(self, instance, *args)

    cls.descend, cls.iter_errors = terse_descend, terse_iter_errors


def _on_the_clock(keyword: Any) -> Any:
    def timed(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        _check_budget()
        errors = keyword(validator, value, instance, schema)
        if errors is not None:
            yield from errors

    timed.__name__ = getattr(keyword, "__name__", "keyword")
    return timed


def format_checker(
    base: type[Any], formats: Mapping[str, Any] | None = None, *, for_schemas: bool = False
) -> jsonschema.FormatChecker:
    """``base``'s format checks with ``regex`` replaced (``for_schemas``: no length limit),
    and ``formats`` (name -> checker) added: any exception a checker raises is its verdict."""
    checker = _CHECKERS.get((base, for_schemas))
    if checker is None:
        checker = jsonschema.FormatChecker(formats=())
        checker.checkers = dict(base.FORMAT_CHECKER.checkers)
        if "regex" in checker.checkers:
            check = compiles if for_schemas else _is_regex
            checker.checkers["regex"] = (check, (re.error, Unchecked))
        _CHECKERS[base, for_schemas] = checker
    if not formats:
        return checker
    extended = jsonschema.FormatChecker(formats=())
    extended.checkers = {
        **checker.checkers,
        **{name: (check, (Exception,)) for name, check in formats.items()},
    }
    return extended

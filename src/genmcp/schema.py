"""Tool schemas: compile once, advertise as self-contained JSON Schema, validate arguments.

A schema is a JSON Schema dict (validated with ``jsonschema``, format checks
on, 2020-12 unless ``$schema`` says otherwise, advertised verbatim) or a
pydantic model class (advertised with its ``$ref``s inlined; arguments are
cast into a model instance). Validation failures become ``InvalidArguments``
with pydantic-core style entries (``type``, ``loc``, ``msg``).

Arguments are hostile input (DESIGN §9). Dict schemas are validated by jsonschema with
its slow or unbounded keywords replaced: ``pattern`` and ``patternProperties`` (and what
depends on them) run on RE2 in linear time, ``uniqueItems`` and ``unevaluated*`` are
linear, ``format: regex`` is bounded, and every keyword checks a time budget
(``VALIDATION_BUDGET_S``). The limits are the module constants below.

Imports no asyncio and no web framework.
"""

from __future__ import annotations

import copy
import importlib
import itertools
import math
import operator
import re
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final, TypeVar

import jsonschema
import jsonschema._keywords as _keywords
import jsonschema._utils
import jsonschema.exceptions
import jsonschema.validators
import re2  # type: ignore[import-untyped]
from jsonschema.exceptions import ValidationError as SchemaValidationError
from pydantic import BaseModel, ValidationError

from genmcp.fastcheck import compile_fast

__all__ = [
    "BACKTRACKING_MAX_CHARS",
    "MAX_MESSAGE_CHARS",
    "MAX_REPORTED_ERRORS",
    "REGEX_FORMAT_MAX_CHARS",
    "VALIDATION_BUDGET_S",
    "ArgumentValidator",
    "InvalidArguments",
    "SchemaLike",
    "compile_schema",
]

SchemaLike = Mapping[str, Any] | type[BaseModel]

# Limits on hostile arguments (module globals, read at each validation: assign to change).
MAX_REPORTED_ERRORS = 10
"""Validation stops after this many errors; they are what the client is told."""
MAX_MESSAGE_CHARS = 300
"""An error message longer than this (it quotes the argument) is cut to this length."""
BACKTRACKING_MAX_CHARS = 1000
"""Longest string checked against a pattern RE2 cannot run (backreferences, lookaround):
Python's backtracking ``re`` runs those, so a longer string fails validation unchecked."""
REGEX_FORMAT_MAX_CHARS = 1000
"""Longest string checked for ``format: regex`` (``re.compile`` takes ~1 s on 1 MB, and
raises RecursionError on deep groups); a longer one fails validation unchecked."""
VALIDATION_BUDGET_S = 0.5
"""Seconds one validation may take (jsonschema spends ~10 us per array item: a 4 MiB body
of 2M numbers would hold the event loop for ~20 s); past it the arguments are refused."""


class InvalidArguments(Exception):
    """Raised when tool arguments fail validation; the client gets an ``isError`` result.

    Attributes:
        errors: entries ``{"type", "loc", "msg"}``; ``loc`` is the path to the argument.
    """

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        self.errors = errors
        super().__init__(self.describe())

    def describe(self) -> str:
        """One line per failing argument: ``location: message``."""
        lines = []
        for error in self.errors:
            where = ".".join(str(part) for part in error["loc"]) or "arguments"
            lines.append(f"{where}: {error['msg']}")
        return "; ".join(lines)


class ArgumentValidator:
    """A compiled schema: ``advertised`` for listings, ``validate`` for calls."""

    def __init__(self, advertised: dict[str, Any]) -> None:
        self.advertised = advertised

    def validate(self, arguments: Any) -> Any:
        """Return the arguments to call with, or raise ``InvalidArguments``."""
        raise NotImplementedError  # pragma: no cover - abstract


_TOO_DEEP: Final = {
    "type": "too_deep",
    "loc": [],
    "msg": "arguments are nested too deeply to validate",
}


_T = TypeVar("_T")


class _Clock(threading.local):
    deadline = math.inf


_clock = _Clock()


class _OverBudget(Exception):
    """Validation ran past ``VALIDATION_BUDGET_S``."""


def _check_budget() -> None:
    if time.monotonic() > _clock.deadline:
        raise _OverBudget


def _on_the_clock_each(items: Iterable[_T]) -> Iterator[_T]:
    """``items``, checking the budget every 4096 (loops that descend nowhere)."""
    for index, item in enumerate(items):
        if not index & 0xFFF:
            _check_budget()
        yield item


class _DictValidator(ArgumentValidator):
    def __init__(self, schema: Mapping[str, Any]) -> None:
        super().__init__(dict(schema))
        base = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        checker = _format_checker(base)
        self._validator = _hardened(base)(schema, format_checker=checker)
        self._certainly_valid = compile_fast(schema, checker)

    def validate(self, arguments: Any) -> Any:
        if self._certainly_valid is not None and self._certainly_valid(arguments):
            return arguments  # the common shape, decided in a few microseconds
        _clock.deadline = time.monotonic() + VALIDATION_BUDGET_S
        try:
            first = itertools.islice(self._validator.iter_errors(arguments), MAX_REPORTED_ERRORS)
            found = sorted(first, key=_error_order)
        except RecursionError:  # only in-process: transports refuse deep JSON when decoding
            raise InvalidArguments([dict(_TOO_DEEP)]) from None
        except _OverBudget:
            message = (
                f"validation stopped after {VALIDATION_BUDGET_S} s: the arguments are too large"
            )
            raise InvalidArguments([{"type": "budget", "loc": [], "msg": message}]) from None
        finally:
            _clock.deadline = math.inf
        if not found:
            return arguments
        raise InvalidArguments([_entry(error) for error in found])


def _error_order(error: jsonschema.exceptions.ValidationError) -> tuple[str, ...]:
    return tuple(str(part) for part in error.absolute_path)


def _entry(error: jsonschema.exceptions.ValidationError) -> dict[str, Any]:
    message = _cut(error.message)
    if isinstance(error.cause, _Unchecked):
        message = f"{message} ({error.cause})"
    return {"type": str(error.validator), "loc": list(error.absolute_path), "msg": message}


def _cut(message: str) -> str:
    """At most ``MAX_MESSAGE_CHARS``: the middle goes (messages quote the argument first)."""
    limit = MAX_MESSAGE_CHARS
    if len(message) <= limit:
        return message
    tail = limit // 3
    return message[: limit - tail - 1] + "\u2026" + message[-tail:]


def _short(value: Any) -> str:
    """``repr(value)`` for a message, a long string cut to its start and length."""
    if isinstance(value, str) and len(value) > _QUOTED_CHARS:
        return repr(value[:_QUOTED_CHARS]) + f"... ({len(value)} characters)"
    return repr(value)


_QUOTED_CHARS: Final = 50


class _ModelValidator(ArgumentValidator):
    def __init__(self, model: type[BaseModel]) -> None:
        super().__init__(inline_refs(model.model_json_schema()))
        self._model = model

    def validate(self, arguments: Any) -> Any:
        try:
            return self._model.model_validate(arguments)
        except ValidationError as exc:
            entries = [
                {"type": item["type"], "loc": list(item["loc"]), "msg": _cut(item["msg"])}
                for item in itertools.islice(exc.errors(include_url=False), MAX_REPORTED_ERRORS)
            ]
            raise InvalidArguments(entries) from None
        except RecursionError:
            raise InvalidArguments([dict(_TOO_DEEP)]) from None


# -- regular expressions: RE2 (linear time) where it can, guarded ``re`` elsewhere ------------
#
# JSON Schema patterns are ECMA-262 regexes. RE2 runs in time linear in the input; its
# syntax and classes are close to ECMA-262 (ASCII ``\d``, ``\w``, ``\b``; ``$`` only at
# the end), and the few gaps are translated: ``\uXXXX`` and ``\cX`` escapes, and ECMA's
# Unicode ``\s``. What RE2 cannot express (backreferences, lookaround, Python-only syntax)
# runs on Python's backtracking ``re``: refused at build when a repeat nests another
# repeat, an alternation or a backreference (exponential), and limited to
# ``BACKTRACKING_MAX_CHARS`` characters at validation.

_ECMA_SPACE: Final = (
    r"\t\n\v\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}"
)
_HEX4: Final = re.compile(r"[0-9A-Fa-f]{4}")
_RE2_OPTIONS: Final = re2.Options()
_RE2_OPTIONS.log_errors = False
_RE2_OPTIONS.never_capture = True
_UNANCHORED: Final = re2._re2.RE2.Anchor.UNANCHORED
_NO_MATCH: Final = (-1, -1)


class _Unchecked(Exception):
    """A string that a limit kept from being checked; its text ends the error message."""


class _Regex:
    """A compiled schema pattern: ``search(text)`` says whether it matches anywhere."""

    __slots__ = ("_re", "_re2", "linear", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._re2: Any = _compile_re2(source)
        self._re: re.Pattern[str] | None = None
        self.linear = self._re2 is not None
        if self._re2 is None:
            self._re = re.compile(source)
            if _backtracks_badly(source):
                raise ValueError(
                    f"pattern {source!r} needs Python's backtracking regex engine (RE2 cannot "
                    "run it) and nests a repeat inside a repeat, which takes exponential time on "
                    "hostile input: rewrite it without the nesting, or validate in "
                    "validate_request()"
                )

    def search(self, text: str) -> bool:
        """True when the pattern matches somewhere in ``text``; ``_Unchecked`` past a limit."""
        if self._re2 is not None:
            data = text.encode("utf-8", "surrogatepass")
            return bool(self._re2.Match(_UNANCHORED, data, 0, len(data))[0] != _NO_MATCH)
        if len(text) > BACKTRACKING_MAX_CHARS:
            raise _Unchecked(
                f"{len(text)} characters is over the {BACKTRACKING_MAX_CHARS} a pattern with "
                "lookaround or backreferences is checked against"
            )
        assert self._re is not None
        return self._re.search(text) is not None


_REGEXES: dict[str, _Regex] = {}


def _regex(source: str) -> _Regex:
    """The compiled ``source`` (schema patterns are server code: the cache stays small)."""
    found = _REGEXES.get(source)
    if found is None:
        found = _REGEXES[source] = _Regex(source)
    return found


def _compile_re2(source: str) -> Any:
    translated = _ecma_to_re2(source)
    if translated is None:
        return None
    try:
        compiled = re2._re2.RE2(translated.encode("utf-8"), _RE2_OPTIONS)
    except UnicodeEncodeError:  # a lone surrogate in the pattern
        return None
    return compiled if compiled.ok() else None


def _ecma_to_re2(source: str) -> str | None:  # noqa: C901 - one tokenizer, kept whole
    """ECMA-262 pattern syntax to RE2's; None when it has no RE2 equivalent."""
    out: list[str] = []
    in_class = False
    i, n = 0, len(source)
    while i < n:
        char = source[i]
        if char != "\\":
            if char == "[" and not in_class:
                in_class = True
            elif char == "]" and in_class:
                in_class = False
            out.append(char)
            i += 1
            continue
        escape = source[i + 1 : i + 2]
        if escape == "u" and _HEX4.fullmatch(source, i + 2, i + 6):
            code, i = int(source[i + 2 : i + 6], 16), i + 6
            if 0xD800 <= code <= 0xDBFF and source[i : i + 2] == "\\u":
                low = source[i + 2 : i + 6]
                if _HEX4.fullmatch(low) and 0xDC00 <= int(low, 16) <= 0xDFFF:
                    code = 0x10000 + ((code - 0xD800) << 10) + int(low, 16) - 0xDC00
                    i += 6
            if 0xD800 <= code <= 0xDFFF:
                return None  # a lone surrogate: UTF-8 RE2 has no such character
            out.append(f"\\x{{{code:X}}}")
            continue
        if escape == "c" and source[i + 2 : i + 3].isascii() and source[i + 2 : i + 3].isalpha():
            out.append(f"\\x{{{ord(source[i + 2]) % 32:X}}}")
            i += 3
            continue
        if escape == "s":
            out.append(_ECMA_SPACE if in_class else f"[{_ECMA_SPACE}]")
        elif escape == "S":
            if in_class:
                return None
            out.append(f"[^{_ECMA_SPACE}]")
        else:
            out.append(source[i : i + 2])
        i += 2
    return "".join(out)


_sre_parser: Any = importlib.import_module("re._parser")
_sre: Any = importlib.import_module("re._constants")
_REPEATS: Final = frozenset(
    getattr(_sre, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
)


def _backtracks_badly(source: str) -> bool:
    """True when a repeat contains a repeat, an alternation or a backreference."""
    return _nested_repeat(_sre_parser.parse(source), inside=False)


def _nested_repeat(pattern: Any, *, inside: bool) -> bool:
    for op, arg in pattern:
        if op in _REPEATS:
            _low, high, body = arg
            if high > 1 and inside:
                return True
            if _nested_repeat(body, inside=inside or high > 1):
                return True
        elif inside and op in (_sre.BRANCH, _sre.GROUPREF, _sre.GROUPREF_EXISTS):
            return True
        elif any(_nested_repeat(sub, inside=inside) for sub in _subpatterns(arg)):
            return True
    return False


def _subpatterns(arg: Any) -> Iterator[Any]:
    if isinstance(arg, _sre_parser.SubPattern):
        yield arg
    elif isinstance(arg, tuple | list):
        for item in arg:
            yield from _subpatterns(item)


_PATTERN_MAPS: Final = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
_DATA_KEYWORDS: Final = frozenset({"const", "default", "enum", "examples"})


def _schema_patterns(node: Any) -> Iterator[str]:
    """The ``pattern``/``patternProperties`` regexes of a schema (best effort, for build)."""
    if isinstance(node, list):
        for item in node:
            yield from _schema_patterns(item)
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if key in _DATA_KEYWORDS:
            continue
        if key == "pattern" and isinstance(value, str):
            yield value
        elif key in _PATTERN_MAPS and isinstance(value, dict):
            if key == "patternProperties":
                yield from (name for name in value if isinstance(name, str))
            for sub in value.values():
                yield from _schema_patterns(sub)
        else:
            yield from _schema_patterns(value)


# -- hardened keywords -------------------------------------------------------------------


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "string"):
        return
    try:
        matched = _regex(pattern).search(instance)
    except _Unchecked as exc:
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
        regex = _regex(pattern)
        for key, value in _on_the_clock_each(instance.items()):
            try:
                matched = regex.search(key)
            except _Unchecked as exc:
                yield SchemaValidationError(
                    f"property name {_short(key)} was not checked against {pattern!r}: {exc}",
                    path=[key],
                )
                continue
            if matched:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _matches_any(regexes: list[_Regex], key: str) -> bool:
    for regex in regexes:
        try:
            if regex.search(key):
                return True
        except _Unchecked:  # patternProperties reports it
            pass
    return False


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    regexes = [_regex(pattern) for pattern in schema.get("patternProperties", {})]
    extras = [
        key
        for key in _on_the_clock_each(instance)
        if key not in properties and not _matches_any(regexes, key)
    ]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        shown = ", ".join(_short(key) for key in sorted(extras)[:MAX_REPORTED_ERRORS])
        more = (
            f" and {len(extras) - MAX_REPORTED_ERRORS} more"
            if len(extras) > MAX_REPORTED_ERRORS
            else ""
        )
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

    Linear: arrays of only strings or only numbers are checked at C speed (a set of
    strings, a sort of numbers); any other array keys each item by a hashable form whose
    numbers are strings, so no hash an attacker can collide (Python's int hash is not
    randomized, its str hash is). jsonschema's own check is quadratic for objects.
    """
    kinds = set(map(type, items))
    if kinds <= {str} and len(set(items)) == len(items):
        return None
    if kinds <= {int, float} and not (float in kinds and any(map(math.isnan, items))):
        ordered = sorted(items)
        if not any(map(operator.eq, ordered, itertools.islice(ordered, 1, None))):
            return None
    seen: dict[Any, int] = {}
    for index, item in enumerate(items):
        if not index & 0xFFF:
            _check_budget()
        try:
            key = _key(item)
        except (TypeError, ValueError):  # not JSON data (only in-process), or NaN
            continue
        first = seen.setdefault(key, index)
        if first != index:
            return (first, index)
    return None


def _key(value: Any) -> Any:
    """A hashable form of a JSON value; equal exactly when the values are equal."""
    kind = type(value)
    if kind is str:
        return value
    if kind is dict:
        return (5, *sorted([(name, _key(item)) for name, item in value.items()]))
    if kind is list:
        return (4, *[_key(item) for item in value])
    if value is None:
        return (0,)
    if kind is bool:
        return (1, value)
    if kind is int:
        return (2, str(value))
    if kind is float:
        if value != value:
            raise ValueError("NaN equals nothing")
        return (2, str(int(value)) if value.is_integer() else repr(value))
    raise TypeError(f"not a JSON value: {kind.__name__}")


def _unevaluated_items(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """jsonschema's, with the evaluated indexes in a set (its list makes it quadratic)."""
    if not validator.is_type(instance, "array"):
        return
    find = jsonschema._utils.find_evaluated_item_indexes_by_schema
    evaluated = set(find(validator, instance, schema))
    unevaluated = [item for index, item in enumerate(instance) if index not in evaluated]
    if unevaluated:
        shown = ", ".join(_short(item) for item in unevaluated[:MAX_REPORTED_ERRORS])
        yield SchemaValidationError(
            f"Unevaluated items are not allowed ({len(unevaluated)} unexpected: {shown})"
        )


def _unevaluated_properties(
    validator: Any, extra: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    """jsonschema's (2020-12), with a set of evaluated keys and patterns on ``_regex``."""
    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema)
    unevaluated = [
        key
        for key, value in instance.items()
        if key not in evaluated
        and next(validator.descend(value, extra, path=key, schema_path=key), None) is not None
    ]
    if unevaluated:
        shown = ", ".join(_short(key) for key in sorted(unevaluated)[:MAX_REPORTED_ERRORS])
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
        regexes = [_regex(pattern) for pattern in schema["patternProperties"]]
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
    """``format: regex`` on client data: as ``_compiles``, but long strings are refused."""
    if isinstance(instance, str) and len(instance) > REGEX_FORMAT_MAX_CHARS:
        raise _Unchecked(f"over {REGEX_FORMAT_MAX_CHARS} characters: not checked")
    return _compiles(instance)


def _compiles(instance: object) -> bool:
    """RE2 or Python's ``re`` compiles it: ECMA's ``\\p{L}`` and ``(?<name>...)`` pass,
    and so do Python's lookbehinds."""
    if not isinstance(instance, str) or _compile_re2(instance) is not None:
        return True
    try:
        re.compile(instance)
    except RecursionError:
        raise _Unchecked("nested too deeply to check") from None
    return True


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
_CLASSES: dict[type[Any], type[Any]] = {}
_CHECKERS: dict[tuple[type[Any], bool], jsonschema.FormatChecker] = {}


def _hardened(base: type[Any]) -> type[Any]:
    """``base`` with the hostile-input keywords replaced and every keyword on the clock."""
    cls = _CLASSES.get(base)
    if cls is None:
        replaced = dict(_HARDENED)
        if base.VALIDATORS.get("unevaluatedProperties") is _keywords.unevaluatedProperties:
            replaced.update(_HARDENED_2020)  # 2020-12; 2019-09 keeps jsonschema's own
        keywords = {
            name: _on_the_clock(replaced.get(name, fn)) for name, fn in base.VALIDATORS.items()
        }
        cls = _CLASSES[base] = _extend(base, keywords)
    return cls


def _on_the_clock(keyword: Any) -> Any:
    def timed(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if time.monotonic() > _clock.deadline:
            raise _OverBudget
        errors = keyword(validator, value, instance, schema)
        if errors is not None:
            yield from errors

    timed.__name__ = getattr(keyword, "__name__", "keyword")
    return timed


def _format_checker(base: type[Any], *, for_schemas: bool = False) -> jsonschema.FormatChecker:
    """``base``'s format checks with ``regex`` replaced (``for_schemas``: no length limit)."""
    checker = _CHECKERS.get((base, for_schemas))
    if checker is None:
        checker = jsonschema.FormatChecker(formats=())
        checker.checkers = dict(base.FORMAT_CHECKER.checkers)
        if "regex" in checker.checkers:
            check = _compiles if for_schemas else _is_regex
            checker.checkers["regex"] = (check, (re.error, _Unchecked))
        _CHECKERS[base, for_schemas] = checker
    return checker


def compile_schema(schema: SchemaLike, *, owner: str) -> ArgumentValidator:
    """Compile a tool schema once; raise ``TypeError``/``ValueError`` naming ``owner``."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return _ModelValidator(schema)
    if not isinstance(schema, Mapping):
        raise TypeError(
            f"{owner}: a schema must be a dict or a pydantic model class, not {schema!r}"
        )
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    meta_check: Any = cls.check_schema  # typeshed's protocol lacks format_checker=
    try:
        meta_check(dict(schema), format_checker=_format_checker(cls, for_schemas=True))
    except jsonschema.exceptions.SchemaError as exc:
        raise ValueError(f"{owner}: invalid JSON Schema: {exc.message}") from None
    for pattern in _schema_patterns(schema):
        try:
            _regex(pattern)
        except (ValueError, re.error) as exc:
            raise ValueError(f"{owner}: {exc}") from None
    return _DictValidator(schema)


def advertised_schema(schema: SchemaLike, *, owner: str) -> dict[str, Any]:
    """The JSON Schema dict to advertise for ``schema`` (models inlined)."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return inline_refs(schema.model_json_schema())
    if not isinstance(schema, Mapping):
        raise TypeError(
            f"{owner}: a schema must be a dict or a pydantic model class, not {schema!r}"
        )
    return dict(schema)


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace local ``#/$defs/X`` references by their definitions.

    Recursive definitions cannot be inlined; they keep their ``$ref`` and the
    needed ``$defs`` stay, so the result is still self-contained.
    """
    defs: dict[str, Any] = schema.get("$defs", {})
    kept: set[str] = set()

    def walk(node: Any, active: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(item, active) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in active or name not in defs:
                kept.add(name)
                return node
            target = walk(copy.deepcopy(defs[name]), (*active, name))
            siblings = {k: walk(v, active) for k, v in node.items() if k != "$ref"}
            return {**target, **siblings}
        return {k: walk(v, active) for k, v in node.items() if k != "$defs"}

    result: dict[str, Any] = walk(schema, ())
    if kept:
        result["$defs"] = {name: walk(defs[name], (name,)) for name in sorted(kept) if name in defs}
    return result

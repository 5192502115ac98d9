"""Tool schemas: compile once, advertise as self-contained JSON Schema, validate arguments.

A schema is a JSON Schema dict (validated with ``jsonschema``, format checks
on, 2020-12 unless ``$schema`` says otherwise, advertised verbatim) or a
pydantic model class (advertised with its ``$ref``s inlined; arguments are
cast into a model instance). Validation failures become ``InvalidArguments``
with pydantic-core style entries (``type``, ``loc``, ``msg``).

Arguments are hostile input (DESIGN §9). Dict schemas are validated by jsonschema with
its slow or unbounded keywords replaced: ``pattern`` and ``patternProperties`` (and what
depends on them) run on RE2 in linear time, ``uniqueItems`` and ``unevaluated*`` are
linear, ``format: regex`` is bounded, messages never quote a huge value, and every keyword
checks a time budget (``VALIDATION_BUDGET_S``). A pattern RE2 cannot run is refused at build
unless the tool opts in (``schema_options``). The limits are the module constants below.

Validation must never hold the event loop: ``ArgumentValidator.inline`` validates only what
is certainly cheap (small arguments, no user code, no backtracking pattern) under a slice
of ``INLINE_SLICE_S``, and says when it did not finish; ``schema.offload`` then runs
``validate`` in a thread with the whole budget.

This module is the API; the parts live beside it: ``schema.regex`` (ECMA-262 patterns on
RE2), ``schema.sandbox`` (backtracking patterns in helper processes), ``schema.keywords``
(the hardened keywords), ``schema.terse`` (short messages), ``schema.clock`` (the budget),
``schema.options`` (build options), ``schema.refs`` (``$ref`` inlining), ``fastcheck``
(the fast path for common schemas) and ``schema.offload`` (the asyncio side).

Imports no asyncio and no web framework.
"""

from __future__ import annotations

import abc
import itertools
import logging
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

import jsonschema
import jsonschema.exceptions
import jsonschema.validators
from pydantic import BaseModel, ValidationError

from genmcp.schema import keywords
from genmcp.schema.clock import Budget, OverBudget
from genmcp.schema.fastcheck import compile_fast
from genmcp.schema.options import SchemaOptions, merge_options
from genmcp.schema.refs import inline_refs
from genmcp.schema.regex import regex, schema_patterns

__all__ = [
    "BACKTRACKING_MAX_CHARS",
    "INLINE_MAX_CHARS",
    "INLINE_MAX_NODES",
    "INLINE_SLICE_S",
    "MAX_MESSAGE_CHARS",
    "MAX_REPORTED_ERRORS",
    "REGEX_FORMAT_MAX_CHARS",
    "VALIDATION_BUDGET_S",
    "ArgumentValidator",
    "InvalidArguments",
    "SchemaLike",
    "SchemaOptions",
    "advertised_schema",
    "compile_schema",
    "inline_refs",
    "merge_options",
]

log = logging.getLogger("genmcp")

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
of 2M numbers would take ~20 s); past it the arguments are refused. Counted from the moment
validation is asked for, so waiting for a validation thread counts too."""
INLINE_SLICE_S = 0.005
"""Longest validation run on the event loop: past it, it starts again in a thread."""
INLINE_MAX_NODES = 1000
"""Arguments with more values than this (items, properties, nested) validate in a thread."""
INLINE_MAX_CHARS = 65536
"""Arguments whose strings and keys hold more characters than this validate in a thread."""


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


class ArgumentValidator(abc.ABC):
    """A compiled schema: ``advertised`` for listings, ``validate`` for calls.

    ``validate`` runs on the calling thread with the whole budget; ``inline`` is the event
    loop's try (``schema.offload.validate_off_loop`` combines the two).
    """

    #: False when validation may run user code or a backtracking pattern: never inline.
    inline_safe = True

    def __init__(self, advertised: dict[str, Any]) -> None:
        self.advertised = advertised

    def validate(self, arguments: Any, *, budget: Budget | None = None) -> Any:
        """Return the arguments to call with, or raise ``InvalidArguments``.

        ``budget`` bounds it (default: ``VALIDATION_BUDGET_S`` from now).
        """
        try:
            return self._check(arguments, budget or Budget(VALIDATION_BUDGET_S))
        except OverBudget:
            raise InvalidArguments([over_budget()]) from None

    def inline(self, arguments: Any) -> tuple[bool, Any]:
        """``(True, arguments to call with)`` when validated within ``INLINE_SLICE_S``;
        ``(False, None)`` when it must run off the loop. Raises ``InvalidArguments``."""
        if not (self.inline_safe and _small(arguments)):
            return False, None
        try:
            return True, self._check(arguments, Budget(INLINE_SLICE_S))
        except OverBudget:
            return False, None

    @abc.abstractmethod
    def _check(self, arguments: Any, budget: Budget) -> Any:
        """Validate under ``budget``: the arguments, or ``InvalidArguments``/``OverBudget``."""


_SCALARS: Final = (int, float, bool, type(None))


def _small(value: Any) -> bool:
    """At most ``INLINE_MAX_NODES`` values and ``INLINE_MAX_CHARS`` characters (bounded walk)."""
    if type(value) is dict and len(value) <= 32:  # the usual flat arguments, decided at once
        chars = 0
        for key, item in value.items():
            if type(item) is str:
                chars += len(item)
            elif not isinstance(item, _SCALARS):
                break
            chars += len(key)
        else:
            return chars <= INLINE_MAX_CHARS
    nodes, chars, stack = INLINE_MAX_NODES, INLINE_MAX_CHARS, [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            nodes -= len(node)
            for key, item in node.items():
                chars -= len(key)
                stack.append(item)
        elif isinstance(node, list):
            nodes -= len(node)
            stack.extend(node)
        elif isinstance(node, str):
            chars -= len(node)
        if nodes < 0 or chars < 0:
            return False
    return True


class _Knobs:
    """This module's limits, read at each use by ``schema.keywords``: assigning one counts."""

    @property
    def max_reported(self) -> int:
        return MAX_REPORTED_ERRORS

    @property
    def backtracking_max_chars(self) -> int:
        return BACKTRACKING_MAX_CHARS

    @property
    def regex_format_max_chars(self) -> int:
        return REGEX_FORMAT_MAX_CHARS


keywords.read_limits_from(_Knobs())

_TOO_DEEP: Final = {
    "type": "too_deep",
    "loc": [],
    "msg": "arguments are nested too deeply to validate",
}


class _DictValidator(ArgumentValidator):
    def __init__(self, schema: Mapping[str, Any], options: SchemaOptions, base: Any) -> None:
        super().__init__(dict(schema))
        used = set(_formats_used(schema))
        formats = {name: check for name, check in options.formats.items() if name in used}
        checker = keywords.format_checker(base, formats)
        self._validator = keywords.hardened(base)(
            schema, format_checker=checker if options.check_formats else None
        )
        fast_checker = checker if options.check_formats else jsonschema.FormatChecker(formats=())
        self._certainly_valid = compile_fast(schema, fast_checker, dialect=options.default_dialect)
        backtracking = any(not regex(each).linear for _, each in schema_patterns(schema))
        self.inline_safe = not (backtracking or (formats and options.check_formats))

    def inline(self, arguments: Any) -> tuple[bool, Any]:
        if (
            self.inline_safe
            and self._certainly_valid is not None
            and _small(arguments)
            and self._certainly_valid(arguments)
        ):
            return True, arguments  # the common shape: no budget to start
        return super().inline(arguments)

    def _check(self, arguments: Any, budget: Budget) -> Any:
        if self._certainly_valid is not None and self._certainly_valid(arguments):
            return arguments  # the common shape, decided in a few microseconds
        keywords.start_clock(budget)
        try:
            first = itertools.islice(self._validator.iter_errors(arguments), MAX_REPORTED_ERRORS)
            found = sorted(first, key=_error_order)
        except RecursionError:  # only in-process: transports refuse deep JSON when decoding
            raise InvalidArguments([dict(_TOO_DEEP)]) from None
        except (OverBudget, InvalidArguments):
            raise
        except Exception as exc:  # a keyword failing on client data is still the client's input
            log.warning("schema validation raised on client arguments", exc_info=True)
            message = f"the arguments could not be validated ({type(exc).__name__})"
            raise InvalidArguments([{"type": "unvalidatable", "loc": [], "msg": message}]) from None
        except BaseException as exc:
            # rpds (Rust, under jsonschema's resolver) turns a RecursionError into a panic
            if type(exc).__name__ == "PanicException" and "RecursionError" in str(exc):
                raise InvalidArguments([dict(_TOO_DEEP)]) from None
            raise
        finally:
            keywords.stop_clock()
        if not found:
            return arguments
        raise InvalidArguments([_entry(error) for error in found])


def over_budget() -> dict[str, Any]:
    """The error entry of a validation stopped by its budget."""
    message = f"validation stopped after {VALIDATION_BUDGET_S} s: the arguments are too large"
    return {"type": "budget", "loc": [], "msg": message}


def _formats_used(node: Any) -> Iterator[str]:
    """The ``format`` names a schema mentions (best effort, like ``schema_patterns``)."""
    if isinstance(node, list):
        for item in node:
            yield from _formats_used(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "format" and isinstance(value, str):
                yield value
            elif key not in ("const", "enum", "default", "examples"):
                yield from _formats_used(value)


def _error_order(error: jsonschema.exceptions.ValidationError) -> tuple[str, ...]:
    return tuple(str(part) for part in error.absolute_path)


def _entry(error: jsonschema.exceptions.ValidationError) -> dict[str, Any]:
    message = error.message
    if error.cause is not None and str(error.cause):  # a format checker's reason
        message = f"{message} ({error.cause})"
    message = _cut(message)
    return {"type": str(error.validator), "loc": list(error.absolute_path), "msg": message}


def _cut(message: str) -> str:
    """At most ``MAX_MESSAGE_CHARS``: the middle goes (messages quote the argument first)."""
    limit = MAX_MESSAGE_CHARS
    if len(message) <= limit:
        return message
    tail = limit // 3
    return message[: limit - tail - 1] + "\u2026" + message[-tail:]


_NO_BUDGET: Final = Budget(0.0)


class _ModelValidator(ArgumentValidator):
    def __init__(self, model: type[BaseModel]) -> None:
        super().__init__(inline_refs(model.model_json_schema()))
        self._model = model

    def inline(self, arguments: Any) -> tuple[bool, Any]:
        if not _small(arguments):
            return False, None
        return True, self._check(arguments, _NO_BUDGET)  # small: pydantic's core is quick

    def _check(self, arguments: Any, budget: Budget) -> Any:
        # pydantic cannot be interrupted: the budget is enforced by whoever waits (offload)
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


def compile_schema(
    schema: SchemaLike, *, owner: str, options: SchemaOptions | None = None
) -> ArgumentValidator:
    """Compile a tool schema once; raise ``TypeError``/``ValueError`` naming ``owner``.

    ``options`` (``merge_options``) apply to dict schemas; a pydantic model ignores them.
    """
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return _ModelValidator(schema)
    if not isinstance(schema, Mapping):
        raise TypeError(
            f"{owner}: a schema must be a dict or a pydantic model class, not {schema!r}"
        )
    options = options or SchemaOptions()
    unknown: Any = None  # validator_for's default when $schema is not a known dialect
    default = jsonschema.validators.validator_for({"$schema": options.default_dialect}, unknown)
    if default is None:
        raise ValueError(
            f"{owner}: schema_options default_dialect {options.default_dialect!r} is not a "
            "JSON Schema dialect jsonschema knows"
        )
    cls = jsonschema.validators.validator_for(schema, default=default)
    meta_check: Any = cls.check_schema  # typeshed's protocol lacks format_checker=
    checker = keywords.format_checker(cls, for_schemas=True)
    try:
        meta_check(dict(schema), format_checker=checker)
    except jsonschema.exceptions.SchemaError as exc:
        raise ValueError(f"{owner}: invalid JSON Schema: {exc.message}") from None
    for where, pattern in schema_patterns(schema):
        _check_pattern(owner, where, pattern, options)
    return _DictValidator(schema, options, cls)


def _check_pattern(owner: str, where: str, pattern: str, options: SchemaOptions) -> None:
    try:
        compiled = regex(pattern)
    except (ValueError, re.error) as exc:
        raise ValueError(f"{owner}: at {where or '/'}: {exc}") from None
    if not compiled.linear and not options.backtracking_patterns:
        raise ValueError(
            f"{owner}: the pattern {pattern!r} at {where} needs backtracking (lookaround or "
            "backreferences: RE2 cannot run it, Python's re can take seconds on hostile "
            "input): rewrite it, or opt in for this tool with "
            "schema_options={'backtracking_patterns': True} (it then runs in a helper "
            "process under the validation budget)"
        )


def advertised_schema(schema: SchemaLike, *, owner: str) -> dict[str, Any]:
    """The JSON Schema dict to advertise for ``schema`` (models inlined)."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return inline_refs(schema.model_json_schema())
    if not isinstance(schema, Mapping):
        raise TypeError(
            f"{owner}: a schema must be a dict or a pydantic model class, not {schema!r}"
        )
    return dict(schema)

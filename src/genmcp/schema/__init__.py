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

This module is the API; the parts live beside it: ``schema.regex`` (ECMA-262 patterns on
RE2), ``schema.keywords`` (the hardened keywords and the budget clock), ``schema.refs``
(``$ref`` inlining) and ``fastcheck`` (the fast path for common schemas).

Imports no asyncio and no web framework.
"""

from __future__ import annotations

import abc
import itertools
import re
from collections.abc import Mapping
from typing import Any, Final

import jsonschema
import jsonschema.exceptions
import jsonschema.validators
from pydantic import BaseModel, ValidationError

from genmcp.schema import keywords
from genmcp.schema.fastcheck import compile_fast
from genmcp.schema.refs import inline_refs
from genmcp.schema.regex import Unchecked, regex, schema_patterns

__all__ = [
    "BACKTRACKING_MAX_CHARS",
    "MAX_MESSAGE_CHARS",
    "MAX_REPORTED_ERRORS",
    "REGEX_FORMAT_MAX_CHARS",
    "VALIDATION_BUDGET_S",
    "ArgumentValidator",
    "InvalidArguments",
    "SchemaLike",
    "advertised_schema",
    "compile_schema",
    "inline_refs",
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


class ArgumentValidator(abc.ABC):
    """A compiled schema: ``advertised`` for listings, ``validate`` for calls."""

    def __init__(self, advertised: dict[str, Any]) -> None:
        self.advertised = advertised

    @abc.abstractmethod
    def validate(self, arguments: Any) -> Any:
        """Return the arguments to call with, or raise ``InvalidArguments``."""


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
    def __init__(self, schema: Mapping[str, Any]) -> None:
        super().__init__(dict(schema))
        base = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        checker = keywords.format_checker(base)
        self._validator = keywords.hardened(base)(schema, format_checker=checker)
        self._certainly_valid = compile_fast(schema, checker)

    def validate(self, arguments: Any) -> Any:
        if self._certainly_valid is not None and self._certainly_valid(arguments):
            return arguments  # the common shape, decided in a few microseconds
        keywords.start_clock(VALIDATION_BUDGET_S)
        try:
            first = itertools.islice(self._validator.iter_errors(arguments), MAX_REPORTED_ERRORS)
            found = sorted(first, key=_error_order)
        except RecursionError:  # only in-process: transports refuse deep JSON when decoding
            raise InvalidArguments([dict(_TOO_DEEP)]) from None
        except keywords.OverBudget:
            message = (
                f"validation stopped after {VALIDATION_BUDGET_S} s: the arguments are too large"
            )
            raise InvalidArguments([{"type": "budget", "loc": [], "msg": message}]) from None
        finally:
            keywords.stop_clock()
        if not found:
            return arguments
        raise InvalidArguments([_entry(error) for error in found])


def _error_order(error: jsonschema.exceptions.ValidationError) -> tuple[str, ...]:
    return tuple(str(part) for part in error.absolute_path)


def _entry(error: jsonschema.exceptions.ValidationError) -> dict[str, Any]:
    message = _cut(error.message)
    if isinstance(error.cause, Unchecked):
        message = f"{message} ({error.cause})"
    return {"type": str(error.validator), "loc": list(error.absolute_path), "msg": message}


def _cut(message: str) -> str:
    """At most ``MAX_MESSAGE_CHARS``: the middle goes (messages quote the argument first)."""
    limit = MAX_MESSAGE_CHARS
    if len(message) <= limit:
        return message
    tail = limit // 3
    return message[: limit - tail - 1] + "\u2026" + message[-tail:]


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
    checker = keywords.format_checker(cls, for_schemas=True)
    try:
        meta_check(dict(schema), format_checker=checker)
    except jsonschema.exceptions.SchemaError as exc:
        raise ValueError(f"{owner}: invalid JSON Schema: {exc.message}") from None
    for pattern in schema_patterns(schema):
        try:
            regex(pattern)
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

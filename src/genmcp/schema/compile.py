"""The schema compiler: compile once, advertise as self-contained JSON Schema, validate.

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

``genmcp.schema`` is its face; the parts live beside it: ``schema.regex`` (ECMA-262 patterns on
RE2), ``schema.sandbox`` (backtracking patterns in helper processes), ``schema.keywords``
(the hardened keywords), ``schema.limits`` (the limits, assign to change), ``schema.terse``
(short messages), ``schema.clock`` (the budget),
``schema.options`` (build options), ``schema.refs`` (``$ref`` inlining), ``fastcheck``
(the fast path for common schemas), ``schema.offload`` (the asyncio side), and what keeps
the engines out of memory until used: ``schema.wellformed`` (a common schema proved valid
without jsonschema), ``schema.re2syntax`` (a plain pattern proved RE2's without loading it)
and ``schema.engine`` (the jsonschema side, imported on first need).

Imports no asyncio and no web framework (nor jsonschema or RE2 until a schema needs them).
"""

from __future__ import annotations

import abc
import functools
import itertools
import logging
import re
import threading
import time
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel, ValidationError

from genmcp.schema import limits
from genmcp.schema.clock import Budget, OverBudget, start_clock, stop_clock
from genmcp.schema.fastcheck import NO_FORMATS, Check, compile_fast
from genmcp.schema.options import SchemaOptions
from genmcp.schema.refs import inline_refs
from genmcp.schema.regex import regex, schema_patterns
from genmcp.schema.wellformed import plainly_valid

if TYPE_CHECKING:
    import jsonschema.exceptions

__all__ = [
    "ArgumentValidator",
    "InvalidArguments",
    "SchemaLike",
    "advertised_schema",
    "compile_schema",
    "over_budget",
]

log = logging.getLogger("genmcp")

SchemaLike = Mapping[str, Any] | type[BaseModel]

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
            return self._check(arguments, budget or Budget(limits.VALIDATION_BUDGET_S))
        except OverBudget:
            raise InvalidArguments([over_budget()]) from None

    def inline(self, arguments: Any) -> tuple[bool, Any]:
        """``(True, arguments to call with)`` when validated within ``INLINE_SLICE_S``;
        ``(False, None)`` when it must run off the loop. Raises ``InvalidArguments``."""
        if not (self.inline_safe and _small(arguments)):
            return False, None
        try:
            return True, self._check(arguments, Budget(limits.INLINE_SLICE_S))
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
            return chars <= limits.INLINE_MAX_CHARS
    nodes, chars, stack = limits.INLINE_MAX_NODES, limits.INLINE_MAX_CHARS, [value]
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


@functools.cache
def _engine() -> ModuleType:
    """``schema.engine`` (so jsonschema and ``schema.keywords``), imported on first need.

    Lazily: jsonschema costs ~3 MB of memory, and a schema ``schema.wellformed`` and
    ``schema.fastcheck`` decide alone does not need it until arguments fail the fast path.
    """
    from genmcp.schema import engine

    return engine


_BUILD_LOCK: Final = threading.Lock()

_TOO_DEEP: Final = {
    "type": "too_deep",
    "loc": [],
    "msg": "arguments are nested too deeply to validate",
}


class _DictValidator(ArgumentValidator):
    """A dict schema. ``base`` is its jsonschema class, or None when ``compile_schema``
    proved the schema valid without jsonschema: the engine (jsonschema's validator, and the
    fast path too when the schema checks a ``format``) is then built when first needed."""

    def __init__(self, schema: Mapping[str, Any], options: SchemaOptions, base: Any) -> None:
        super().__init__(dict(schema))
        self._schema, self._options = schema, options
        used = set(_formats_used(schema))
        self._formats = {name: check for name, check in options.formats.items() if name in used}
        self._validator: Any = None
        self._certainly_valid: Check | None = None
        # jsonschema's format checks need the engine: the fast path waits for it
        self._fast_pending = base is not None or (options.check_formats and bool(used))
        if base is not None:
            self._build(base)
        elif not self._fast_pending:
            dialect = options.default_dialect
            self._certainly_valid = compile_fast(schema, NO_FORMATS, dialect=dialect)
        backtracking = any(not regex(each).linear for _, each in schema_patterns(schema))
        self.inline_safe = not (backtracking or (self._formats and options.check_formats))

    def _build(self, base: Any) -> None:
        """The engine: the hardened jsonschema validator, and the fast path if it waited."""
        keywords, options = _engine().keywords, self._options
        checker = keywords.format_checker(base, self._formats)
        validator = keywords.hardened(base)(
            self._schema, format_checker=checker if options.check_formats else None
        )
        if self._fast_pending:
            fast_checker = checker if options.check_formats else NO_FORMATS
            dialect = options.default_dialect
            self._certainly_valid = compile_fast(self._schema, fast_checker, dialect=dialect)
            self._fast_pending = False
        self._validator = validator

    def _full(self) -> Any:
        """The jsonschema validator, built on first use (once, whichever thread asks)."""
        if self._validator is None:
            with _BUILD_LOCK:
                if self._validator is None:
                    dialect = self._options.default_dialect
                    self._build(_engine().dialect_class(self._schema, dialect, owner=""))
        return self._validator

    def inline(self, arguments: Any) -> tuple[bool, Any]:
        if (
            self.inline_safe
            and self._certainly_valid is not None
            and _small(arguments)
            and self._certainly_valid(arguments)
        ):
            return True, arguments  # the common shape: no budget to start
        if self._validator is None:
            return False, None  # the engine loads off the event loop, once
        return super().inline(arguments)

    def _check(self, arguments: Any, budget: Budget) -> Any:
        if self._certainly_valid is not None and self._certainly_valid(arguments):
            return arguments  # the common shape, decided in a few microseconds
        waited = self._fast_pending
        if self._validator is None:
            started = time.monotonic()
            self._full()
            budget.deadline += time.monotonic() - started  # loading is not the arguments' time
        validator = self._validator
        if waited and self._certainly_valid is not None and self._certainly_valid(arguments):
            return arguments  # the fast path that waited for the engine
        start_clock(budget)
        try:
            first = itertools.islice(validator.iter_errors(arguments), limits.MAX_REPORTED_ERRORS)
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
            stop_clock()
        if not found:
            return arguments
        raise InvalidArguments([_entry(error) for error in found])


def over_budget() -> dict[str, Any]:
    """The error entry of a validation stopped by its budget."""
    budget = limits.VALIDATION_BUDGET_S
    message = f"validation stopped after {budget} s: the arguments are too large"
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
    limit = limits.MAX_MESSAGE_CHARS
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
                for item in itertools.islice(
                    exc.errors(include_url=False), limits.MAX_REPORTED_ERRORS
                )
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
    if plainly_valid(schema, dialect=options.default_dialect):
        # valid against its meta-schema at a glance: jsonschema loads when first needed
        for where, pattern in schema_patterns(schema):
            _check_pattern(owner, where, pattern, options)
        return _DictValidator(schema, options, None)
    engine = _engine()
    cls = engine.dialect_class(schema, options.default_dialect, owner=owner)
    engine.check_meta(schema, cls, owner=owner)
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

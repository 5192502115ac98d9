"""Schema build options: what a tool (or a whole Suite) may change in how its schema compiles.

GenMCP's ``:jsv_build_opts`` in Python: a mapping merged over genmcp's defaults key by key,
first the Suite's ``schema_options=``, then the tool's (class option or
``schema_options(arg)`` hook). The keys:

- ``formats``: ``{name: checker}``, extra ``format`` checkers. A checker takes the value and
  returns a bool, or raises (the value is then invalid and the exception's text is told to
  the client). Merged by name over the Suite's; ``None`` for a name drops it for this tool.
- ``check_formats``: ``True`` (default) checks ``format``; ``False`` makes it an annotation.
- ``default_dialect``: the ``$schema`` URI assumed when a schema has none (default 2020-12).
- ``backtracking_patterns``: ``True`` lets this tool's patterns use what RE2 cannot run
  (lookaround, backreferences); they then run in a helper process under the validation
  budget. Per tool only: a Suite-wide default may not set it.

Options change validation only, never the advertised ``inputSchema``. Pydantic-model
schemas ignore them (pydantic validates; use ``Annotated`` validators for formats).
Pure: imports no asyncio and no web framework; nothing from genmcp.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

__all__ = ["DEFAULT_DIALECT", "DEFAULT_OPTIONS", "FormatCheck", "SchemaOptions", "merge_options"]

FormatCheck = Callable[[Any], object]
"""A ``format`` checker: a falsy return or an exception means the value is invalid."""

DEFAULT_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
_KEYS: Final = ("formats", "check_formats", "default_dialect", "backtracking_patterns")


@dataclass(frozen=True, slots=True)
class SchemaOptions:
    """The merged options one tool's schema is compiled with."""

    formats: Mapping[str, FormatCheck] = field(default_factory=dict)
    check_formats: bool = True
    default_dialect: str = DEFAULT_DIALECT
    backtracking_patterns: bool = False


DEFAULT_OPTIONS: Final = SchemaOptions(formats=MappingProxyType({}))
"""genmcp's defaults: the options of every tool that sets none (shared, read-only)."""


def merge_options(
    suite: Mapping[str, Any] | None, tool: Mapping[str, Any] | None, *, owner: str
) -> SchemaOptions:
    """genmcp's defaults, then ``suite``'s keys, then ``tool``'s; ``TypeError`` naming ``owner``."""
    if suite is None and tool is None:  # most tools: one shared value, not one per tool
        return DEFAULT_OPTIONS
    merged: dict[str, Any] = {}
    formats: dict[str, FormatCheck] = {}
    for where, given in (("Suite schema_options", suite), (f"{owner}: schema_options", tool)):
        if given is None:
            continue
        if not isinstance(given, Mapping):
            raise TypeError(f"{where} must be a mapping, not {given!r}")
        unknown = sorted(set(given) - set(_KEYS))
        if unknown:
            raise TypeError(
                f"{where}: unknown key(s) {', '.join(map(str, unknown))}; known: {', '.join(_KEYS)}"
            )
        if where.startswith("Suite") and "backtracking_patterns" in given:
            raise TypeError(
                "Suite schema_options: backtracking_patterns is set per tool only "
                "(an explicit opt-in on the tool that needs it)"
            )
        formats.update(_formats(given.get("formats", {}), where))
        merged.update({key: value for key, value in given.items() if key != "formats"})
    for key in ("check_formats", "backtracking_patterns"):
        if key in merged and not isinstance(merged[key], bool):
            raise TypeError(f"{owner}: schema_options {key} must be True or False")
    dialect = merged.get("default_dialect", DEFAULT_DIALECT)
    if not isinstance(dialect, str):
        raise TypeError(f"{owner}: schema_options default_dialect must be a $schema URI string")
    return SchemaOptions(
        formats={name: check for name, check in formats.items() if check is not None},
        check_formats=merged.get("check_formats", True),
        default_dialect=dialect,
        backtracking_patterns=merged.get("backtracking_patterns", False),
    )


def _formats(given: Any, where: str) -> dict[str, Any]:
    if not isinstance(given, Mapping):
        raise TypeError(f"{where}: formats must map a format name to a checker")
    for name, check in given.items():
        if not isinstance(name, str) or not (check is None or callable(check)):
            raise TypeError(
                f"{where}: formats[{name!r}] must be a callable (value -> bool), or None"
            )
    return dict(given)

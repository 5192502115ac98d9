"""One served tool as the Suite builds it once: :class:`ToolEntry` (the instance, its
provider ``arg``, the compiled input and output validators, the ``tools/list`` descriptor, the
``x-mcp-header`` parameters), and :class:`Pending`, the validator of a schema compiled at its
first call (``Suite(lazy_schemas=True)``).

Building an entry runs the tool's metadata hooks once (unless they are ``Tool``'s defaults:
then its options are read), so a misconfigured tool fails when the Suite is built, not at the
first call. Compact: a catalog may hold 100,000 (bench/RESULTS.md, issue 50).

Imports genmcp's core modules; never a web framework.
"""

from __future__ import annotations

import logging
import operator
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from genmcp.apps import AppView
from genmcp.catalogs.hooks import (
    descriptor,
    instantiate,
    is_async_hook,
    name_of,
)
from genmcp.errors import MCPError
from genmcp.outcomes import CacheControl
from genmcp.protocol.tasks import TASK_SUPPORT
from genmcp.schema import (
    ArgumentValidator,
    advertised_schema,
    compile_schema,
    merge_options,
)
from genmcp.schema.lint import lint_tool_schema
from genmcp.tools import NO_ARGUMENTS_SCHEMA, Tool
from genmcp.transforms.versions import VersionSet
from genmcp.visibility import PART

if TYPE_CHECKING:
    pass


__all__ = [
    "MAX_VARIANTS",
    "NO_HEADERS",
    "TOOL_NAME",
    "Pending",
    "SharedValidators",
    "ToolEntry",
    "checked_name",
]

log = logging.getLogger("genmcp")


class ToolEntry:
    """One served tool: the instance, its provider ``arg`` and what was built from them once.

    Compact, since a catalog may hold 100,000 (bench/RESULTS.md, issue 50): slots only, no
    per-entry empty dicts, and a tool whose metadata hooks are the defaults reads its class
    options directly. Its ``tools/list`` descriptor is then built on first listing: from
    options alone, it cannot fail. A tool whose only own metadata hook is ``info`` (a
    generated catalog's ``(class, arg)`` providers) is described once at build, so a bad
    value fails the build, and again when first listed (``info`` gives the same answers):
    the descriptor is not held until then. A tool with icons, annotations, ``_meta``, a
    view or other own hooks is described at once and keeps it.
    """

    __slots__ = (
        "_descriptor",
        "arg",
        "call_is_async",
        "error_results",
        "header_params",
        "label",
        "name",
        "output",
        "owner",
        "schema_options",
        "task_support",
        "tool",
        "validator",
        "variants",
        "view",
    )

    def __init__(
        self,
        cls: type[Tool],
        arg: Any,
        schema_options: Mapping[str, Any] | None = None,
        shared: SharedValidators | None = None,
        lazy: bool = False,
    ) -> None:
        tool = self.tool = instantiate(cls, Tool)
        self.arg = arg
        self.schema_options = schema_options
        self.variants: dict[frozenset[str], dict[str, Any]] | None = None
        """A versioned tool's descriptors by the versions hidden (built on first listing)."""
        self.owner = owner = cls.__qualname__
        # a default metadata hook only reads a class option: read it here, no call
        hooks = _metadata_hooks(type(tool))
        options = tool._genmcp_options
        name: Any = options.get("name") if hooks[0] is _INFO else None
        if not isinstance(name, str) or not name.strip():
            name = name_of(tool, owner, arg)  # the tool's own info, or raises naming the class
        schema: Any
        if hooks[2] is _INPUT:
            schema = options.get("input_schema")
            schema = NO_ARGUMENTS_SCHEMA if schema is None else schema
        else:
            schema = tool.input_schema(arg)
        output_schema = (
            options.get("output_schema") if hooks[3] is _OUTPUT else (tool.output_schema(arg))
        )
        own_options = (
            options.get("schema_options") if hooks[4] is _OPTIONS else (tool.schema_options(arg))
        )
        if hooks[5] is _TASKS:
            task_support = options.get("task_support")
            self.task_support = "none" if task_support is None else task_support
        else:
            self.task_support = tool.task_support(arg)
        self.name = checked_name(name, owner)
        self.label = f"tool {self.name!r}"
        self.call_is_async = is_async_hook(tool, "call")
        self.error_results = bool(tool.option("error_results"))
        # the Suite's schema_options, then the tool's own, key by key
        merged = merge_options(schema_options, own_options, owner=owner)
        self.validator: ArgumentValidator | None = None  # the generated validate_request's
        if type(tool).validate_request is Tool.validate_request:
            self.validator, self.header_params = _validator(schema, merged, owner, shared, lazy)
            advertised = self.validator.advertised
        else:  # the tool validates itself: the schema only describes it
            advertised = advertised_schema(schema, owner=owner)
            lint_tool_schema(advertised, owner=owner, which="input_schema")
            self.header_params = _header_params(advertised) or NO_HEADERS
        self.output: ArgumentValidator | None = (
            None
            if output_schema is None
            else compile_schema(output_schema, owner=owner, options=merged)
        )
        if self.task_support not in TASK_SUPPORT:
            raise ValueError(
                f"{owner}: task_support must be one of {sorted(TASK_SUPPORT)}, "
                f"not {self.task_support!r}"
            )
        if self.output is not None:
            lint_tool_schema(self.output.advertised, owner=owner, which="output_schema")
        self.view: type[AppView] | None = None
        self._descriptor: dict[str, Any] | None = None  # built on first listing
        if (
            hooks[1:] == _DEFAULTS[1:]
            and self.validator is not None
            and options.keys().isdisjoint(_DESCRIBED_LATER)
        ):
            if hooks[0] is not _INFO:  # its own info(): checked now, described when listed
                self._describe(advertised)
            return
        self._descriptor = self._describe(advertised)
        self.view = _view_of(tool)

    @property
    def behaviour(self) -> Tool:
        """The tool instance (its ``visible`` hook)."""
        return self.tool

    @property
    def descriptor(self) -> dict[str, Any]:
        """The tool's ``tools/list`` entry (built on first use when it comes from options)."""
        described = self._descriptor
        if described is None:
            assert self.validator is not None  # lazily described only with one
            described = self._descriptor = self._describe(self.validator.advertised)
        return described

    def cache_control(self) -> CacheControl:
        """The tool's cache hint for ``tools/list``."""
        return self.tool.cache_control(self.arg)

    def required_scopes(self) -> tuple[str, ...]:
        """The scopes a caller needs to see and call the tool (auth)."""
        return self.tool.required_scopes(self.arg)

    def listed(self, hidden: frozenset[str]) -> dict[str, Any]:
        """The descriptor shown to a caller from whom ``hidden`` is hidden: a versioned
        tool's describes the versions that caller may run (``transforms.versions``)."""
        if not isinstance(self.arg, VersionSet):
            return self.descriptor
        prefix = self.name + PART
        gone = frozenset(key[len(prefix) :] for key in hidden if key.startswith(prefix))
        variants = self.variants
        if variants is None:
            variants = self.variants = {}
        found = variants.get(gone)
        if found is None:
            if len(variants) >= MAX_VARIANTS:
                variants.clear()
            view = ToolEntry(  # for its descriptor only: its schema need not compile
                type(self.tool), self.arg.as_listed(gone), self.schema_options, lazy=True
            )
            found = variants[gone] = view.descriptor
        return found

    def _describe(self, input_schema: dict[str, Any]) -> dict[str, Any]:
        own = {"inputSchema": input_schema}
        if self.output is not None:
            own["outputSchema"] = self.output.advertised
        described = descriptor(
            self.tool, self.arg, self.name, own, ("annotations", "icons", "_meta")
        )
        tool = self.tool
        if (
            type(tool).ui is _UI
            and "view" not in tool._genmcp_options
            and ("visibility" not in tool._genmcp_options)
        ):
            return described  # the default ui() of a tool without view or visibility: none
        ui = tool.ui(self.arg)
        if ui:  # MCP Apps: _meta.ui links the tool to its view
            meta = described.setdefault("_meta", {})
            meta["ui"] = {**meta.get("ui", {}), **ui}
        return described


_METADATA: Final = (
    "info",
    "ui",
    "input_schema",
    "output_schema",
    "schema_options",
    "task_support",
)
"""The metadata hooks a tool entry reads when built."""
_metadata_hooks: Final = operator.attrgetter(*_METADATA)
_DEFAULTS: Final = _metadata_hooks(Tool)
"""Tool's own metadata hooks: a class that keeps them all is described by its options."""
_INFO, _UI, _INPUT, _OUTPUT, _OPTIONS, _TASKS = _DEFAULTS
_DESCRIBED_LATER: Final = frozenset({"annotations", "icons", "meta", "view", "visibility"})
"""The options whose check a lazily built descriptor would postpone: with any, build now."""


def _validator(
    schema: Any, merged: Any, owner: str, shared: SharedValidators | None, lazy: bool
) -> tuple[ArgumentValidator, Mapping[str, str]]:
    """The compiled (linted) input schema and its ``x-mcp-header`` parameters: those of an
    earlier tool given the very same schema object and equal options (``shared``), or a
    ``Pending`` one when ``lazy``."""
    found = None if shared is None else shared.get(id(schema))
    if found is not None and found[0] is schema and _same(found[1], merged):
        return found[2], found[3]  # compiled and linted for an earlier tool
    validator: ArgumentValidator
    if lazy and isinstance(schema, Mapping):  # compiled at the first call
        validator = Pending(schema, owner, merged)
    else:
        validator = compile_schema(schema, owner=owner, options=merged)
        lint_tool_schema(validator.advertised, owner=owner, which="input_schema")
    headers: Mapping[str, str] = _header_params(validator.advertised) or NO_HEADERS
    if shared is not None:
        if len(shared) >= SHARED_MAX:  # many distinct schemas: start again
            shared.clear()
        shared[id(schema)] = (schema, merged, validator, headers)
    return validator, headers


def _same(options: Any, other: Any) -> bool:
    return options is other or bool(options == other)


NO_HEADERS: Final[Mapping[str, str]] = MappingProxyType({})
"""The ``x-mcp-header`` parameters of a tool that declares none (shared)."""


class Pending(ArgumentValidator):
    """A dict input schema left for its first use (``Suite(lazy_schemas=True)``): advertised
    as given (as a compiled dict schema is); compiled and linted at the first validation,
    the fault kept and raised again on every later one."""

    def __init__(self, schema: Mapping[str, Any], owner: str, options: Any) -> None:
        super().__init__(dict(schema))
        self._schema, self._owner, self._options = schema, owner, options
        self._compiled: ArgumentValidator | None = None
        self._fault: Exception | None = None
        self._logged = False

    def compiled(self) -> ArgumentValidator:
        """The compiled validator; the schema's fault (``TypeError``/``ValueError`` naming
        the tool class) when it does not compile or lint."""
        if self._compiled is not None:
            return self._compiled
        if self._fault is None:
            try:
                made = compile_schema(self._schema, owner=self._owner, options=self._options)
                lint_tool_schema(made.advertised, owner=self._owner, which="input_schema")
            except (TypeError, ValueError) as exc:
                self._fault = exc
            else:
                self._compiled = made
                self.inline_safe = made.inline_safe
                return made
        raise self._fault

    def checked(self, label: str) -> ArgumentValidator:
        """:meth:`compiled`, a fault answered as -32603 naming ``label`` and logged once."""
        try:
            return self.compiled()
        except (TypeError, ValueError) as exc:
            if not self._logged:
                self._logged = True
                log.error("%s: its input schema does not compile: %s", label, exc)
            raise MCPError(
                "internal_error", f"The {label} cannot validate its arguments: {exc}"
            ) from None

    def inline(self, arguments: Any) -> tuple[bool, Any]:
        return self.compiled().inline(arguments)

    def _check(self, arguments: Any, budget: Any) -> Any:
        return self.compiled()._check(arguments, budget)


MAX_VARIANTS: Final = 64
"""Descriptors kept per versioned tool (one per set of versions hidden from callers)."""
TOOL_NAME: Final = re.compile(r"[A-Za-z0-9_.-]{1,128}")
"""The spec's tool name (a SHOULD): 1 to 128 of ``A-Za-z0-9_-.``."""
_NAME_FIX: Final = "MCP tool names are 1 to 128 of A-Z a-z 0-9 _ - . (e.g. name='get_weather')"


def checked_name(name: str, owner: str) -> str:
    """``name`` when it follows the spec's pattern. A name longer than 128 characters or
    holding a space, a control character or ``/`` (which clients and hosts refuse) is a
    ``ValueError`` naming ``owner``; any other character outside the pattern (non-ASCII:
    it travels base64-encoded in ``Mcp-Name``) is a warning."""
    if TOOL_NAME.fullmatch(name) is not None:
        return name
    bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c in "_.-"))})
    if len(name) > 128 or any(c.isspace() or not c.isprintable() or c == "/" for c in bad):
        what = f"has {', '.join(map(repr, bad))}" if bad else "is longer than 128 characters"
        raise ValueError(f"{owner}: the tool name {name!r} {what}; {_NAME_FIX}")
    log.warning(
        "%s: the tool name %r has %s; %s", owner, name, ", ".join(map(repr, bad)), _NAME_FIX
    )
    return name


def _view_of(tool: Tool) -> type[AppView] | None:
    """The ``view=`` option: an AppView class the Suite serves with the tool, or None."""
    view = tool.option("view")
    return view if isinstance(view, type) and issubclass(view, AppView) else None


def _header_params(schema: dict[str, Any]) -> dict[str, str]:
    """Argument name -> ``x-mcp-header`` name, for root properties that declare one."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    found: dict[str, str] = {}
    for prop, spec in properties.items():
        if isinstance(spec, dict) and isinstance(spec.get("x-mcp-header"), str):
            found[prop] = spec["x-mcp-header"]
    return found


SHARED_MAX: Final = 4096
"""Distinct schemas a catalog keeps compiled for sharing (then it starts again)."""
SharedValidators = dict[int, tuple[Any, Any, Any, Mapping[str, str]]]
"""A catalog's compiled input schemas by the schema object's id: (schema, options, validator,
its ``x-mcp-header`` parameters).
Tools given the very same schema object and equal options share one validator (a generated
catalog of 100,000 tools compiles and lints its schema once); the schema is held, so its id
is not reused while the entry lives."""

"""``Transform``: reshape the tools a Suite serves, whatever serves them.

``Suite(transforms=[...])`` applies each transform, in order, to every tool the Suite adds:
its own, a mounted Suite's, a remote mount's and an imported API's alike (they all enter
through ``Suite.add_tool``, so one place shapes them). A transform selects tools by their
name as it reaches it (``fnmatch`` patterns) and may:

* ``name=``: rename the one tool it selects; ``namespace=``: prefix every name with
  ``<namespace>_`` (as a ``Mount`` does);
* ``title=`` / ``description=``: re-describe;
* ``hide={"arg": Hidden(...)}``: take an argument out of the input schema; each call gets
  its value from the ``Hidden``: a fixed ``default``, or ``from_caller(caller)`` (the
  tenant, the principal): the client can neither see nor set it.

The shaped tool is a subclass of the original (:func:`shaped`): every other hook, its
scopes, visibility and task support included, is the original's, and the catalog builds
and validates it like any other tool. Its arguments are validated against the shaped
schema (a hidden argument sent by the client is refused as unknown when the schema closes
``additionalProperties``), then the hidden values are added before the original ``call``
(a tool whose input schema is a pydantic model, a ``@tool`` function, gets the model
instance it expects, the hidden values included).

Imports genmcp's tool layer and ``visibility.caller_of``; no asyncio beyond a thread hop.
"""

from __future__ import annotations

import asyncio
import copy
import fnmatch
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel

from genmcp.caller import Caller
from genmcp.schema import advertised_schema
from genmcp.tools import Tool, ToolRequest, with_arguments
from genmcp.visibility import caller_of

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = ["Hidden", "Transform", "shaped"]

_UNSET: Final = object()


@dataclass(frozen=True, slots=True)
class Hidden:
    """The value of a hidden argument: ``default``, or what ``from_caller(caller)`` returns
    for each call (``lambda caller: caller.tenant``). One of the two."""

    default: Any = _UNSET
    from_caller: Callable[[Caller], Any] | None = None

    def __post_init__(self) -> None:
        if (self.default is _UNSET) == (self.from_caller is None):
            raise TypeError("Hidden takes one of default= or from_caller=")

    def value(self, caller: Caller) -> Any:
        """The argument's value for ``caller``."""
        if self.from_caller is not None:
            return self.from_caller(caller)
        return copy.deepcopy(self.default)


@dataclass(frozen=True, slots=True)
class Transform:
    """One reshaping of the tools whose names match ``tools`` (see the module docstring).

    Args:
        tools: ``fnmatch`` patterns of the names it applies to (``"*"``: every tool).
        name: the new name of the (single) tool it applies to.
        namespace: a prefix joined with ``_`` (``crm`` -> ``crm_get_contact``).
        title, description: the new title and description.
        hide: argument name -> :class:`Hidden`, taken out of the schema, set per call.
    """

    tools: str | tuple[str, ...] = "*"
    name: str | None = None
    namespace: str | None = None
    title: str | None = None
    description: str | None = None
    hide: Mapping[str, Hidden] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.tools, list):
            object.__setattr__(self, "tools", tuple(self.tools))
        if self.name is not None and self.namespace is not None:
            raise TypeError("Transform: give name= or namespace=, not both")
        for argument, hidden in self.hide.items():
            if not isinstance(hidden, Hidden):
                raise TypeError(f"Transform(hide={{{argument!r}: ...}}) takes a Hidden")

    def selects(self, name: str) -> bool:
        """Whether the tool ``name`` (as it reaches this transform) is reshaped."""
        patterns = (self.tools,) if isinstance(self.tools, str) else self.tools
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)

    def renamed(self, name: str) -> str:
        """The name after this transform."""
        if self.name is not None:
            return self.name
        return f"{self.namespace}_{name}" if self.namespace else name


def shaped(cls: type[Tool], arg: Any, transforms: Iterable[Transform]) -> type[Tool]:
    """``cls`` reshaped by the ``transforms`` that select it (itself when none does)."""
    name = cls().info("name", arg)
    if not isinstance(name, str):
        return cls
    applied = []
    for transform in transforms:
        if transform.selects(name):
            applied.append(transform)
            name = transform.renamed(name)
    if not applied:
        return cls
    texts: dict[str, Any] = {"name": name}
    hide: dict[str, Hidden] = {}
    for transform in applied:
        for key in ("title", "description"):
            value = getattr(transform, key)
            if value is not None:
                texts[key] = value
        hide.update(transform.hide)
    return _subclass(cls, texts, hide)


def _subclass(cls: type[Tool], texts: Mapping[str, Any], hide: Mapping[str, Hidden]) -> type[Tool]:
    original_info, original_schema, original_call = cls.info, cls.input_schema, cls.call
    threaded = not inspect.iscoroutinefunction(original_call)

    def info(self: Tool, key: str, arg: Any) -> Any:
        return texts[key] if key in texts else original_info(self, key, arg)

    def input_schema(self: Tool, arg: Any) -> Any:
        schema = original_schema(self, arg)
        if not hide:
            return schema
        return _without(advertised_schema(schema, owner=cls.__qualname__), hide, cls.__qualname__)

    async def call(self: Tool, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        if hide:
            request = _with_hidden(request, channel, hide)
            model = original_schema(self, arg)
            if isinstance(model, type) and issubclass(model, BaseModel):  # what call expects
                request = with_arguments(request, model.model_validate(request.arguments))
        if threaded:
            return await asyncio.to_thread(original_call, self, request, channel, arg)
        return await original_call(self, request, channel, arg)

    namespace = {
        "info": info,
        "input_schema": input_schema,
        "call": call,
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
    }
    return type(cls.__name__, (cls,), namespace)


def _without(schema: Mapping[str, Any], hide: Mapping[str, Hidden], owner: str) -> dict[str, Any]:
    properties = dict(schema.get("properties") or {})
    absent = sorted(set(hide) - set(properties))
    if absent:
        raise ValueError(f"{owner}: cannot hide {absent}: the tool has no such argument")
    out = dict(schema)
    out["properties"] = {key: value for key, value in properties.items() if key not in hide}
    required = [name for name in schema.get("required", ()) if name not in hide]
    if required:
        out["required"] = required
    else:
        out.pop("required", None)
    return out


def _with_hidden(request: ToolRequest, channel: Channel, hide: Mapping[str, Hidden]) -> ToolRequest:
    caller = caller_of(channel.assigns, request.meta)
    arguments = dict(request.arguments or {})
    for argument, hidden in hide.items():
        arguments[argument] = hidden.value(caller)
    return ToolRequest(
        request.name, arguments, request.meta, request.input_responses, request.request_state
    )

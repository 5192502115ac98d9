"""What a tool function's return annotation makes of its answer: an output schema and a result.

``@tool`` calls :func:`read_returns` once, when it makes the class. The annotation, less the
outcome members of a union (``-> list[Ticket] | InputRequired``: an outcome passes as it is),
gives:

- nothing new for no annotation, ``Any``, ``object``, ``None``, ``dict`` or ``dict[str, Any]``
  (a dict may be a whole ``CallToolResult``), ``str`` (a text block), a union with ``Any``,
  ``object`` or ``str`` among its members (``-> str | None``) and a pydantic model (the
  model is the output schema, ``signature.returns_model``): the return is converted as a
  ``Tool``'s always was;
- a :class:`Returns` for any other type pydantic can describe. Its ``schema`` is the output
  schema: the annotation's own when that is an object (``dict[str, Model]``, a ``TypedDict``,
  a dataclass), else, since MCP output schemas are objects, one required property ``result``
  holding it (``list[Ticket]``, ``tuple[int, str]``, ``int``, ``Ticket | None`` ...). Each
  value is validated against the annotation and dumped in JSON mode (models, datetimes) as
  the ``structuredContent``, ``{"result": value}`` when wrapped, its JSON mirrored as text.

A value that does not fit the annotation is the server's bug: ``CallbackReturnError`` naming
the tool. An annotation pydantic cannot describe (``socket.socket``, an iterator) or a
generator function is a ``TypeError`` naming the function and the fix, when the class is made.

Imports pydantic and genmcp's outcomes and content builders; never a web framework.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import operator
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel, RootModel, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError

from genmcp.errors import CallbackReturnError
from genmcp.outcomes import Error, InputRequired, ResourceNotFound, Result, Stream
from genmcp.protocol.content import call_tool_result
from genmcp.schema.refs import inline_refs

__all__ = ["Returns", "read_returns"]

OUTCOMES: Final = (Result, Stream, Error, InputRequired)
"""What a tool function may return as it is, whatever its annotation says."""
_LEFT_OUT: Final = (*OUTCOMES, ResourceNotFound)
_UNTYPED: Final = (Any, object, None, type(None))
_MAPPINGS: Final = (dict, collections.abc.Mapping, collections.abc.MutableMapping)

_FIX: Final = (
    "return a pydantic model or a JSON type (str, int, float, bool, list[...], "
    "dict[str, ...], a model | None ...), or give @tool(output_schema=...) or annotate -> Any"
)


@dataclass(frozen=True, slots=True)
class Returns:
    """The output schema of a return annotation and how a value becomes the result.

    Attributes:
        annotation: the return annotation, less its outcome members.
        schema: the output schema (an object schema, models inlined).
        wrapped: True when values travel as ``{"result": value}``.
        adapter: pydantic's validator and serializer of ``annotation``.
    """

    annotation: Any
    schema: dict[str, Any]
    wrapped: bool
    adapter: TypeAdapter[Any]

    def answer(self, value: Any, tool: str) -> Any:
        """The ``Result`` of one returned ``value`` (an outcome passes as it is);
        ``CallbackReturnError`` naming ``tool`` when the value does not fit the annotation."""
        if type(value) in OUTCOMES:
            return value
        try:
            dumped = self.adapter.dump_python(
                self.adapter.validate_python(value), mode="json", by_alias=True
            )
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "the value"
            raise CallbackReturnError(
                "tool",
                tool,
                "call",
                value,
                f"{_shown(self.annotation)}, as its return annotation says "
                f"({exc.error_count()} error(s), first at {where}: {first['msg']})",
            ) from None
        except PydanticSerializationError as exc:
            raise CallbackReturnError(
                "tool", tool, "call", value, f"{_shown(self.annotation)} that dumps as JSON ({exc})"
            ) from None
        return Result(call_tool_result(structured={"result": dumped} if self.wrapped else dumped))


def read_returns(fn: Any, hints: Mapping[str, Any] | None = None) -> Returns | None:
    """The :class:`Returns` of ``fn``'s return annotation, or None when the annotation asks
    for nothing new (see the module); ``TypeError`` when it cannot be a JSON Schema.
    ``hints``: its resolved annotations, when already read (``signature.type_hints``)."""
    owner = getattr(fn, "__qualname__", repr(fn))
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError(
            f"@tool {owner}: a generator function cannot be a tool (its result is one "
            "value): collect the items and return a list (-> list[...])"
        )
    if hints is None:
        hints = typing.get_type_hints(fn, include_extras=True)
    annotation = _answered(hints.get("return", Any))
    if annotation is None or _as_today(annotation):
        return None
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(annotation)
        schema = adapter.json_schema(mode="serialization")
    except Exception as exc:  # pydantic cannot describe it
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise TypeError(
            f"@tool {owner}: its return annotation -> {_shown(annotation)} cannot be a JSON "
            f"Schema ({reason}); {_FIX}"
        ) from None
    if schema.get("type") == "object" and not {"anyOf", "oneOf", "allOf"} & schema.keys():
        return Returns(annotation, inline_refs(schema), False, adapter)
    defs = schema.pop("$defs", None)
    wrapper: dict[str, Any] = {
        "type": "object",
        "properties": {"result": schema},
        "required": ["result"],
    }
    if defs:  # hoisted: the annotation's "#/$defs/X" references resolve at the root
        wrapper["$defs"] = defs
    return Returns(annotation, inline_refs(wrapper), True, adapter)


def _answered(annotation: Any) -> Any:
    """``annotation`` less the outcome members of a union; None when nothing is left."""
    origin = typing.get_origin(annotation)
    if not (origin is typing.Union or isinstance(annotation, types.UnionType)):
        return None if _is(annotation, _LEFT_OUT) else annotation
    members = typing.get_args(annotation)
    kept = [member for member in members if not _is(member, _LEFT_OUT)]
    if not kept:
        return None
    if len(kept) == len(members):
        return annotation
    return functools.reduce(operator.or_, kept)


def _as_today(annotation: Any) -> bool:
    """True when the annotation asks for no schema of its own (see the module)."""
    base = _base(annotation)
    if base in _UNTYPED or base is str:
        return True
    if typing.get_origin(base) is typing.Union or isinstance(base, types.UnionType):
        members = [_base(member) for member in typing.get_args(base)]
        if any(member in _UNTYPED[:2] or member is str for member in members):
            return True  # "-> str | Any", "-> str | None": any value, or text, as before
    if isinstance(base, type) and issubclass(base, BaseModel):
        return not issubclass(base, RootModel)  # a RootModel's schema need not be an object
    if base in _MAPPINGS:
        return True
    if typing.get_origin(base) in _MAPPINGS:
        arguments = typing.get_args(base)
        return len(arguments) < 2 or _base(arguments[1]) in _UNTYPED
    return False


def _base(annotation: Any) -> Any:
    """The type of ``Annotated[type, ...]``, else ``annotation``."""
    if typing.get_origin(annotation) is typing.Annotated:
        return typing.get_args(annotation)[0]
    return annotation


def _is(annotation: Any, classes: tuple[type, ...]) -> bool:
    base = _base(annotation)
    return isinstance(base, type) and issubclass(base, classes)


def _shown(annotation: Any) -> str:
    """``list[Ticket]``, ``socket.socket``: the annotation as its author wrote it."""
    if isinstance(annotation, type):
        module = annotation.__module__
        name = annotation.__qualname__
        return name if module in ("builtins", "__main__") else f"{module}.{name}"
    return repr(annotation).replace("typing.", "")

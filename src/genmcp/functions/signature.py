"""What a function's parameters mean to genmcp: the client's arguments, or what genmcp injects.

:func:`read_signature` reads an annotated function once, when ``@tool``, ``@prompt`` or
``@resource`` makes its class, and sorts each parameter:

- annotated ``Channel``: the request's channel;
- annotated with the behaviour's request type (``ToolRequest`` ...): the request itself
  (``request.meta``, ``request.input(Model)``);
- a FastAPI dependency, as a default (``db=Depends(get_db)``) or in ``Annotated[..., Depends(
  get_db)]``: resolved per request with ``channel.resolve`` (its overrides, its cleanup);
- one of the behaviour's ``named`` parameters (a completer's ``value``, ``context``);
- anything else: an argument the client sends, typed by its annotation (pydantic types,
  ``Annotated[int, Field(ge=0)]``), optional when it has a default.

:func:`describe` gives the ``name`` and ``description`` options a function implies, and
:func:`make_class` the behaviour subclass named after it. The arguments become one pydantic model
(:attr:`Signature.model`), so the advertised schema and the validation are pydantic's. A signature
genmcp cannot serve (``*args``, a positional-only parameter, an annotation that does not resolve) is
a ``TypeError`` naming the function, when the class is made.

Imports pydantic and genmcp's channel; never a web framework (a dependency is recognised
by its class, ``fastapi.params.Depends``, without importing FastAPI).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from genmcp.channel import Channel
from genmcp.schema import InvalidArguments

__all__ = [
    "CHANNEL",
    "REQUEST",
    "UNREAD",
    "Function",
    "Signature",
    "dependency_of",
    "describe",
    "in_thread",
    "invalid",
    "make_class",
    "read_signature",
    "returns_model",
    "type_hints",
]

Function = Callable[..., Any]
"""A decorated function (a def or an async def)."""


class _Unread:
    """The type of :data:`UNREAD`."""


UNREAD: Final = _Unread()
"""A docstring not read yet (``describe`` and ``make_class`` then read it)."""
_NONE: Final[Mapping[str, Any]] = types.MappingProxyType({})
"""The ``injected`` or ``dependencies`` of a function that has none (shared)."""
CHANNEL: Final = "channel"
REQUEST: Final = "request"


@dataclass(frozen=True, slots=True)
class Signature:
    """A function's parameters, sorted (see the module).

    Attributes:
        owner: the function's qualified name, for messages.
        arguments: the names of the parameters the client sends, in order.
        model: the pydantic model of those arguments (None when there are none).
        single: True when the one argument is itself a pydantic model: the model is the
            whole arguments object (FastAPI's single body model), not one property of it.
        injected: name -> ``CHANNEL``, ``REQUEST`` or one of the ``named`` parameters.
        dependencies: name -> the ``Depends(...)`` marker to resolve.
        is_async: True for an ``async def``.
    """

    owner: str
    arguments: tuple[str, ...]
    model: type[BaseModel] | None
    single: bool
    injected: Mapping[str, str]
    dependencies: Mapping[str, Any]
    is_async: bool

    def bind(self, arguments: Any, request: Any, channel: Any, **named: Any) -> dict[str, Any]:
        """The keyword arguments of one call, all but the dependencies.

        ``arguments`` is the validated model instance (ignored when there are none).
        """
        if self.single:
            kwargs = {self.arguments[0]: arguments}
        elif not self.arguments or arguments is None:
            kwargs = {}
        else:
            kwargs = {name: getattr(arguments, name) for name in self.arguments}
        for name, what in self.injected.items():
            kwargs[name] = (
                channel if what == CHANNEL else request if what == REQUEST else named[what]
            )
        return kwargs

    async def resolve(self, kwargs: dict[str, Any], channel: Channel) -> dict[str, Any]:
        """``kwargs`` with every dependency resolved for this call (``channel.resolve``)."""
        for name, marker in self.dependencies.items():
            kwargs[name] = await channel.resolve(marker)
        return kwargs

    async def call(self, fn: Function, kwargs: dict[str, Any], channel: Channel) -> Any:
        """``fn(**kwargs)`` with its dependencies resolved, as FastAPI runs an endpoint.

        Without dependencies, just the call (awaited, or in a worker thread for a ``def``).
        With them, the invocation gets its own cache and cleanups (``channel.resolve`` in
        its body shares them), opened and torn down here, in the calling task: after ``fn``
        returned or raised, its exception thrown into each ``yield`` dependency; a teardown
        that raises fails the invocation with that exception.
        """
        if not self.dependencies:
            return await fn(**kwargs) if self.is_async else await asyncio.to_thread(fn, **kwargs)
        outer = channel._open_dependencies()
        try:
            kwargs = await self.resolve(kwargs, channel)
            result = await fn(**kwargs) if self.is_async else await in_thread(fn, kwargs)
        except BaseException as exc:
            await channel._close_dependencies(exc, outer)
            raise
        await channel._close_dependencies(None, outer)
        return result

    def validate(self, values: Mapping[str, Any]) -> Any:
        """The model instance of ``values`` (strings from a URI or prompt arguments are cast
        in pydantic's lax mode); ``InvalidArguments`` when they do not fit."""
        if self.model is None:
            return None
        try:
            return self.model.model_validate(values)
        except ValidationError as exc:
            raise invalid(exc) from None


async def in_thread(fn: Function, kwargs: dict[str, Any]) -> Any:
    """``fn(**kwargs)`` in a worker thread; cancelled, it still waits for the thread to return,
    so what ``fn`` was given (a dependency's session) is torn down only after it is done."""
    worker = asyncio.ensure_future(asyncio.to_thread(fn, **kwargs))
    try:
        return await asyncio.shield(worker)
    except asyncio.CancelledError:
        await asyncio.wait([worker])
        if not worker.cancelled():
            worker.exception()  # retrieved: the call was cancelled, its outcome is moot
        raise


def invalid(exc: ValidationError) -> InvalidArguments:
    """pydantic's errors as ``InvalidArguments`` entries (``type``, ``loc``, ``msg``)."""
    return InvalidArguments(
        [{"type": e["type"], "loc": list(e["loc"]), "msg": e["msg"]} for e in exc.errors()]
    )


def dependency_of(value: Any) -> Any:
    """``value`` when it is a FastAPI ``Depends(...)``/``Security(...)`` marker, else None."""
    for cls in type(value).__mro__:
        if cls.__name__ == "Depends" and cls.__module__ == "fastapi.params":
            return value
    return None


def type_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """The resolved annotations of the function ``fn`` (``Annotated`` kept); ``TypeError``
    naming it when it is not a function or an annotation does not resolve. Read once per
    decorated function (string annotations are compiled and evaluated each time)."""
    owner = getattr(fn, "__qualname__", repr(fn))
    if not callable(fn) or isinstance(fn, type):
        raise TypeError(f"{owner!r} is not a function: decorate a def or an async def")
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except (NameError, TypeError) as exc:
        raise TypeError(
            f"{owner}: an annotation does not resolve ({exc}); import the names the "
            "annotations use at module level"
        ) from None


def read_signature(
    fn: Callable[..., Any],
    *,
    request_type: type,
    named: tuple[str, ...] = (),
    flatten: bool = True,
    hints: Mapping[str, Any] | None = None,
) -> Signature:
    """Sort the parameters of ``fn`` (see the module); ``TypeError`` when genmcp cannot.
    ``hints``: its :func:`type_hints`, when already read."""
    owner = getattr(fn, "__qualname__", repr(fn))
    if hints is None:
        hints = type_hints(fn)
    fields: dict[str, Any] = {}
    injected: dict[str, str] = {}
    dependencies: dict[str, Any] = {}
    for parameter in inspect.signature(fn).parameters.values():
        name = parameter.name
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            stars = "*" if parameter.kind is parameter.VAR_POSITIONAL else "**"
            raise TypeError(f"{owner}: {stars}{name} cannot be an MCP argument; name each argument")
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise TypeError(f"{owner}: {name} is positional-only; genmcp passes keywords")
        annotation = hints.get(name, Any)
        base, metadata = _split(annotation)
        marker = dependency_of(parameter.default) or next(
            (m for m in metadata if dependency_of(m) is not None), None
        )
        if marker is not None:
            dependencies[name] = marker
        elif _is(base, Channel):
            injected[name] = CHANNEL
        elif _is(base, request_type):
            injected[name] = REQUEST
        elif name in named:
            injected[name] = name
        else:
            fields[name] = (annotation, _default(parameter))
    single = flatten and len(fields) == 1 and _single_model(next(iter(fields.values())))
    model: type[BaseModel] | None = None
    if single:
        model = _split(next(iter(fields.values()))[0])[0]
    elif fields:
        model = _arguments_model(owner, fields)
    return Signature(
        owner=owner,
        arguments=tuple(fields),
        model=model,
        single=single,
        injected=injected or _NONE,  # shared when empty: a catalog may make 100,000
        dependencies=dependencies or _NONE,
        is_async=inspect.iscoroutinefunction(fn),
    )


def describe(fn: Function, doc: str | _Unread | None = UNREAD) -> dict[str, Any]:
    """The ``name`` and ``description`` options a function gives (its name, its docstring;
    ``doc``: its ``inspect.getdoc``, when already read)."""
    described: dict[str, Any] = {"name": fn.__name__}
    if isinstance(doc, _Unread):
        doc = inspect.getdoc(fn)
    if doc:
        described["description"] = doc
    return described


def returns_model(fn: Function, hints: Mapping[str, Any] | None = None) -> type[BaseModel] | None:
    """The pydantic model ``fn`` returns: its return annotation, or the one model of a union
    with outcomes (``-> Order | InputRequired``); None for any other annotation (``Annotated``
    read through). ``hints``: its :func:`type_hints`, when already read."""
    if hints is None:
        hints = typing.get_type_hints(fn, include_extras=True)
    returned = _split(hints.get("return"))[0]
    members = typing.get_args(returned) if isinstance(returned, types.UnionType) else (returned,)
    if typing.get_origin(returned) is typing.Union:
        members = typing.get_args(returned)
    models = [bare for bare in (_split(m)[0] for m in members) if _is(bare, BaseModel)]
    return models[0] if len(models) == 1 else None


def make_class(
    fn: Function,
    body: dict[str, Any],
    base: type,
    options: dict[str, Any],
    doc: str | _Unread | None = UNREAD,
) -> Any:
    """A subclass of ``base`` named after ``fn``, with ``body``, configured with ``options``
    (``doc``: the function's ``inspect.getdoc``, when already read)."""
    options = {key: value for key, value in options.items() if value is not None}
    if isinstance(doc, _Unread):
        doc = inspect.getdoc(fn)

    def fill(namespace: dict[str, Any]) -> None:
        namespace.update(body)
        namespace.update(
            __module__=fn.__module__,
            __qualname__=fn.__qualname__,
            __doc__=doc,
            __wrapped__=staticmethod(fn),
        )

    if type(base) is type:  # no metaclass of its own: type() itself, no __prepare__ step
        namespace: dict[str, Any] = {}
        fill(namespace)
        return type(fn.__name__, (base,), namespace, **options)
    return types.new_class(fn.__name__, (base,), options, fill)


def _split(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """``(type, metadata)`` of ``Annotated[type, *metadata]``; ``(annotation, ())`` else."""
    if typing.get_origin(annotation) is Annotated:
        return annotation.__origin__, tuple(annotation.__metadata__)
    return annotation, ()


def _is(base: Any, cls: type) -> bool:
    return isinstance(base, type) and issubclass(base, cls)


def _default(parameter: inspect.Parameter) -> Any:
    return ... if parameter.default is inspect.Parameter.empty else parameter.default


def _single_model(field: tuple[Any, Any]) -> bool:
    """True for ``order: Order`` (a model, required): the arguments object is the model."""
    annotation, default = field
    return default is ... and _is(_split(annotation)[0], BaseModel)


def _arguments_model(owner: str, fields: dict[str, Any]) -> type[BaseModel]:
    for field in fields:
        if field.startswith("_"):
            raise TypeError(f"{owner}: the argument {field!r} starts with _; rename it")
    arguments = _Arguments(owner, fields)
    try:
        hash(arguments)
    except TypeError:  # an unhashable default or annotation: a model of its own
        return _new_model(arguments)
    return _shared_model(arguments)


class _Arguments:
    """A function's arguments, equal to another function's when a model of them is the same
    model: the same qualified name, argument names, annotations and defaults (of the same
    type: ``1`` is not ``True``). Closures of one ``def`` (tools generated from data) then
    share one pydantic model, and the Suite one compiled schema, instead of one each."""

    __slots__ = ("fields", "key", "owner")

    def __init__(self, owner: str, fields: dict[str, Any]) -> None:
        self.owner, self.fields = owner, fields
        self.key = (owner, tuple((n, a, type(d), d) for n, (a, d) in fields.items()))

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Arguments) and self.key == other.key


@functools.lru_cache(maxsize=1024)
def _shared_model(arguments: _Arguments) -> type[BaseModel]:
    """:func:`_new_model`, once per distinct arguments (a memo over code: bounded)."""
    return _new_model(arguments)


def _new_model(arguments: _Arguments) -> type[BaseModel]:
    owner = arguments.owner
    name = owner.replace(".", "_").replace("<", "").replace(">", "") + "_arguments"
    try:
        return create_model(name, __config__=ConfigDict(extra="forbid"), **arguments.fields)
    except Exception as exc:  # pydantic refuses a type it cannot describe
        raise TypeError(f"{owner}: its arguments cannot form a schema: {exc}") from None

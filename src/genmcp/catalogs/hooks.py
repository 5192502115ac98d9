"""Calling a behaviour's hooks and checking what they return: once for tools, prompts, resources.

A catalog (``tools``, ``prompts``, ``resources``) never calls a hook of a ``Tool``, ``Prompt``
or ``ResourceRepo`` any other way than through this module, so every behaviour gets the same
rules:

- **Building an entry** (once per served item): :func:`instantiate` checks the provider class
  and makes the one instance; :func:`name_of` reads the ``name`` a tool or prompt reports (it
  must not be blank) and :func:`descriptor` writes its list entry (``name``, ``title``,
  ``description``, the behaviour's own keys, then its metadata objects).
- **Calling**: :func:`call_hook` awaits an ``async def`` hook and runs a plain ``def`` in a
  worker thread (:func:`is_async_hook` says which, once per hook function). In asyncio's
  debug mode (``PYTHONASYNCIODEBUG=1``, ``python -X dev``, ``asyncio.run(..., debug=True)``)
  :func:`watched` times each step of an ``async def`` hook's coroutine (from one ``await``
  that suspends to the next) and warns on the ``genmcp`` logger, naming the class and hook,
  when a step holds the loop longer than its ``slow_callback_duration``: a blocking call
  there freezes every other request with no error anywhere. Outside debug mode nothing is
  wrapped.
- **The request**: :func:`arguments_of` reads the ``arguments`` of ``tools/call`` and
  ``prompts/get``; :func:`checked_request` is what a ``tools/call`` awaits before ``call``:
  the generated ``validate_request`` validates through ``schema.offload`` (inline when
  certainly cheap, else in a validation thread under the budget), a tool's own runs as
  written (awaited when it is ``async def``).
- **The return**: :func:`converted` turns a tool's convenience returns into a ``Result`` (a
  ``str``: text; a pydantic model: structured; a ``dict`` holding a ``content`` list and only
  ``CallToolResult`` keys: that result; any other ``dict``: structured). :func:`checked`
  holds the return to what the hook's contract allows (anything else is a
  ``CallbackReturnError`` naming the kind, the name and the hook: never guess), then
  :func:`result_of` makes the result object: ``Result`` through the behaviour's own
  ``complete`` (its shape checks and :func:`completed`), ``InputRequired`` into the sealed
  ``input_required`` result, ``Error`` into the JSON-RPC error the hook chose,
  ``ResourceNotFound`` into the behaviour's not-found error. With the tool option
  ``error_results=True``, :func:`error_result` answers an exception raised by ``call`` or
  ``handle_message`` (other than genmcp's own protocol errors) as an ``isError`` result the
  model can read, ``"<ExceptionType>: <message>"``.

Imports asyncio and genmcp's behaviours, outcomes, errors and schema offloading; never a
web framework.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import operator
import time
import types
from collections.abc import Callable, Coroutine, Generator, Mapping
from typing import Any, ClassVar, Final, Protocol, TypeVar

from pydantic import BaseModel

from genmcp.behaviour import Behaviour
from genmcp.catalogs.request_state import RequestStates
from genmcp.errors import CallbackReturnError, MCPError
from genmcp.outcomes import Error, InputRequired, ResourceNotFound, Result
from genmcp.prompts import Prompt
from genmcp.protocol.content import call_tool_result
from genmcp.protocol.icons import checked_icons
from genmcp.resources import ResourceRepo
from genmcp.schema import ArgumentValidator
from genmcp.schema.offload import validate_off_loop
from genmcp.tools import Tool, ToolRequest, input_validator, with_arguments

__all__ = [
    "RESULT_KEYS",
    "Described",
    "arguments_of",
    "call_hook",
    "checked",
    "checked_request",
    "completed",
    "converted",
    "debugging",
    "descriptor",
    "error_result",
    "instantiate",
    "is_async_hook",
    "name_of",
    "result_of",
    "watched",
]

log = logging.getLogger("genmcp")

B = TypeVar("B", bound=Behaviour)

RESULT_KEYS: Final = frozenset({"content", "structuredContent", "isError", "_meta"})
"""The keys of a ``CallToolResult`` a tool builds (the Suite adds ``resultType``)."""

# -- building an entry ---------------------------------------------------------------------


class Described(Protocol):
    """A behaviour with metadata hooks (``Tool``, ``Prompt``)."""

    kind: ClassVar[str]

    def info(self, key: str, arg: Any) -> Any:
        """The metadata ``key`` (``name``, ``title``, ...), or None."""
        ...


def instantiate(cls: Any, base: type[B], forms: str = "a class or (class, arg)") -> B:
    """The one instance of the provider class ``cls``; ``TypeError`` unless it subclasses
    ``base`` (``forms`` names what a provider may be, for the message) and its hooks are
    callable as genmcp calls them (:func:`check_hooks`)."""
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise TypeError(f"{cls!r} is not a {base.__name__} subclass (give {forms})")
    check_hooks(cls, base)
    return cls()


_REQUIRED: Final[dict[type, str]] = {Tool: "call"}
"""The hook a tool answers through: a class that does not define it cannot answer. (A prompt
or repository without ``get`` / ``read`` still builds: its listing may be all a test needs.)"""
_HOOKS: Final[dict[type, tuple[str, ...]]] = {
    Tool: ("call", "handle_message", "handle_close", "validate_request", "wants_task"),
    Prompt: ("get", "validate_request"),
    ResourceRepo: ("read", "list", "parse_uri"),
}
"""The hooks whose positional arguments :func:`check_hooks` holds to the base's."""


def check_hooks(cls: type, base: type) -> None:
    """``TypeError`` at build time, naming the class, the hook and the signature to write,
    when ``cls`` lacks the hook its behaviour answers through or defines a hook that cannot
    take the arguments genmcp passes (``call(self, request)``): else the first call would be
    a -32603. Classes whose hooks are the very functions of a class checked before (a
    generated catalog's) are not read again."""
    kind = _kind_of(base)
    if kind is None:
        return
    hooks = _hooks_of(kind)(cls)  # one C call: the class's hook functions, in _HOOKS order
    if hooks in _CHECKED:
        return
    required = _REQUIRED.get(kind)
    if required is not None and getattr(cls, required) is getattr(kind, required):
        raise TypeError(
            f"{cls.__qualname__} does not define {required}(): a {kind.__name__} answers "
            f"through it; add {_signature_of(kind, required)}"
        )
    for name, mine in zip(_HOOKS[kind], hooks, strict=True):
        if mine is getattr(kind, name):
            continue
        if not _binds(_Shape(mine), _expected(kind, name)):
            raise TypeError(
                f"{cls.__qualname__}.{name}{inspect.signature(mine)} cannot take the "
                f"arguments genmcp passes: write {_signature_of(kind, name)}"
            )
    if len(_CHECKED) >= _CHECKED_MAX:
        _CHECKED.clear()
    _CHECKED.add(hooks)


_CHECKED: set[tuple[Any, ...]] = set()  # a memo over code: bounded (tests/layout)
"""Hook functions found fit, as a class has them (kept: a set of functions is checked once)."""
_CHECKED_MAX: Final = 4096


@functools.cache
def _kind_of(base: type) -> type | None:
    """The behaviour of ``_HOOKS`` that ``base`` is (None: none whose hooks are checked)."""
    return next((known for known in _HOOKS if issubclass(base, known)), None)


@functools.cache
def _hooks_of(kind: type) -> Callable[[type], tuple[Any, ...]]:
    """Reads the hooks ``check_hooks`` checks of a class, as a tuple."""
    names = _HOOKS[kind]
    getter = operator.attrgetter(*names)
    return getter if len(names) > 1 else lambda cls: (getter(cls),)


class _Shape:
    """A hook, equal to another when both bind arguments alike: for a plain function its
    code, how many positional defaults it has and which keyword-only ones (closures of one
    ``def``, as ``@tool`` makes a ``call`` per function: 100,000 functions, one signature
    read); any other callable (a wrapper with ``__wrapped__`` or ``__signature__``, a
    builtin, an object) only to itself."""

    __slots__ = ("hook", "key")

    def __init__(self, hook: Any) -> None:
        self.hook = hook
        self.key: Any = hook
        if type(hook) is types.FunctionType and (
            getattr(hook, "__wrapped__", None) is None
            and getattr(hook, "__signature__", None) is None
        ):
            defaults, keywords = hook.__defaults__, hook.__kwdefaults__
            self.key = (hook.__code__, len(defaults or ()), frozenset(keywords or ()))

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Shape) and self.key == other.key


@functools.lru_cache(maxsize=4096)
def _binds(shape: _Shape, expected: tuple[str, ...]) -> bool:
    """Whether the hook takes ``expected`` positionally (True when it has no signature to
    read, a builtin: the call will tell). Kept per :class:`_Shape`: generated classes that
    share one hook, or closures of one ``def``, read its signature once."""
    hook = shape.hook
    try:
        inspect.signature(hook).bind(*expected)
    except TypeError:
        return False
    except ValueError:
        return True
    return True


@functools.cache
def _expected(kind: type, name: str) -> tuple[str, ...]:
    """The positional parameters of the base's hook ``name``: read once, not once per class
    (a catalog of 100,000 tools built in about half the time, bench/RESULTS.md "Cost curves")."""
    return tuple(_positional(getattr(kind, name)))


def _positional(function: Any) -> list[str]:
    return [
        p.name
        for p in inspect.signature(function).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]


def _signature_of(kind: type, name: str) -> str:
    hook = getattr(kind, name)
    prefix = "async def" if inspect.iscoroutinefunction(hook) else "def"
    return f"{prefix} {name}({', '.join(_positional(hook))})"


def name_of(behaviour: Described, owner: str, arg: Any) -> str:
    """The ``name`` a tool or prompt reports (``info("name", arg)``); it must not be blank."""
    name = behaviour.info("name", arg)
    if not isinstance(name, str) or not name.strip():
        raise ValueError(
            f"{owner}: a {behaviour.kind} needs a non-blank name (class option name=...)"
        )
    return name


def descriptor(
    behaviour: Described, arg: Any, name: str, own: Mapping[str, Any], objects: tuple[str, ...]
) -> dict[str, Any]:
    """A list entry: ``name``, then ``title`` and ``description`` when the behaviour's
    ``info`` gives them, the ``own`` keys, then each of ``objects`` it gives (copied: a
    list for ``icons``, validated, a dict otherwise)."""
    described: dict[str, Any] = {"name": name}
    for key in ("title", "description"):
        value = behaviour.info(key, arg)
        if value is not None:
            described[key] = value
    described.update(own)
    for key in objects:
        value = behaviour.info(key, arg)
        if value is not None and key == "icons":
            described[key] = checked_icons(value, type(behaviour).__qualname__)
        elif value is not None:
            described[key] = dict(value)
    return described


# -- calling ---------------------------------------------------------------------------------

_ASYNC: dict[Any, bool] = {}  # a memo over code: bounded (tests/layout)


def is_async_hook(owner: object, hook: str) -> bool:
    """True when ``owner``'s ``hook`` is a coroutine function (else it runs in a thread)."""
    key = getattr(type(owner), hook, None)  # the class's function: shared by its subclasses
    if key is None:  # set on the instance only: read it
        return inspect.iscoroutinefunction(getattr(owner, hook))
    if getattr(key, "_is_coroutine_marker", None) is None:  # not marked (3.12's inspect)
        key = getattr(key, "__code__", key)  # closures of one def: one entry, not 100,000
    found = _ASYNC.get(key)
    if found is None:  # once per function: a class's methods do not change
        found = _ASYNC[key] = inspect.iscoroutinefunction(getattr(owner, hook))
    return found


async def call_hook(owner: object, hook: str, *args: Any) -> Any:
    """Call ``owner.hook(*args)``: awaited, or run in a worker thread for a plain ``def``."""
    fn = getattr(owner, hook)
    if is_async_hook(owner, hook):
        if debugging():
            return await watched(fn(*args), f"{type(owner).__qualname__}.{hook}()")
        return await fn(*args)
    return await asyncio.to_thread(fn, *args)


def debugging() -> bool:
    """True when the running loop is in asyncio's debug mode."""
    return asyncio.get_running_loop().get_debug()


async def watched(coro: Coroutine[Any, Any, Any], label: str) -> Any:
    """Await ``coro``, warning when one of its steps blocks the loop (debug mode only)."""
    loop = asyncio.get_running_loop()
    return await _Watched(coro, label, loop.slow_callback_duration)


class _Watched:
    """An awaitable that drives ``coro`` step by step, timing each step."""

    __slots__ = ("_coro", "_label", "_limit")

    def __init__(self, coro: Coroutine[Any, Any, Any], label: str, limit: float) -> None:
        self._coro, self._label, self._limit = coro, label, limit

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, value, error = self._coro, None, None
        while True:
            start = time.perf_counter()
            try:
                yielded = coro.send(value) if error is None else coro.throw(error)
            except StopIteration as stop:
                self._check(start)
                return stop.value
            except BaseException:
                self._check(start)
                raise
            self._check(start)
            try:
                value, error = (yield yielded), None
            except BaseException as exc:  # a cancellation, thrown into the hook
                value, error = None, exc

    def _check(self, start: float) -> None:
        held = time.perf_counter() - start
        if held > self._limit:
            log.warning(
                "%s held the event loop for %.2f s without awaiting: a blocking call "
                "(time.sleep, requests, a sync database driver) in an async def hook stops "
                "every other request; make the hook a plain def (genmcp runs it in a worker "
                "thread) or await asyncio.to_thread(...) around the blocking part",
                self._label,
                held,
            )


# -- the request -----------------------------------------------------------------------------


def arguments_of(params: Mapping[str, Any], method: str) -> dict[str, Any]:
    """``params.arguments`` (``{}`` when absent); -32602 when it is not an object."""
    arguments = params.get("arguments")
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise MCPError("invalid_params", f"Invalid params: {method} arguments must be an object")
    return arguments


async def checked_request(
    tool: Tool, request: ToolRequest, arg: Any, validator: ArgumentValidator | None = None
) -> ToolRequest:
    """The request ``call`` receives: validated arguments, or ``InvalidArguments`` raised.
    ``validator``: the compiled input schema the Suite built for the generated check (else
    the tool's own, compiled on first use)."""
    if type(tool).validate_request is not Tool.validate_request:
        checked = tool.validate_request(request, arg)
        if inspect.isawaitable(checked):
            checked = await checked
        return checked
    if validator is None:
        validator = input_validator(tool, arg)
    return with_arguments(request, await validate_off_loop(validator, request.arguments))


# -- the return ------------------------------------------------------------------------------


def converted(value: Any) -> Any:
    """The ``Result`` for a tool's convenience return (see the module), else ``value``."""
    if isinstance(value, str):
        return Result(call_tool_result(text=value))
    if isinstance(value, BaseModel):
        return Result(call_tool_result(structured=value))
    if isinstance(value, dict):
        if isinstance(value.get("content"), list) and set(value) <= RESULT_KEYS:
            return Result(value)
        return Result(call_tool_result(structured=value))
    return value


CONVENIENCE: Final = "a str (text), a pydantic model or a dict (structured content)"
"""What a tool's hook may return besides the outcomes (``converted`` makes a Result)."""


def checked(kind: str, name: str, hook: str, value: Any, allowed: tuple[type, ...]) -> Any:
    """``value`` when it is one of the ``allowed`` outcome types, else the contract error
    (listing every accepted return)."""
    if isinstance(value, allowed):
        return value
    expected = ", ".join(t.__name__ for t in allowed[:-1]) + f" or {allowed[-1].__name__}"
    if kind == "tool":
        expected = f"{CONVENIENCE}, {expected}"
    raise CallbackReturnError(kind, name, hook, value, expected)


def result_of(
    outcome: Any,
    *,
    complete: Callable[[Any], dict[str, Any]],
    states: RequestStates,
    meta: Mapping[str, Any],
    binding: Callable[[], str],
    not_found: Callable[[ResourceNotFound], MCPError] | None = None,
) -> dict[str, Any]:
    """The result object of one final outcome (already ``checked``)."""
    if isinstance(outcome, Result):
        return complete(outcome.result)
    if isinstance(outcome, InputRequired):
        return states.input_required(meta, binding(), outcome)
    if isinstance(outcome, Error):
        raise MCPError("internal_error", outcome.message, outcome.data, code=outcome.code)
    if isinstance(outcome, ResourceNotFound) and not_found is not None:
        raise not_found(outcome)
    raise TypeError(f"no result for the outcome {outcome!r}")  # ``checked`` keeps this out


def completed(result: dict[str, Any], result_meta: Mapping[str, Any]) -> dict[str, Any]:
    """A complete result: ``resultType`` and the server's ``_meta`` under the result's own."""
    meta = result.get("_meta")
    merged = result_meta if meta is None else {**result_meta, **meta}
    return {**result, "resultType": "complete", "_meta": merged}


def error_result(exc: BaseException) -> dict[str, Any] | None:
    """The ``isError`` result an ``error_results=True`` tool answers for ``exc``, or None
    when ``exc`` must stay a protocol error (genmcp's own, or not an ``Exception``)."""
    if not isinstance(exc, Exception) or isinstance(exc, MCPError | CallbackReturnError):
        return None
    kind, message = type(exc).__name__, str(exc)
    return call_tool_result(error=f"{kind}: {message}" if message else kind)

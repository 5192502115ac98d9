"""``@tool``: an annotated function made into an ordinary ``Tool`` subclass.

The class is what ``class X(Tool, ...)`` would be, written for you: ``name=`` the function's
name, ``description=`` its docstring, ``input_schema=`` the pydantic model of its arguments
(``functions.signature``), ``output_schema=`` its return annotation (``functions.returns``:
a pydantic model, ``list[Ticket]``, ``int`` ...; an ``output_schema=`` option wins), and a
``call`` that passes the validated arguments, the injected ``Channel``, ``ToolRequest`` and
FastAPI dependencies by keyword. An ``async def`` is awaited on the loop (cancelled when the
client leaves); a plain ``def`` runs in a worker thread, its dependencies resolved on the loop
first. What the function returns is a tool's return: ``str``, a pydantic model, a ``dict``,
a value of its annotated type (structured, ``{"result": ...}`` unless an object), or an
outcome (``Result``, ``InputRequired``, ``Error``).

A catalog generated from data makes many closures of one ``def``: they are read once (the
type hints, signature, return and docstring of the first, kept by the shape of the function:
its code, qualified name, module, annotations and defaults, in the same globals), and a plain
``async def`` without injected parameters shares one ``call`` hook that calls the class's
``__wrapped__``. The class declares ``__slots__ = ()``: its instance has no ``__dict__`` (a
class costs about 0.8 KB less; bench/RESULTS.md, issue 50).

The class form stays the foundation: streaming (``Stream`` with ``handle_message``), a
provider ``arg``, your own ``validate_request`` are written as classes.

Imports genmcp's tool behaviour and the signature reader; never a web framework.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import Any, Final, overload

from genmcp.functions.returns import Returns, read_returns
from genmcp.functions.signature import (
    Function,
    Signature,
    make_class,
    read_signature,
    returns_model,
    type_hints,
)
from genmcp.tools import Tool, ToolRequest

__all__ = ["tool"]


@overload
def tool(fn: Function, /, **options: Any) -> type[Tool]: ...
@overload
def tool(fn: None = None, /, **options: Any) -> Callable[[Function], type[Tool]]: ...
def tool(fn: Function | None = None, /, **options: Any) -> Any:
    """Make ``fn`` a ``Tool`` subclass: ``@tool``, ``@tool(name=..., annotations=...)``, or
    ``tool(fn, ...)``.

    Example::

        @tool(annotations={"readOnlyHint": True})
        async def add(a: int, b: Annotated[int, Field(ge=0)] = 1) -> str:
            \"\"\"Adds two numbers.\"\"\"
            return str(a + b)

        mcp_router(server_name="calc", server_version="1", tools=[add])

    Args:
        fn: the function; its parameters are the tool's arguments, except those annotated
            ``Channel`` or ``ToolRequest`` and FastAPI dependencies (``Depends(...)``),
            which genmcp passes. A single pydantic model parameter is the whole arguments
            object (as a FastAPI body).
        options: any ``Tool`` class option (``name``, ``title``, ``description``,
            ``annotations``, ``output_schema``, ``scopes``, ``error_results`` ...) but
            ``input_schema``, which the signature gives; ``output_schema=`` wins over the
            return annotation (which is then not read).

    Returns:
        The ``Tool`` subclass, named after the function; ``cls.__wrapped__`` is ``fn``. It
        declares ``__slots__ = ()`` (its instances have no ``__dict__``; a subclass of it
        without ``__slots__`` has one).

    Raises:
        TypeError: the signature cannot be served (``*args``, an unresolved annotation, a
            type pydantic cannot describe, a return annotation that cannot be a JSON Schema,
            a generator function), or ``input_schema=`` was given. Raised here, at the
            decoration, by every function that has the fault (a failed reading is not kept).
    """
    if fn is None:
        return lambda function: tool(function, **options)
    if "input_schema" in options:
        raise TypeError(
            f"{getattr(fn, '__qualname__', fn)}: @tool reads input_schema from the signature; "
            "write a Tool class to give your own"
        )
    reading = _read(fn, "output_schema" not in options)
    given, options = options, {"name": fn.__name__}
    if reading.doc:
        options["description"] = reading.doc
    options.update(given)
    returns = reading.returns
    if returns is not None:
        options["output_schema"] = returns.schema
    elif reading.model is not None and "output_schema" not in options:
        options["output_schema"] = reading.model
    signature = reading.signature
    if signature.model is not None:
        options["input_schema"] = signature.model
    call = reading.call or _call(fn, signature)
    if returns is not None:
        call = _returning(call, returns, options["name"])
    return make_class(fn, {"call": call, "__slots__": ()}, Tool, options, reading.doc)


class _Reading:
    """What ``@tool`` read from a function: its sorted signature, its return's ``Returns``
    and model, its docstring and, when it needs nothing of its own, a ``call`` hook shared
    by every function read alike (:func:`_shared_call`)."""

    __slots__ = ("call", "doc", "globals", "model", "raw_doc", "returns", "signature")

    def __init__(self, fn: Function, reads_returns: bool) -> None:
        hints = type_hints(fn)  # read once: the arguments' and the return's
        self.signature = signature = read_signature(fn, request_type=ToolRequest, hints=hints)
        self.raw_doc = getattr(fn, "__doc__", None)
        self.doc = inspect.getdoc(fn)  # read once: the description and the class's __doc__
        self.returns = read_returns(fn, hints) if reads_returns else None
        self.model = returns_model(fn, hints) if reads_returns and self.returns is None else None
        self.globals = getattr(fn, "__globals__", None)
        self.call = _shared_call(signature)


_READINGS: Final[dict[Any, _Reading]] = {}
"""Readings by the shape of a plain function (:func:`_shape`): closures of one ``def``,
generated from data by the 100,000 (bench/RESULTS.md, issue 50), are read once."""
READINGS_MAX: Final = 1024
"""Shapes kept (then the memo starts again)."""


def _read(fn: Function, reads_returns: bool) -> _Reading:
    """The reading of ``fn``: an earlier function's of the same shape (its code, qualified
    name, module, annotations and defaults, in the same globals, with the same docstring),
    else a new one. A function that does not resolve raises here, each time."""
    key = _shape(fn, reads_returns)
    if key is None:
        return _Reading(fn, reads_returns)
    found = _READINGS.get(key)
    if found is not None and found.globals is fn.__globals__ and found.raw_doc is fn.__doc__:
        return found
    reading = _Reading(fn, reads_returns)
    if len(_READINGS) >= READINGS_MAX:
        _READINGS.clear()
    _READINGS[key] = reading
    return reading


def _shape(fn: Function, reads_returns: bool) -> Any:
    """A hashable key that is equal for two plain functions ``@tool`` reads alike, or None
    (not a plain function; a ``__wrapped__`` or ``__signature__`` of its own; an unhashable
    annotation or default). Defaults compare with their types (``1`` is not ``True``)."""
    if type(fn) is not types.FunctionType:
        return None
    if hasattr(fn, "__wrapped__") or hasattr(fn, "__signature__"):  # (not materializing __dict__)
        return None
    defaults = fn.__defaults__
    keywords = fn.__kwdefaults__
    key = (
        fn.__code__,
        fn.__qualname__,
        fn.__module__,
        reads_returns,
        tuple(fn.__annotations__.items()),
        defaults,
        None if defaults is None else tuple(map(type, defaults)),
        None if keywords is None else tuple(keywords.items()),
        None if keywords is None else tuple(map(type, keywords.values())),
    )
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _call(fn: Function, signature: Signature) -> Function:
    """The ``call`` hook: async for an ``async def`` or a ``def`` with dependencies (run in
    a thread after they are resolved), a plain ``def`` (genmcp's thread) otherwise. Only a
    function with dependencies pays for them (``Signature.call``: a cache and cleanups per
    invocation)."""
    bind, invoke = signature.bind, signature.call
    plain = not (signature.injected or signature.dependencies or signature.single)
    if signature.is_async and plain and signature.model is not None:

        async def call(self: Tool, request: ToolRequest, channel: Any, arg: Any) -> Any:
            return await fn(**request.arguments.__dict__)  # the model's fields: the arguments

    elif signature.is_async and not signature.dependencies:

        async def call(self: Tool, request: ToolRequest, channel: Any, arg: Any) -> Any:
            return await fn(**bind(request.arguments, request, channel))

    elif signature.dependencies:  # set up and torn down around the call, in its task

        async def call(self: Tool, request: ToolRequest, channel: Any, arg: Any) -> Any:
            return await invoke(fn, bind(request.arguments, request, channel), channel)

    else:

        def call(self: Tool, request: ToolRequest, channel: Any, arg: Any) -> Any:  # type: ignore[misc]
            return fn(**bind(request.arguments, request, channel))

    return call


async def _call_model(self: Tool, request: ToolRequest, channel: Any, arg: Any) -> Any:
    """The ``call`` of a plain ``async def`` with arguments: the function is the class's."""
    return await self.__wrapped__(**request.arguments.__dict__)  # type: ignore[attr-defined]


async def _call_bare(self: Tool, request: ToolRequest, channel: Any, arg: Any) -> Any:
    """The ``call`` of a plain ``async def`` without parameters."""
    return await self.__wrapped__()  # type: ignore[attr-defined]


def _shared_call(signature: Signature) -> Function | None:
    """The ``call`` shared by every plain ``async def`` of this signature's kind, which
    reads the function from its class's ``__wrapped__`` (no closure per function); None
    when the function needs one of its own (``_call``)."""
    if not signature.is_async or signature.injected or signature.dependencies:
        return None
    if signature.single:
        return None
    if signature.model is not None:
        return _call_model
    return _call_bare if not signature.arguments else None


def _returning(call: Function, returns: Returns, name: str) -> Function:
    """``call`` with its value made the result its return annotation says (``returns``)."""
    answer = returns.answer
    if inspect.iscoroutinefunction(call):

        async def returning(self: Tool, request: ToolRequest, channel: Any, arg: Any) -> Any:
            return answer(await call(self, request, channel, arg), name)

        return returning

    def returning_in_thread(self: Tool, request: ToolRequest, channel: Any, arg: Any) -> Any:
        return answer(call(self, request, channel, arg), name)

    return returning_in_thread

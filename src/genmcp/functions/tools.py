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

The class form stays the foundation: streaming (``Stream`` with ``handle_message``), a
provider ``arg``, your own ``validate_request`` are written as classes.

Imports genmcp's tool behaviour and the signature reader; never a web framework.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, overload

from genmcp.functions.returns import Returns, read_returns
from genmcp.functions.signature import (
    Function,
    Signature,
    describe,
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
        The ``Tool`` subclass, named after the function; ``cls.__wrapped__`` is ``fn``.

    Raises:
        TypeError: the signature cannot be served (``*args``, an unresolved annotation, a
            type pydantic cannot describe, a return annotation that cannot be a JSON Schema,
            a generator function), or ``input_schema=`` was given.
    """
    if fn is None:
        return lambda function: tool(function, **options)
    if "input_schema" in options:
        raise TypeError(
            f"{getattr(fn, '__qualname__', fn)}: @tool reads input_schema from the signature; "
            "write a Tool class to give your own"
        )
    hints = type_hints(fn)  # read once: the arguments' and the return's
    signature = read_signature(fn, request_type=ToolRequest, hints=hints)
    doc = inspect.getdoc(fn)  # read once: the description and the class's __doc__
    options = {**describe(fn, doc), **options}
    returns = None if "output_schema" in options else read_returns(fn, hints)  # the option wins
    if returns is not None:
        options["output_schema"] = returns.schema
    else:
        options.setdefault("output_schema", returns_model(fn, hints))
    if signature.model is not None:
        options["input_schema"] = signature.model
    call = _call(fn, signature)
    if returns is not None:
        call = _returning(call, returns, options["name"])
    return make_class(fn, {"call": call}, Tool, options, doc)


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

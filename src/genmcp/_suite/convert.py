"""The convenience returns of a tool's ``call``/``handle_message``, and opt-in error results.

A hook's documented outcomes are ``Result``, ``Stream``, ``Error`` and ``InputRequired``.
For the common case a tool may also return, with this fixed conversion:

* a ``str``: ``Result(call_tool_result(text=...))``;
* a pydantic model: ``Result(call_tool_result(structured=model))`` (dumped in JSON mode);
* a ``dict`` holding a ``content`` list and only ``CallToolResult`` keys (what
  ``call_tool_result`` builds): ``Result(that dict)``; any other ``dict``:
  ``Result(call_tool_result(structured=that dict))``.

Anything else stays the ``CallbackReturnError`` it always was. With the tool option
``error_results=True`` an exception raised by ``call`` or ``handle_message`` (other than
genmcp's own protocol errors) answers an ``isError`` result the model can read,
``"<ExceptionType>: <message>"``, and the traceback is logged.

Imports genmcp's outcomes and protocol content; no asyncio.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel

from genmcp.errors import CallbackReturnError, MCPError
from genmcp.outcomes import Result
from genmcp.protocol.content import call_tool_result

__all__ = ["RESULT_KEYS", "converted", "error_result"]

RESULT_KEYS: Final = frozenset({"content", "structuredContent", "isError", "_meta"})
"""The keys of a ``CallToolResult`` a tool builds (the Suite adds ``resultType``)."""


def converted(value: Any) -> Any:
    """The ``Result`` for a convenience return (see the module), else ``value`` unchanged."""
    if isinstance(value, str):
        return Result(call_tool_result(text=value))
    if isinstance(value, BaseModel):
        return Result(call_tool_result(structured=value))
    if isinstance(value, dict):
        if isinstance(value.get("content"), list) and set(value) <= RESULT_KEYS:
            return Result(value)
        return Result(call_tool_result(structured=value))
    return value


def error_result(exc: BaseException) -> dict[str, Any] | None:
    """The ``isError`` result an ``error_results=True`` tool answers for ``exc``, or None
    when ``exc`` must stay a protocol error (genmcp's own, or not an ``Exception``)."""
    if not isinstance(exc, Exception) or isinstance(exc, MCPError | CallbackReturnError):
        return None
    kind, message = type(exc).__name__, str(exc)
    return call_tool_result(error=f"{kind}: {message}" if message else kind)

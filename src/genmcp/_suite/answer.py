"""From a hook's outcome to the result object: once for tools, prompts and resources.

A hook's return is checked against what its contract allows (``checked``: anything else is a
``CallbackReturnError`` naming the kind, the name and the hook); then :func:`result_of` turns
it into the result: ``Result`` through the behaviour's own ``complete`` (its shape checks and
:func:`completed`), ``InputRequired`` into the sealed ``input_required`` result,
``Error`` into the JSON-RPC error the hook chose, ``ResourceNotFound`` into the
behaviour's not-found error.

Imports genmcp's errors, outcomes and request states; no asyncio.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from genmcp._suite.request_state import RequestStates
from genmcp.errors import CallbackReturnError, MCPError
from genmcp.outcomes import Error, InputRequired, ResourceNotFound, Result

__all__ = ["checked", "completed", "result_of"]


def checked(kind: str, name: str, hook: str, value: Any, allowed: tuple[type, ...]) -> Any:
    """``value`` when it is one of the ``allowed`` outcome types, else the contract error."""
    if isinstance(value, allowed):
        return value
    expected = ", ".join(t.__name__ for t in allowed[:-1]) + f" or {allowed[-1].__name__}"
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

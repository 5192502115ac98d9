"""The outcome vocabulary of every behaviour: what a hook returns, as small frozen types.

GenMCP's tagged tuples as classes: ``{:result, r}`` is ``Result(r)``, ``{:stream, state}`` is
``Stream(state)``, ``{:error, reason}`` is ``Error(message)``, ``{:input_required, requests,
state}`` is ``InputRequired(requests, state)``. ``ResourceNotFound`` is a resource read's own.
Which hook may return which is the behaviour's contract (``tools.py``, ``prompts.py``,
``resources.py``); anything else raises ``CallbackReturnError`` naming the hook.

:func:`typed_input` reads one answer of the client as a pydantic model (what
``request.input(Model)`` returns), raising :class:`InputDeclined` when the user said no;
:class:`HookRequest` is the base of the three requests that carry those answers.

Pure: imports only pydantic and ``genmcp.errors``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from genmcp.errors import INTERNAL_ERROR, MCPError

__all__ = [
    "CacheControl",
    "Error",
    "HookRequest",
    "InputDeclined",
    "InputRequired",
    "Outcome",
    "ResourceNotFound",
    "Result",
    "Stream",
    "typed_input",
]

M = TypeVar("M", bound=BaseModel)

CacheControl = tuple[Literal["public", "private"], int]
"""``("public" | "private", ttl_ms)``: how long clients may cache a listing or a read."""


@dataclass(frozen=True, slots=True, init=False)
class Result:
    """Finish with a result (``call_tool_result``, ``get_prompt_result``, ...)."""

    result: dict[str, Any]

    def __init__(self, result: dict[str, Any]) -> None:
        _RESULT_RESULT(self, result)  # the slot's setter: no object.__setattr__ (hot path)


_RESULT_RESULT: Final = vars(Result)["result"].__set__


@dataclass(frozen=True, slots=True)
class Stream:
    """Keep the call open: mailbox messages go to ``handle_message`` with this state."""

    state: Any = None


@dataclass(frozen=True, slots=True)
class Error:
    """Finish with a JSON-RPC error (a protocol failure, not a tool error).

    A failure the model should read is a result instead:
    ``Result(call_tool_result(error="..."))``.
    """

    message: str
    code: int = INTERNAL_ERROR
    data: Any = None


@dataclass(frozen=True, slots=True)
class InputRequired:
    """Ask the client for input and come back with the answers (multi round-trip).

    Attributes:
        requests: key -> nested request (``elicit_request(...)``,
            ``create_message_request(...)``, ``list_roots_request()`` or the
            spec's raw ``{"method": ..., "params": ...}`` shape).
        state: JSON-able state, sealed into ``requestState`` and handed back as
            ``request.request_state`` on the retry. Signed, not encrypted: no secrets.
    """

    requests: Mapping[str, Mapping[str, Any]]
    state: Any = None


@dataclass(frozen=True, slots=True)
class ResourceNotFound:
    """Outcome of ``read``: no such resource (-32602 with ``data.uri``, never empty contents)."""

    message: str | None = None


Outcome = Result | Stream | Error | InputRequired | ResourceNotFound


class InputDeclined(MCPError):
    """Raised by ``request.input(Model)`` when the user declined or cancelled the question.

    Left uncaught in a tool, it answers an ``isError`` result saying nothing was done (the
    model reads it); in a prompt or a resource, the JSON-RPC error ``input_refused``. Catch
    it to answer your own way.

    Attributes:
        key: the ``InputRequired`` key the user answered.
        action: ``"decline"`` or ``"cancel"``.
    """

    def __init__(self, key: str, action: str) -> None:
        super().__init__(
            "input_refused",
            f"The user answered {action!r} to {key!r}: nothing was done",
            {"key": key, "action": action},
        )
        self.key, self.action = key, action


def typed_input(
    responses: Mapping[str, Any] | None, model: type[M], key: str | None = None
) -> M | None:
    """The client's answer under ``key`` as a ``model`` instance, or None when not given.

    ``key`` defaults to the only answer (or, among several, the one named after the model
    class). An accepted elicitation gives its ``content`` as the model; a declined or
    cancelled one raises :class:`InputDeclined`; content that does not fit the model is the
    client's fault (-32602).
    """
    if not responses:
        return None
    if key is None:
        if len(responses) == 1:
            key = next(iter(responses))
        elif model.__name__ in responses:
            key = model.__name__
        else:
            raise ValueError(
                f"request.input({model.__name__}) has several answers "
                f"({', '.join(sorted(responses))}): name the key, request.input(Model, 'key')"
            )
    answer = responses.get(key)
    if answer is None:
        return None
    action = answer.get("action") if isinstance(answer, Mapping) else None
    if action in ("decline", "cancel"):
        raise InputDeclined(key, action)
    content = answer.get("content") if isinstance(answer, Mapping) else None
    try:
        return model.model_validate(content if action == "accept" else answer)
    except ValidationError as exc:
        raise MCPError(
            "bad_input_responses",
            f"Invalid inputResponses: {key!r} does not fit {model.__name__}: "
            f"{exc.error_count()} error(s), first: {exc.errors()[0]['msg']}",
            {"key": key},
        ) from None


@dataclass(frozen=True, slots=True, kw_only=True)
class HookRequest:
    """The base of ``ToolRequest``, ``PromptRequest`` and ``ResourceRequest``: what a hook gets.

    Each is a frozen dataclass of its own leading fields (``name`` and ``arguments``, or
    ``uri`` and ``params``) and the three every request has, declared here once and given by
    keyword (``PromptRequest(name, arguments, meta=meta)``; ``ToolRequest``'s own
    ``__init__``, on the hot path, takes them by position too):

    - ``meta``: the request's ``_meta`` (protocol version, client capabilities ...);
    - ``input_responses``: the client's answers on a multi round-trip retry, else None;
    - ``request_state``: the verified state from ``InputRequired(..., state)``, else None.
    """

    meta: Mapping[str, Any] = field(default_factory=dict)
    input_responses: dict[str, Any] | None = None
    request_state: Any = None

    def input(self, model: type[M], key: str | None = None) -> M | None:
        """The client's answer as a ``model`` instance (a pydantic class), or None on the
        first pass: ``confirm = request.input(Confirm)``. See :func:`typed_input`."""
        return typed_input(self.input_responses, model, key)

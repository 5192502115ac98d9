"""The outcome vocabulary of every behaviour: what a hook returns, as small frozen types.

GenMCP's tagged tuples as classes: ``{:result, r}`` is ``Result(r)``, ``{:stream, state}`` is
``Stream(state)``, ``{:error, reason}`` is ``Error(message)``, ``{:input_required, requests,
state}`` is ``InputRequired(requests, state)``. ``ResourceNotFound`` is a resource read's own.
Which hook may return which is the behaviour's contract (``tool.py``, ``prompt.py``,
``resource.py``); anything else raises ``CallbackReturnError`` naming the hook.

Pure: imports only ``genmcp.errors``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from genmcp.errors import INTERNAL_ERROR

__all__ = [
    "CacheControl",
    "Error",
    "InputRequired",
    "Outcome",
    "ResourceNotFound",
    "Result",
    "Stream",
]

CacheControl = tuple[Literal["public", "private"], int]
"""``("public" | "private", ttl_ms)``: how long clients may cache a listing or a read."""


@dataclass(frozen=True, slots=True)
class Result:
    """Finish with a result (``call_tool_result``, ``get_prompt_result``, ...)."""

    result: dict[str, Any]


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

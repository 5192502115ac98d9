"""Built-in observing middleware: :class:`AccessLog` (one log record per request) and
:class:`Timing` (per-operation durations, slow-request warnings).

Both see every request of the chain (``genmcp.middleware``), in both eras and every
transport, and report when the Call is done: a streamed call when its response went out, a
cancelled or abandoned one when it ended. Neither logs a token, ``requestState``,
``inputResponses`` or arguments (arguments only with ``AccessLog(arguments=True)``); a
tool name, URI or principal is escaped and cut, so a hostile name cannot forge log lines.

Imports only genmcp's middleware and the standard library.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, final

from genmcp.call import Call
from genmcp.middleware.chain import CallEnd, MCPRequest, Middleware, Next, watch
from genmcp.protocol.methods import PROMPTS_GET, TOOLS_CALL

__all__ = [
    "UNKNOWN_TARGET",
    "AccessLog",
    "OperationStats",
    "Timing",
    "outcome_label",
    "principal_of",
    "safe_text",
]

_MAX_TEXT: Final = 200
_MAX_ARGUMENTS: Final = 2000


def safe_text(value: Any, limit: int = _MAX_TEXT) -> str:
    """``value`` as one printable line: control characters escaped, cut at ``limit``."""
    text = value if isinstance(value, str) else str(value)
    if not text.isprintable():
        text = text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= limit else text[:limit] + "…"


def outcome_label(outcome: CallEnd) -> str:
    """``ok``, ``tool_error``, the JSON-RPC error code, ``cancelled`` or ``disconnected``."""
    if outcome.answer is None:
        return outcome.ended
    error = outcome.error
    if error is not None:
        return str(error.get("code", "error"))
    return "tool_error" if outcome.tool_error else "ok"


def principal_of(assigns: Mapping[str, Any]) -> str | None:
    """The caller's principal from its assigns (``genmcp.auth`` puts it there), or None."""
    principal = assigns.get("principal")
    return None if principal is None else safe_text(principal)


class AccessLog(Middleware):
    """One ``logging`` record per request when it is done, on ``genmcp.access``.

    The message reads ``tools/call add principal=alice outcome=ok 1.23ms``; the same fields
    are on the record as ``record.mcp`` (a dict) for a structured (JSON) formatter: method,
    target, principal, outcome, duration_ms, messages (sent before the response), era,
    transport, request_id, and ``arguments`` when opted in.

    Args:
        logger: where records go (default ``logging.getLogger("genmcp.access")``).
        level: the level of a successful request (and of a tool error).
        error_level: the level of a protocol error, a cancel or a disconnect.
        arguments: also log ``tools/call`` and ``prompts/get`` arguments (JSON, cut at 2000
            characters). Off by default: arguments may hold personal data or secrets.
    """

    def __init__(
        self,
        *,
        logger: logging.Logger | None = None,
        level: int = logging.INFO,
        error_level: int = logging.WARNING,
        arguments: bool = False,
    ) -> None:
        self.logger = logger or logging.getLogger("genmcp.access")
        self.level, self.error_level, self.arguments = level, error_level, arguments

    async def on_request(self, request: MCPRequest, call_next: Next) -> Call:
        started = time.perf_counter()
        call = await call_next(request)
        watch(call, lambda outcome: self._log(request, outcome, started))
        return call

    def _log(self, request: MCPRequest, outcome: CallEnd, started: float) -> None:
        label = outcome_label(outcome)
        level = self.level if label in ("ok", "tool_error") else self.error_level
        if not self.logger.isEnabledFor(level):
            return
        duration_ms = (time.perf_counter() - started) * 1000
        fields = self.fields(request, label, duration_ms, outcome.messages)
        target = "" if fields["target"] is None else " " + fields["target"]
        self.logger.log(
            level,
            "%s%s principal=%s outcome=%s %.2fms",
            request.method,
            target,
            fields["principal"] or "-",
            label,
            duration_ms,
            extra={"mcp": fields},
        )

    def fields(
        self, request: MCPRequest, outcome: str, duration_ms: float, messages: int
    ) -> dict[str, Any]:
        """The structured fields of one record (``record.mcp``)."""
        target = request.target
        fields: dict[str, Any] = {
            "method": safe_text(request.method),
            "target": None if target is None else safe_text(target),
            "principal": principal_of(request.assigns),
            "outcome": outcome,
            "duration_ms": round(duration_ms, 3),
            "messages": messages,
            "era": request.era,
            "transport": request.context.transport,
            "request_id": None if request.id is None else safe_text(request.id),
        }
        if self.arguments and request.method in (TOOLS_CALL, PROMPTS_GET):
            fields["arguments"] = _arguments(request.params.get("arguments"))
        return fields


def _arguments(arguments: Any) -> str | None:
    if arguments is None:
        return None
    try:
        text = json.dumps(arguments, ensure_ascii=True, default=repr)
    except ValueError:  # a circular structure cannot come from JSON; be safe anyway
        return None
    return text if len(text) <= _MAX_ARGUMENTS else text[:_MAX_ARGUMENTS] + "…"


@final
@dataclass(slots=True)
class OperationStats:
    """Durations of one operation (a method, or ``tools/call`` of one tool)."""

    count: int = 0
    total_s: float = 0.0
    max_s: float = 0.0
    failures: int = 0

    @property
    def mean_s(self) -> float:
        """The mean duration (0 before the first request)."""
        return self.total_s / self.count if self.count else 0.0


class Timing(Middleware):
    """Per-operation durations, and a warning for a request slower than ``slow_s``.

    ``stats()`` maps an operation (``"tools/call add"``, ``"tools/list"``) to its
    :class:`OperationStats`; a failure is a protocol error, a tool error, a cancel or a
    disconnect. Operations are only tracked for known targets (a name the Suite answered
    "unknown" for is counted under the bare method), so a client cannot grow the table.

    Args:
        slow_s: warn (on ``genmcp.timing``) about a request that took longer; None: never.
        on_timing: also called with ``(request, outcome, duration_s)`` for each request.
    """

    def __init__(
        self,
        *,
        slow_s: float | None = None,
        on_timing: Callable[[MCPRequest, CallEnd, float], None] | None = None,
    ) -> None:
        self.slow_s, self.on_timing = slow_s, on_timing
        self._stats: dict[str, OperationStats] = {}
        self._log = logging.getLogger("genmcp.timing")

    def stats(self) -> dict[str, OperationStats]:
        """A snapshot of the durations seen so far, by operation."""
        return {name: OperationStats(**_fields(s)) for name, s in self._stats.items()}

    async def on_request(self, request: MCPRequest, call_next: Next) -> Call:
        started = time.perf_counter()
        call = await call_next(request)
        watch(call, lambda outcome: self._done(request, outcome, time.perf_counter() - started))
        return call

    def _done(self, request: MCPRequest, outcome: CallEnd, duration_s: float) -> None:
        name = _operation(request, outcome)
        stats = self._stats.get(name)
        if stats is None:
            stats = self._stats[name] = OperationStats()
        stats.count += 1
        stats.total_s += duration_s
        stats.max_s = max(stats.max_s, duration_s)
        if outcome_label(outcome) != "ok":
            stats.failures += 1
        if self.slow_s is not None and duration_s > self.slow_s:
            self._log.warning(
                "slow request: %s took %.3fs (over %.3fs)", safe_text(name), duration_s, self.slow_s
            )
        if self.on_timing is not None:
            self.on_timing(request, outcome, duration_s)


UNKNOWN_TARGET: Final = frozenset({"unknown_tool", "unknown_prompt"})
"""The failure reasons that say the target does not exist (so it is not a name to keep)."""


def _operation(request: MCPRequest, outcome: CallEnd) -> str:
    target = request.target
    if target is None or request.method not in (TOOLS_CALL, PROMPTS_GET):
        return request.method
    if outcome.answer is not None and outcome.answer.reason in UNKNOWN_TARGET:
        return request.method
    return f"{request.method} {safe_text(target, 128)}"


def _fields(stats: OperationStats) -> dict[str, Any]:
    return {
        "count": stats.count,
        "total_s": stats.total_s,
        "max_s": stats.max_s,
        "failures": stats.failures,
    }

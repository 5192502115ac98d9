"""Every protocol failure genmcp can answer with, in one table.

Each failure has a *reason* (a stable slug). ``REASONS`` maps the reason to
the HTTP status, JSON-RPC code and default message taken from the MCP
2026-07-28 specification (and its legacy session mode). Layers raise
``MCPError(reason, ...)``; only transports turn it into bytes.

The exception tree::

    MCPError                 a protocol error with reason, code, data
    CallbackReturnError      a behaviour's hook returned something undocumented (server bug)

The core raises and returns reasons only; a transport asks :func:`http_status` for the HTTP
status of a reason, at the edge. Imports nothing from the rest of genmcp.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "RATE_LIMITED",
    "REASONS",
    "CallbackReturnError",
    "MCPError",
    "WireError",
    "http_status",
    "internal_error",
    "missing_capability",
    "retry_after",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
HEADER_MISMATCH = -32020
MISSING_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022
LEGACY_RESOURCE_NOT_FOUND = -32002
REQUEST_TIMEOUT = -32001
SERVER_SHUTDOWN = -32000
RATE_LIMITED = -32029


@dataclass(frozen=True, slots=True)
class WireError:
    """How one reason looks on the wire: HTTP status, JSON-RPC code, message."""

    status: int
    code: int
    message: str
    client_fault: bool = True


REASONS: dict[str, WireError] = {
    # JSON-RPC envelope
    "parse_error": WireError(400, PARSE_ERROR, "Parse error: the body is not valid JSON"),
    "invalid_request": WireError(400, INVALID_REQUEST, "Invalid Request"),
    "batch_rejected": WireError(
        400, INVALID_REQUEST, "Invalid Request: JSON-RPC batches are not supported"
    ),
    "method_not_found": WireError(404, METHOD_NOT_FOUND, "Method not found"),
    "invalid_params": WireError(200, INVALID_PARAMS, "Invalid params"),
    "internal_error": WireError(200, INTERNAL_ERROR, "Internal error", client_fault=False),
    # 2026-07-28 request rules
    "missing_meta": WireError(400, INVALID_PARAMS, "Invalid params: missing required _meta key"),
    "invalid_meta": WireError(400, INVALID_PARAMS, "Invalid params: malformed _meta"),
    "header_mismatch": WireError(400, HEADER_MISMATCH, "Header mismatch"),
    "missing_capability": WireError(400, MISSING_CAPABILITY, "Missing required client capability"),
    "unsupported_version": WireError(400, UNSUPPORTED_VERSION, "Unsupported protocol version"),
    # method-level client errors
    "unknown_tool": WireError(200, INVALID_PARAMS, "Unknown tool"),
    "bad_cursor": WireError(200, INVALID_PARAMS, "Invalid cursor"),
    "bad_log_level": WireError(200, INVALID_PARAMS, "Invalid log level"),
    "bad_request_state": WireError(200, INVALID_PARAMS, "Invalid requestState"),
    "bad_input_responses": WireError(200, INVALID_PARAMS, "Invalid inputResponses"),
    "resource_not_found": WireError(200, INVALID_PARAMS, "Resource not found"),
    "unknown_prompt": WireError(200, INVALID_PARAMS, "Unknown prompt"),
    "unknown_task": WireError(200, INVALID_PARAMS, "Unknown task"),
    "unknown_skill": WireError(200, INVALID_PARAMS, "Unknown skill"),
    "not_a_directory": WireError(200, INVALID_PARAMS, "Not a directory resource"),
    # HTTP transport
    "forbidden_origin": WireError(403, INVALID_REQUEST, "Forbidden: Origin not allowed"),
    "forbidden_host": WireError(421, INVALID_REQUEST, "Misdirected Request: Host not allowed"),
    "body_too_large": WireError(413, INVALID_REQUEST, "Request body too large"),
    "body_timeout": WireError(408, INVALID_REQUEST, "Request Timeout: the body came too slowly"),
    "method_not_allowed": WireError(405, INVALID_REQUEST, "Method not allowed"),
    "unsupported_media_type": WireError(
        415, INVALID_REQUEST, "Unsupported Media Type: send application/json"
    ),
    "unknown_tenant": WireError(404, INVALID_REQUEST, "Not found: no such tenant"),
    # legacy session mode
    "session_required": WireError(400, INVALID_REQUEST, "Bad Request: Mcp-Session-Id required"),
    "session_not_found": WireError(404, INVALID_REQUEST, "Session not found"),
    "not_initialized": WireError(400, INVALID_REQUEST, "Bad Request: session not initialized"),
    "legacy_resource_not_found": WireError(200, LEGACY_RESOURCE_NOT_FOUND, "Resource not found"),
    "input_refused": WireError(200, INVALID_REQUEST, "The client refused a server request"),
    "input_timeout": WireError(200, REQUEST_TIMEOUT, "The client did not answer in time"),
    "duplicate_request_id": WireError(
        200, INVALID_REQUEST, "Invalid Request: this id is already in flight"
    ),
    # the server
    "rate_limited": WireError(429, RATE_LIMITED, "Too many requests"),
    "task_quota": WireError(429, RATE_LIMITED, "Too many tasks"),
    "shutting_down": WireError(503, SERVER_SHUTDOWN, "Server shutting down", client_fault=False),
    # shared storage (legacy sessions, worker mail): down or hung, retry after a pause
    "storage_unavailable": WireError(
        503, INTERNAL_ERROR, "Service unavailable: shared storage unreachable", client_fault=False
    ),
}


RETRY_AFTER_S = 1
"""The ``Retry-After`` (seconds) sent with a 503 for ``storage_unavailable``."""


def retry_after(reason: str | None) -> tuple[tuple[str, str], ...]:
    """The ``Retry-After`` header a failure travels with (none for most)."""
    return (("retry-after", str(RETRY_AFTER_S)),) if reason == "storage_unavailable" else ()


def http_status(reason: str | None) -> int:
    """The HTTP status a failure travels with (200 for a success: ``reason`` None)."""
    return 200 if reason is None else REASONS[reason].status


class MCPError(Exception):
    """Raised for any failure that is answered with a JSON-RPC error.

    Args:
        reason: a key of ``REASONS``; fixes the HTTP status and JSON-RPC code.
        message: the message sent to the client (defaults to the table's).
        data: the JSON-RPC ``error.data`` member, if any.
        code: override the JSON-RPC code (for tool-chosen ``Error`` outcomes).
    """

    def __init__(
        self,
        reason: str,
        message: str | None = None,
        data: Any = None,
        *,
        code: int | None = None,
    ) -> None:
        wire = REASONS[reason]
        self.reason = reason
        self.message = message or wire.message
        self.data = data
        self.code = wire.code if code is None else code
        self.client_fault = wire.client_fault
        super().__init__(self.message)

    def to_error(self) -> dict[str, Any]:
        """The JSON-RPC ``error`` member for this failure."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    def __repr__(self) -> str:
        return f"MCPError({self.reason!r}, {self.message!r}, code={self.code})"


TOOL_CRASH_HINT: Final = (
    "(its traceback is in the server log; the tool option error_results=True answers an "
    "exception as an isError result the model can read)"
)
"""What a client is told after a tool's exception: where to look, and the option that shows
the model the exception's message (the message itself is never sent without it)."""


def internal_error(what: str) -> MCPError:
    """The -32603 answer to a server-side failure in ``what`` (log the traceback first); a
    tool's adds :data:`TOOL_CRASH_HINT`."""
    if what.startswith("tool "):
        return MCPError("internal_error", f"Internal error in {what} {TOOL_CRASH_HINT}")
    return MCPError("internal_error", f"Internal error in {what}")


def missing_capability(missing: dict[str, Any]) -> MCPError:
    """The -32021 error for client capabilities (a ClientCapabilities subset) not declared."""
    return MCPError(
        "missing_capability",
        "Missing required client capability: " + ", ".join(sorted(missing)),
        {"requiredCapabilities": missing},
    )


class CallbackReturnError(TypeError):
    """Raised when a behaviour's hook returns a value its contract does not allow.

    genmcp never guesses what an undocumented return meant: this names the kind (tool,
    prompt, resource), its name, the hook and the value, so the bug is found at once.
    """

    def __init__(self, kind: str, name: str, callback: str, value: Any, expected: str) -> None:
        self.kind = kind
        self.name = name
        self.callback = callback
        self.value = value
        message = f"{kind} {name!r}: {callback}() returned {value!r}; expected {expected}"
        if inspect.iscoroutine(value):  # a plain def hook returned an async helper's coroutine
            value.close()  # never run: no "never awaited" warning on top of this error
            message += (
                f"; did you forget await? A plain def {callback}() must return the value "
                f"itself: make it async def {callback}() and await the coroutine"
            )
        super().__init__(message)

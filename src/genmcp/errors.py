"""Every protocol failure genmcp can answer with, in one table.

Each failure has a *reason* (a stable slug). ``REASONS`` maps the reason to
the HTTP status, JSON-RPC code and default message taken from the MCP
2026-07-28 specification (and its legacy session mode). Layers raise
``MCPError(reason, ...)``; only transports turn it into bytes.

The exception tree: every exception class genmcp defines, under its base, with the module it
lives in (``[module]``, under ``genmcp.``), when it is raised and what becomes of it.
``tests/layout/test_exceptions.py`` holds it complete: a class missing here, or drawn under
another base or in another module, fails it. ``_Private`` ones never leave their module::

    Exception
    ├── MCPError  [errors]
    │   │   any failure answered with a JSON-RPC error: ``reason`` fixes code, HTTP status and
    │   │   ``client_fault`` (``REASONS``); raised anywhere, made bytes only by a transport
    │   ├── EnvelopeError  [protocol.jsonrpc]
    │   │       bytes that are not one JSON-RPC message (-32700, -32600); keeps the id if read
    │   ├── InputDeclined  [outcomes]
    │   │       ``request.input(Model)``: the user declined; an ``isError`` result in a tool,
    │   │       ``input_refused`` in a prompt or a resource
    │   └── StorageUnavailable  [storage.guard]
    │           shared storage down, hung or refusing: 503 with ``Retry-After``
    ├── SealError  [sealing.tokens]
    │       a token failed to unseal (malformed, tampered, expired, audience); the catalogs
    │       answer -32602 (bad cursor, bad requestState), a session id 404
    ├── InvalidArguments  [schema.compile]
    │       tool arguments fail the input schema: an ``isError`` result listing the failures
    ├── OverBudget  [schema.clock]
    │       validation ran past its time budget; ``schema.compile`` answers it as invalid
    ├── Unchecked  [schema.regex]
    │       a string a limit kept from a pattern; it ends the validation error's message
    ├── TimedOut  [schema.sandbox]
    │       a pattern search in the sandbox passed its deadline (its child killed)
    ├── _Unsupported  [schema.fastcheck]
    │       the fast path cannot decide a schema: the full engine takes it
    ├── _NotPlain  [schema.re2syntax]
    │       a pattern outside the plain subset: RE2 itself must judge it
    ├── InboxFull  [storage.messaging]
    │       a worker's inbox is at its bound (``Suite.post``, worker mail): retry later
    ├── TaskQuotaExceeded  [storage.tasks]
    │       ``TaskStore.create`` refused a task (a ``TaskQuota`` limit): ``task_quota``, 429
    ├── StoreFailure  [storage.guard]
    │   │   a store's failure that names its ``cause``, which a ``Breaker`` repeats in its
    │   │   ``StorageUnavailable``
    │   └── WritesRefused  [storage.redis.refusals]
    │           a Redis that answers but refuses for now (``OOM``, ``READONLY`` ...; also a
    │           ``RedisError``): its breaker's ``StorageUnavailable``, 503 with ``Retry-After``
    ├── ClientError  [client.errors]
    │   │   ``genmcp.client``: the server cannot be reached or understood (refused, timeout,
    │   │   an HTTP error page, a stream ended without a response)
    │   ├── RPCError  [client.errors]
    │   │       the server answered with a JSON-RPC error (``code``, ``message``, ``data``;
    │   │       ``notifications`` before it, as ``MCPTestClient`` keeps them)
    │   ├── LimitExceeded  [client.errors]
    │   │   │   a server sent past one of the client's ``ClientLimits`` (``limit``, ``value``)
    │   │   ├── MessageTooLarge  [client.errors]
    │   │   │       a response body, SSE event or stdio line over ``max_message_bytes``
    │   │   ├── ListingTooLong  [client.errors]
    │   │   │       a listing past ``max_pages`` pages or ``max_items`` items
    │   │   └── DeadlineExceeded  [client.errors]
    │   │           a call still unanswered at ``deadline_s``: it is cancelled upstream
    │   ├── ResponseMismatch  [client.errors]
    │   │       a JSON answer whose id is another request's
    │   ├── SkillVerificationError  [client.errors]
    │   │   │   a skill file is not what its entry promised (SEP-2640): not used (``uri``)
    │   │   ├── DigestMismatch  [client.errors]
    │   │   │       its sha256 is not the manifest's ``digest``
    │   │   ├── SizeMismatch  [client.errors]
    │   │   │       its byte length is not the manifest's ``size``
    │   │   ├── FrontmatterMismatch  [client.errors]
    │   │   │       a ``SKILL.md``'s frontmatter differs from the entry's
    │   │   └── UnlistedSkillFile  [client.errors]
    │   │           a file inside the skill its manifest does not list: not fetched
    │   └── SkillTooLarge  [client.errors]
    │           a manifest past the files or bytes the client accepts: nothing fetched
    ├── _Stale  [client.transport]
    │       a pooled connection closed before any byte of the response: sent again
    ├── UpstreamDown  [compose.upstream]
    │       exported, never raised: a down upstream answers an ``Error`` (``Upstream.down``)
    ├── VerifierBusy  [auth.tokens]
    │       the verifier is over its introspection budget: 503 with ``Retry-After``, never
    │       ``invalid_token`` for a token it did not check
    ├── InvalidToken  [auth.tokens]
    │       a bearer token is not acceptable: 401 with a ``WWW-Authenticate`` challenge
    ├── DPoPProblem  [auth.dpop]
    │       a DPoP proof is refused (``invalid_dpop_proof``) or lacks the server's nonce
    │       (``use_dpop_nonce``): 401 with a ``WWW-Authenticate: DPoP`` challenge
    ├── InvalidIdToken  [auth.front.id_token]
    │       the upstream provider's ID token fails a check: the login fails
    ├── UpstreamError  [auth.front.upstream]
    │       the authorization front's upstream provider could not be used
    ├── RegistrationError  [auth.front.registration]
    │       a refused client registration: its RFC 7591 error code and HTTP status
    ├── Refused  [auth.front.wire]
    │       a front request refused with an RFC 6749 error code, description and status
    ├── Throttled  [auth.front.limits]
    │       a front request over a bound: 429 (a source, a client) or 503, ``Retry-After``
    ├── _TooLarge  [routes_as_tools.exchange]
    │       raised into an app whose response outgrows the cap of a route tool
    ├── APIUnavailable  [openapi.upstream]
    │       an imported API refused, timed out, answered 5xx, or its breaker is open: the
    │       tool answers the -32603 error of a down upstream
    ├── InstallError  [cli.install]
    │       ``genmcp install``: a target the client cannot run, a config that is not JSON
    ├── UsageError  [cli.program]
    │       the command line: a mistake in what the user asked (exit status 2)
    ├── _Declined  [cli.form]
    │       the terminal form: the user declined (the elicitation answer ``decline``)
    ├── Unlogged  [sessions.stream_log]
    │       a resumable stream's log refused an event: the response ends, the log follows
    ├── ConnectionError
    │   │   redis-py's (``redis.exceptions.ConnectionError``): a Redis store's retries take it
    │   └── NotReplicated  [storage.redis.failover]
    │           a write no replica acknowledged in time: not acknowledged (503, retried)
    ├── TypeError
    │   └── CallbackReturnError  [errors]
    │           a behaviour's hook returned what its contract does not allow (a server bug;
    │           the message names the kind, the name, the hook and the value)
    ├── ValueError
    │   ├── WeakKeyError  [sealing.tokens]
    │   │       a secret key too short to sign tokens: raised when the server is built
    │   ├── BuildError  [routes_as_tools.arguments]
    │   │       a selected route cannot become a tool (the message names it): at build time
    │   ├── _Repeated  [auth.front.registration_endpoint]
    │   │       a JSON object of a front request names a member twice: refused
    │   └── EventTooLarge  [protocol.client]
    │           an SSE event grew past the parser's bound (the client's ``MessageTooLarge``)
    ├── RuntimeError
    │   ├── LifecycleError  [call.lifecycle]
    │   │       a Call moved by a trigger its phase does not allow (a genmcp bug)
    │   ├── EvictionRefused  [storage.redis.eviction]
    │   │       the Redis evicts keys (``maxmemory-policy``): refused at start-up, unless
    │   │       ``RedisOptions(allow_eviction=True)``
    │   └── LifespanError  [fastapi.lifespan]
    │           the app's lifespan failed to start or to stop (stdio, the command line)
    ├── TimeoutError
    │   └── SendTimeout  [transports.http.sse]
    │           a streamed event not taken within ``send_timeout_s``: the reader is gone
    └── PermissionError
        └── AuthRequired  [fastapi.stdio_app]
                the endpoint's auth dependency refused stdio's stand-in request

The core raises and returns reasons only; a transport asks :func:`http_status` for the HTTP
status of a reason, at the edge. Imports nothing from the rest of genmcp.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "DRAFT_RATE_LIMITED",
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
    "sep3304_refusal",
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
DRAFT_RATE_LIMITED = -32023
"""SEP-3304 (Draft): the rate-limit code of ``RateLimit(sep3304=True)`` and of
``TaskOptions(sep3304=True)``'s task quota (:func:`sep3304_refusal`)."""


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
    "language_mismatch": WireError(400, HEADER_MISMATCH, "Header mismatch: Accept-Language"),
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
    "rate_limited_sep3304": WireError(429, DRAFT_RATE_LIMITED, "Too many requests"),
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


def sep3304_refusal(
    what: str, retry_after_s: float, limit: int | None = None, remaining: int | None = None
) -> MCPError:
    """A refusal in SEP-3304's (Draft) shape: ``-32023``, HTTP 429 in both eras, with
    ``error.data.retryAfterMs`` (whole milliseconds, at least 1) and, when known, ``limit``
    and ``remaining`` (the transport mirrors them in ``Retry-After``, ``RateLimit-Limit``,
    ``RateLimit-Remaining``). ``what`` opens the message (``"Too many requests"``). The one
    maker of the shape: ``RateLimit(sep3304=True)`` and ``TaskOptions(sep3304=True)``."""
    wait_ms = max(1, math.ceil(retry_after_s * 1000))
    data: dict[str, Any] = {"retryAfterMs": wait_ms}
    if limit is not None:
        data["limit"] = limit
    if remaining is not None:
        data["remaining"] = remaining
    return MCPError("rate_limited_sep3304", f"{what}: retry in {wait_ms} ms", data)


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

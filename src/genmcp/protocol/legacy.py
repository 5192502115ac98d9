"""The 2025-xx -> 2026-07-28 translation of what a legacy client sends.

Legacy clients (2025-11-25, 2025-06-18, 2025-03-26) negotiate once with ``initialize`` and
then send requests without ``_meta`` keys. genmcp serves them with the same Suite and tools
as 2026-07-28 clients:

* ``modern_params`` rebuilds a legacy request in the modern shape (``modernize`` in place,
  given its ``modern_meta``): ``params._meta`` is
  synthesized from the session (``protocolVersion`` = the modern version served,
  ``clientCapabilities`` and ``clientInfo`` from ``initialize`` as that revision understands
  them, ``logLevel`` from ``logging/setLevel``); the client's ``progressToken`` is kept.
* ``server_request`` turns a nested input request of an ``input_required`` result into a
  server-initiated JSON-RPC request of that revision; ``input_response`` turns the client's
  answer back into the modern ``inputResponses`` value.
* ``initialize_result``, ``ping`` and ``logging/setLevel`` (``log_level``) live here too.

The way back (results, errors, notifications) is ``legacy_results``; what each revision's
schema knows is ``legacy_schemas``.

Pure: no I/O, no asyncio, no web framework; imports genmcp's errors and protocol modules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypedDict, Unpack

from genmcp.errors import MCPError
from genmcp.protocol import methods
from genmcp.protocol.languages import ACCEPT_LANGUAGE_META
from genmcp.protocol.legacy_schemas import V2025_11_25, pick
from genmcp.protocol.meta import LOG_LEVELS
from genmcp.protocol.versions import (
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PREFIX,
    META_PROTOCOL_VERSION,
    at_least,
    negotiate_legacy,
)

__all__ = [
    "LEGACY_METHODS",
    "client_capabilities",
    "initialize_params",
    "initialize_result",
    "input_response",
    "is_modern_only",
    "log_level",
    "modern_meta",
    "modern_params",
    "modernize",
    "server_capabilities",
    "server_request",
]

LEGACY_METHODS: Final = methods.LEGACY_ONLY
"""Methods only legacy sessions have; the legacy layer answers them itself."""

_MODERN_ONLY: Final = frozenset({methods.SERVER_DISCOVER, methods.SUBSCRIPTIONS_LISTEN})
_RESERVED_META: Final = META_PREFIX


def is_modern_only(method: str) -> bool:
    """True for 2026-07-28 methods a legacy session never has (-32601 there)."""
    return method in _MODERN_ONLY or method.startswith(methods.TASKS_PREFIX)


# --------------------------------------------------------------------------- handshake


def initialize_params(params: Mapping[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Check ``initialize`` params; return (negotiated version, capabilities, clientInfo)."""
    capabilities = params.get("capabilities", {})
    if not isinstance(capabilities, dict):
        raise MCPError(
            "invalid_params", "Invalid params: initialize capabilities must be an object"
        )
    client_info = params.get("clientInfo", {})
    if not isinstance(client_info, dict):
        raise MCPError("invalid_params", "Invalid params: initialize clientInfo must be an object")
    return negotiate_legacy(params.get("protocolVersion")), capabilities, client_info


def server_capabilities(capabilities: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The legacy ``ServerCapabilities`` for what the Suite serves.

    What the revision knows of the modern capabilities (``listChanged`` and ``subscribe``
    notifications go out on the session's GET stream), plus ``logging``: ``logging/setLevel``
    is served for every session, plus the ``extensions`` it can carry.
    """
    legacy: dict[str, Any] = pick(capabilities, "ServerCapabilities", version)
    legacy["logging"] = {}
    if extensions := _extensions(capabilities, version):
        legacy["extensions"] = extensions
    return legacy


def _extensions(capabilities: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The ``extensions`` of ``capabilities`` that ``version`` can carry (``FIELDS``)."""
    declared = capabilities.get("extensions")
    return pick(declared, "extensions", version) if isinstance(declared, Mapping) else {}


def initialize_result(
    version: str,
    server_info: Mapping[str, Any],
    capabilities: Mapping[str, Any],
    instructions: str | None,
) -> dict[str, Any]:
    """The ``InitializeResult`` of ``version``."""
    result: dict[str, Any] = {
        "protocolVersion": version,
        "capabilities": server_capabilities(capabilities, version),
        "serverInfo": pick(server_info, "Implementation", version),
    }
    if instructions:
        result["instructions"] = instructions
    return result


def log_level(params: Mapping[str, Any]) -> str:
    """The level of a ``logging/setLevel`` request (-32602 when it is not a LoggingLevel)."""
    level = params.get("level")
    if not isinstance(level, str) or level not in LOG_LEVELS:
        raise MCPError(
            "bad_log_level",
            "Invalid params: level must be one of " + ", ".join(sorted(LOG_LEVELS)),
        )
    return level


# --------------------------------------------------------------------------- requests in


def client_capabilities(declared: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The client's ``initialize`` capabilities as a 2026-07-28 ``ClientCapabilities``.

    Only what the negotiated revision defines counts: no elicitation before 2025-06-18, no
    URL elicitation, ``sampling.tools`` or ``sampling.context`` flags before 2025-11-25
    (where ``includeContext`` needed no flag, so ``sampling`` implies ``context``), and only
    the ``extensions`` the revision can carry.
    """
    caps: dict[str, Any] = pick(declared, "ClientCapabilities", version)
    if extensions := _extensions(declared, version):
        caps["extensions"] = extensions
    for key in ("roots", "sampling", "elicitation", "experimental"):
        if key in caps and not isinstance(caps[key], Mapping):
            del caps[key]
    if not at_least(version, V2025_11_25):
        if "sampling" in caps:
            caps["sampling"] = {"context": {}}
        if "elicitation" in caps:
            caps["elicitation"] = {}
    return caps


_NOT_MODERN: Final = frozenset({"inputResponses", "requestState", "task"})
"""Params a legacy request may send that its modern form drops (modern-only, or 2025 tasks)."""


class _Session(TypedDict):
    """The keywords of :func:`modern_meta`, which :func:`modern_params` hands on."""

    modern_version: str
    capabilities: Mapping[str, Any]
    client_info: Mapping[str, Any] | None
    level: str | None


def modern_params(params: Mapping[str, Any], **session: Unpack[_Session]) -> dict[str, Any]:
    """A legacy request's params rebuilt in the modern shape, with ``_meta`` synthesized
    (:func:`modern_meta` of ``session``), in a copy (:func:`modernize` on it).

    The client's own ``_meta`` keys (``progressToken``, custom keys, SEP-2792's per-request
    ``acceptLanguage``) are kept, the other reserved ``io.modelcontextprotocol/`` keys are
    replaced, and modern-only multi round-trip params
    (``inputResponses``, ``requestState``) and the 2025-11-25 ``task`` param are dropped.
    """
    modern = dict(params)
    modernize(modern, modern_meta(params, **session))
    return modern


def modernize(params: dict[str, Any], meta: dict[str, Any]) -> None:
    """``modern_params`` in place, given its ``modern_meta``: for params that are the
    request's own (parsed from its body), which a copy would only duplicate (the hot path)."""
    if not params.keys().isdisjoint(_NOT_MODERN):
        for key in _NOT_MODERN:
            params.pop(key, None)
    params["_meta"] = meta  # replaces the client's


def modern_meta(
    params: Mapping[str, Any],
    *,
    modern_version: str,
    capabilities: Mapping[str, Any],
    client_info: Mapping[str, Any] | None,
    level: str | None,
) -> dict[str, Any]:
    """The ``_meta`` of ``modern_params``: the client's own keys, the session's synthesized."""
    sent = params.get("_meta")
    meta: dict[str, Any] = {}
    if sent is not None and isinstance(sent, Mapping):
        meta = {
            k: v
            for k, v in sent.items()
            if not str(k).startswith(_RESERVED_META) or k == ACCEPT_LANGUAGE_META
        }
    meta[META_PROTOCOL_VERSION] = modern_version
    meta[META_CLIENT_CAPABILITIES] = dict(capabilities)
    if client_info:
        meta[META_CLIENT_INFO] = dict(client_info)
    if level is not None:
        meta[META_LOG_LEVEL] = level
    return meta


# --------------------------------------------------------------------------- server requests


def server_request(request_id: str, nested: Mapping[str, Any], version: str) -> dict[str, Any]:
    """A nested input request (``{"method", "params"?}``) as a JSON-RPC request of ``version``.

    The capability check happened before (the Suite checks the nested requests against the
    capabilities ``client_capabilities`` derived for this revision), so only the shape
    changes here: no ``mode`` before 2025-11-25, and a 2025-11-25 URL elicitation gets the
    ``elicitationId`` that revision requires (the request id).
    """
    method = nested.get("method")
    raw = nested.get("params")
    params: dict[str, Any] = dict(raw) if isinstance(raw, Mapping) else {}
    if method == methods.ELICITATION_CREATE:
        if params.get("mode") == "url":
            params = {"mode": "url", "elicitationId": request_id, **params}
        elif not at_least(version, V2025_11_25):
            params.pop("mode", None)
    elif method == methods.SAMPLING_CREATE_MESSAGE:
        params = pick(params, "CreateMessageParams", version)
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params or method != methods.ROOTS_LIST:
        message["params"] = params
    return message


def input_response(method: Any, result: Any) -> dict[str, Any]:
    """A client's answer to a server request, as the modern ``inputResponses`` value."""
    if not isinstance(result, Mapping):
        raise MCPError(
            "bad_input_responses",
            f"Invalid params: the client answered {method} with a result that is not an object",
        )
    answer = dict(result)
    if method in (methods.ELICITATION_CREATE, methods.ROOTS_LIST):
        answer.pop("_meta", None)  # 2026-07-28 ElicitResult / ListRootsResult have none
    return answer

"""The whole 2025-xx <-> 2026-07-28 translation, in one place.

Legacy clients (2025-11-25, 2025-06-18, 2025-03-26) negotiate once with ``initialize`` and
then send requests without ``_meta`` keys. genmcp serves them with the same Suite and tools
as 2026-07-28 clients:

* ``modern_params`` rebuilds a legacy request in the modern shape (``modernize`` in place,
  given its ``modern_meta``): ``params._meta`` is
  synthesized from the session (``protocolVersion`` = the modern version served,
  ``clientCapabilities`` and ``clientInfo`` from ``initialize`` as that revision understands
  them, ``logLevel`` from ``logging/setLevel``); the client's ``progressToken`` is kept.
* ``legacy_result`` / ``legacy_message`` translate what the Suite and the tools send back,
  per revision: no ``resultType``, ``ttlMs``, ``cacheScope`` or ``_meta`` serverInfo, and
  only the fields the negotiated revision's schema knows (``FIELDS``).
* ``server_request`` turns a nested input request of an ``input_required`` result into a
  server-initiated JSON-RPC request of that revision; ``input_response`` turns the client's
  answer back into the modern ``inputResponses`` value.
* ``initialize_result``, ``ping`` and ``logging/setLevel`` (``log_level``) live here too.

Pure: no I/O, no asyncio, no web framework; imports genmcp's errors and protocol modules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypedDict, Unpack

from genmcp.errors import INVALID_PARAMS, LEGACY_RESOURCE_NOT_FOUND, MCPError
from genmcp.protocol import methods
from genmcp.protocol.apps import UI_EXTENSION
from genmcp.protocol.languages import ACCEPT_LANGUAGE_META
from genmcp.protocol.meta import LOG_LEVELS
from genmcp.protocol.skills import SKILLS_EXTENSION
from genmcp.protocol.versions import (
    LEGACY_VERSIONS,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PREFIX,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    SUPPORTED_VERSIONS,
    at_least,
    negotiate_legacy,
)

__all__ = [
    "FIELDS",
    "LEGACY_METHODS",
    "V2025_03_26",
    "V2025_06_18",
    "V2025_11_25",
    "client_capabilities",
    "initialize_params",
    "initialize_result",
    "input_response",
    "is_modern_only",
    "legacy_error",
    "legacy_message",
    "legacy_result",
    "log_level",
    "modern_meta",
    "modern_params",
    "modernize",
    "server_capabilities",
    "server_request",
]

V2025_11_25, V2025_06_18, V2025_03_26 = LEGACY_VERSIONS
_OLD: Final = V2025_03_26
_MID: Final = V2025_06_18
_NEW: Final = V2025_11_25

LEGACY_METHODS: Final = methods.LEGACY_ONLY
"""Methods only legacy sessions have; the legacy layer answers them itself."""

_MODERN_ONLY: Final = frozenset({methods.SERVER_DISCOVER, methods.SUBSCRIPTIONS_LISTEN})
_RESERVED_META: Final = META_PREFIX
_MODERN_RESULT_KEYS: Final = ("resultType", "ttlMs", "cacheScope")

FIELDS: Final[Mapping[str, Mapping[str, str]]] = {
    # shape -> field -> the first legacy revision whose schema has it (from the official
    # schemas; a field absent here is unknown to every legacy revision and never sent)
    "Implementation": {
        "name": _OLD, "version": _OLD, "title": _MID,
        "description": _NEW, "icons": _NEW, "websiteUrl": _NEW,
    },
    "Tool": {
        "name": _OLD, "description": _OLD, "inputSchema": _OLD, "annotations": _OLD,
        "title": _MID, "outputSchema": _MID, "_meta": _MID, "icons": _NEW,
    },
    "ToolAnnotations": {
        "title": _OLD, "readOnlyHint": _OLD, "destructiveHint": _OLD,
        "idempotentHint": _OLD, "openWorldHint": _OLD,
    },
    "Annotations": {"audience": _OLD, "priority": _OLD, "lastModified": _MID},
    "text": {"type": _OLD, "text": _OLD, "annotations": _OLD, "_meta": _MID},
    "image": {"type": _OLD, "data": _OLD, "mimeType": _OLD, "annotations": _OLD, "_meta": _MID},
    "audio": {"type": _OLD, "data": _OLD, "mimeType": _OLD, "annotations": _OLD, "_meta": _MID},
    "resource": {"type": _OLD, "resource": _OLD, "annotations": _OLD, "_meta": _MID},
    "resource_link": {
        "type": _MID, "uri": _MID, "name": _MID, "title": _MID, "description": _MID,
        "mimeType": _MID, "size": _MID, "annotations": _MID, "_meta": _MID, "icons": _NEW,
    },
    "ResourceContents": {"uri": _OLD, "mimeType": _OLD, "text": _OLD, "blob": _OLD, "_meta": _MID},
    "Resource": {
        "uri": _OLD, "name": _OLD, "description": _OLD, "mimeType": _OLD, "size": _OLD,
        "annotations": _OLD, "title": _MID, "_meta": _MID, "icons": _NEW,
    },
    "ResourceTemplate": {
        "uriTemplate": _OLD, "name": _OLD, "description": _OLD, "mimeType": _OLD,
        "annotations": _OLD, "title": _MID, "_meta": _MID, "icons": _NEW,
    },
    "Prompt": {
        "name": _OLD, "description": _OLD, "arguments": _OLD,
        "title": _MID, "_meta": _MID, "icons": _NEW,
    },
    "PromptArgument": {"name": _OLD, "description": _OLD, "required": _OLD, "title": _MID},
    "ServerCapabilities": {
        "experimental": _OLD, "logging": _OLD, "completions": _OLD,
        "prompts": _OLD, "resources": _OLD, "tools": _OLD,
    },
    "ClientCapabilities": {
        "experimental": _OLD, "roots": _OLD, "sampling": _OLD, "elicitation": _MID,
    },
    # capabilities.extensions: the 2025 schemas leave capabilities open and MCP Apps
    # negotiates there; its views need _meta on Tool and ResourceContents (2025-06-18+);
    # Skills (SEP-2640) needs only resources and its own methods: every revision
    "extensions": {UI_EXTENSION: _MID, SKILLS_EXTENSION: _OLD},
    "CreateMessageParams": {
        "messages": _OLD, "modelPreferences": _OLD, "systemPrompt": _OLD,
        "includeContext": _OLD, "temperature": _OLD, "maxTokens": _OLD,
        "stopSequences": _OLD, "metadata": _OLD, "tools": _NEW, "toolChoice": _NEW,
    },
    "ProgressParams": {"progressToken": _OLD, "progress": _OLD, "total": _OLD, "message": _OLD},
    "LogParams": {"level": _OLD, "logger": _OLD, "data": _OLD},
    "UpdatedParams": {"uri": _OLD},
}  # fmt: skip
_NOTIFICATION_PARAMS: Final = {
    methods.PROGRESS: "ProgressParams",
    methods.MESSAGE: "LogParams",
    methods.RESOURCES_UPDATED: "UpdatedParams",
}


_KNOWN: Final[dict[tuple[str, str], frozenset[str]]] = {}
"""``(shape, version)`` -> the fields of ``shape`` that ``version`` knows, filled on first use
(bounded: shapes x supported versions); ``_pick`` runs per translated object on every call."""


def _known(shape: str, version: str) -> frozenset[str]:
    known = _KNOWN.get((shape, version))
    if known is None:
        fields = FIELDS[shape]
        known = frozenset(key for key, since in fields.items() if at_least(version, since))
        if version in SUPPORTED_VERSIONS:
            _KNOWN[shape, version] = known
    return known


def _pick(obj: Any, shape: str, version: str) -> Any:
    """Keep only the fields of ``shape`` that ``version`` knows (non-objects pass through)."""
    if type(obj) is not dict and not isinstance(obj, Mapping):
        return obj
    known = _known(shape, version)
    if obj.keys() <= known:  # the usual case: nothing to drop (one C-level set test)
        return dict(obj)
    return {key: value for key, value in obj.items() if key in known}


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
    legacy: dict[str, Any] = _pick(capabilities, "ServerCapabilities", version)
    legacy["logging"] = {}
    if extensions := _extensions(capabilities, version):
        legacy["extensions"] = extensions
    return legacy


def _extensions(capabilities: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The ``extensions`` of ``capabilities`` that ``version`` can carry (``FIELDS``)."""
    declared = capabilities.get("extensions")
    return _pick(declared, "extensions", version) if isinstance(declared, Mapping) else {}


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
        "serverInfo": _pick(server_info, "Implementation", version),
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
    caps: dict[str, Any] = _pick(declared, "ClientCapabilities", version)
    if extensions := _extensions(declared, version):
        caps["extensions"] = extensions
    for key in ("roots", "sampling", "elicitation", "experimental"):
        if key in caps and not isinstance(caps[key], Mapping):
            del caps[key]
    if not at_least(version, _NEW):
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


# --------------------------------------------------------------------------- results out


def _result_meta(result: Mapping[str, Any], target: dict[str, Any], version: str) -> None:
    meta = result.get("_meta")
    if meta is None or (type(meta) is dict and len(meta) == 1 and META_SERVER_INFO in meta):
        return  # the usual case: only the modern serverInfo, which no 2025 result has
    if isinstance(meta, Mapping):
        kept = {k: v for k, v in meta.items() if k != META_SERVER_INFO}
        if kept:
            target["_meta"] = kept


_PLAIN_TEXT: Final = frozenset({"type", "text"})
"""A text block with these fields only is one every revision knows as it is."""


def _content(block: Any, version: str) -> Any:
    """One content block as ``version`` knows it (a 2025-03-26 resource link becomes text)."""
    if type(block) is not dict and not isinstance(block, Mapping):
        return block
    if block.keys() <= _PLAIN_TEXT and block.get("type") == "text":
        return block  # the usual block, the same in every revision: shared, not copied
    kind = block.get("type")
    if type(kind) is not str or kind not in FIELDS:
        return block
    if kind == "resource_link" and not at_least(version, _MID):
        label = block.get("title") or block.get("name") or block.get("uri")
        return {"type": "text", "text": f"Resource link: {label} <{block.get('uri')}>"}
    legacy = _pick(block, kind, version)
    if "annotations" in legacy:
        legacy["annotations"] = _pick(legacy["annotations"], "Annotations", version)
    if kind == "resource":
        legacy["resource"] = _pick(legacy["resource"], "ResourceContents", version)
    return legacy


def _tool(tool: Mapping[str, Any], version: str) -> dict[str, Any]:
    legacy: dict[str, Any] = _pick(tool, "Tool", version)
    if "annotations" in legacy:
        legacy["annotations"] = _pick(legacy["annotations"], "ToolAnnotations", version)
    output = legacy.get("outputSchema")
    if output is not None and not (isinstance(output, Mapping) and output.get("type") == "object"):
        del legacy["outputSchema"]  # 2025 output schemas describe an object
    return legacy


def _call_tool(result: Mapping[str, Any], version: str) -> dict[str, Any]:
    blocks = []
    for block in result.get("content", ()):  # a loop, not a comprehension: no frame (hot path)
        if type(block) is dict and block.keys() <= _PLAIN_TEXT and block.get("type") == "text":
            blocks.append(block)  # the usual block, as _content would share it
        else:
            blocks.append(_content(block, version))
    legacy: dict[str, Any] = {"content": blocks}
    structured = result.get("structuredContent")
    if structured is not None and at_least(version, _MID) and isinstance(structured, Mapping):
        legacy["structuredContent"] = structured  # a 2025 structuredContent is an object
    if "isError" in result:
        legacy["isError"] = result["isError"]
    return legacy


def _prompt(prompt: Mapping[str, Any], version: str) -> dict[str, Any]:
    legacy: dict[str, Any] = _pick(prompt, "Prompt", version)
    if isinstance(legacy.get("arguments"), list):
        legacy["arguments"] = [_pick(a, "PromptArgument", version) for a in legacy["arguments"]]
    return legacy


def _items(key: str, shape: str, result: Mapping[str, Any], version: str) -> dict[str, Any]:
    legacy: dict[str, Any] = {}
    items = result.get(key, ())
    if shape == "Tool":
        legacy[key] = [_tool(item, version) for item in items]
    elif shape == "Prompt":
        legacy[key] = [_prompt(item, version) for item in items]
    else:
        legacy[key] = [_content_item(item, shape, version) for item in items]
    if "nextCursor" in result:
        legacy["nextCursor"] = result["nextCursor"]
    return legacy


def _content_item(item: Any, shape: str, version: str) -> Any:
    legacy = _pick(item, shape, version)
    if isinstance(legacy, dict) and "annotations" in legacy:
        legacy["annotations"] = _pick(legacy["annotations"], "Annotations", version)
    return legacy


_LISTS: Final = {
    methods.TOOLS_LIST: ("tools", "Tool"),
    methods.PROMPTS_LIST: ("prompts", "Prompt"),
    methods.RESOURCES_LIST: ("resources", "Resource"),
    methods.RESOURCES_TEMPLATES_LIST: ("resourceTemplates", "ResourceTemplate"),
}


def legacy_result(method: str, result: Any, version: str) -> Any:
    """A modern result translated for a ``version`` session (unknown methods: envelope only)."""
    if type(result) is not dict and not isinstance(result, Mapping):
        return result
    legacy: dict[str, Any]
    if method == methods.TOOLS_CALL:
        legacy = _call_tool(result, version)
    elif method in _LISTS:
        legacy = _items(*_LISTS[method], result, version)
    elif method == methods.PROMPTS_GET:
        legacy = {k: v for k, v in result.items() if k in ("description", "messages")}
        legacy["messages"] = [
            {**m, "content": _content(m.get("content"), version)} if isinstance(m, Mapping) else m
            for m in result.get("messages", ())
        ]
    elif method == methods.RESOURCES_READ:
        legacy = {
            "contents": [_pick(c, "ResourceContents", version) for c in result.get("contents", ())]
        }
    else:
        legacy = {k: v for k, v in result.items() if k not in (*_MODERN_RESULT_KEYS, "_meta")}
    meta = result.get("_meta")  # usually only the modern serverInfo: no call (hot path)
    if meta is not None and not (
        type(meta) is dict and len(meta) == 1 and META_SERVER_INFO in meta
    ):
        _result_meta(result, legacy, version)
    return legacy


def legacy_error(method: str, error: Any) -> Any:
    """A modern JSON-RPC error translated for a legacy session.

    Only one code differs: a resource that does not exist is -32602 with ``data.uri`` in
    2026-07-28 and -32002 in the 2025 revisions.
    """
    if (
        method == methods.RESOURCES_READ
        and isinstance(error, Mapping)
        and error.get("code") == INVALID_PARAMS
        and str(error.get("message", "")).startswith("Resource not found")
    ):
        return {**error, "code": LEGACY_RESOURCE_NOT_FOUND}
    return error


def legacy_message(message: Mapping[str, Any], version: str) -> dict[str, Any]:
    """A notification (a tool's progress or log, a change) as ``version`` knows it."""
    method = message.get("method")
    params = message.get("params")
    if method in _NOTIFICATION_PARAMS and isinstance(params, Mapping):
        picked = _pick(params, _NOTIFICATION_PARAMS[method], version)
        return {"jsonrpc": "2.0", "method": method, "params": picked}
    if isinstance(method, str) and method.endswith("/list_changed"):
        return {"jsonrpc": "2.0", "method": method}
    return dict(message)


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
        elif not at_least(version, _NEW):
            params.pop("mode", None)
    elif method == methods.SAMPLING_CREATE_MESSAGE:
        params = _pick(params, "CreateMessageParams", version)
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

"""Modern results, errors and notifications as a 2025 revision knows them.

``legacy_result`` / ``legacy_message`` translate what the Suite and the tools send back,
per revision: no ``resultType``, ``ttlMs``, ``cacheScope`` or ``_meta`` serverInfo, and
only the fields the negotiated revision's schema knows (``legacy_schemas.FIELDS``);
``legacy_error`` gives the one error code that differs. Requests in, the handshake and
server requests are ``legacy``'s.

Pure: no I/O, no asyncio, no web framework; imports genmcp's errors and protocol modules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from genmcp.errors import INVALID_PARAMS, LEGACY_RESOURCE_NOT_FOUND
from genmcp.protocol import methods
from genmcp.protocol.legacy_schemas import FIELDS, V2025_06_18, pick
from genmcp.protocol.versions import META_SERVER_INFO, at_least

__all__ = ["legacy_error", "legacy_message", "legacy_result"]

_MID: Final = V2025_06_18
_MODERN_RESULT_KEYS: Final = ("resultType", "ttlMs", "cacheScope")
_NOTIFICATION_PARAMS: Final = {
    methods.PROGRESS: "ProgressParams",
    methods.MESSAGE: "LogParams",
    methods.RESOURCES_UPDATED: "UpdatedParams",
}


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
    legacy = pick(block, kind, version)
    if "annotations" in legacy:
        legacy["annotations"] = pick(legacy["annotations"], "Annotations", version)
    if kind == "resource":
        legacy["resource"] = pick(legacy["resource"], "ResourceContents", version)
    return legacy


def _tool(tool: Mapping[str, Any], version: str) -> dict[str, Any]:
    legacy: dict[str, Any] = pick(tool, "Tool", version)
    if "annotations" in legacy:
        legacy["annotations"] = pick(legacy["annotations"], "ToolAnnotations", version)
    output = legacy.get("outputSchema")
    if output is not None and not (isinstance(output, Mapping) and output.get("type") == "object"):
        del legacy["outputSchema"]  # 2025 output schemas describe an object
    return legacy


def _call_tool(result: Mapping[str, Any], version: str) -> dict[str, Any]:
    blocks = []
    for block in result.get("content", ()):  # a loop, not a comprehension: no frame (hot path)
        # the usual block, {"type": "text", "text": ...}, as _content would share it (told by
        # its size and keys: a keys view's subset test costs more than the rest of the loop)
        if (
            type(block) is dict
            and len(block) == 2
            and "text" in block
            and block.get("type") == "text"
        ):
            blocks.append(block)
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
    legacy: dict[str, Any] = pick(prompt, "Prompt", version)
    if isinstance(legacy.get("arguments"), list):
        legacy["arguments"] = [pick(a, "PromptArgument", version) for a in legacy["arguments"]]
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
    legacy = pick(item, shape, version)
    if isinstance(legacy, dict) and "annotations" in legacy:
        legacy["annotations"] = pick(legacy["annotations"], "Annotations", version)
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
            "contents": [pick(c, "ResourceContents", version) for c in result.get("contents", ())]
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
        picked = pick(params, _NOTIFICATION_PARAMS[method], version)
        return {"jsonrpc": "2.0", "method": method, "params": picked}
    if isinstance(method, str) and method.endswith("/list_changed"):
        return {"jsonrpc": "2.0", "method": method}
    return dict(message)

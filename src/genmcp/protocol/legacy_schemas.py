"""What each 2025 revision's schema knows, field by field, and the pick that applies it.

``FIELDS`` maps a shape to its fields and the first legacy revision whose official schema
has each; ``pick`` keeps only the fields of a shape that a revision knows. The 2025<->2026
translation (``legacy``, ``legacy_results``) builds on it.

Pure: no I/O; imports genmcp's protocol modules only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from genmcp.protocol.apps import UI_EXTENSION
from genmcp.protocol.skills import SKILLS_EXTENSION
from genmcp.protocol.versions import LEGACY_VERSIONS, SUPPORTED_VERSIONS, at_least

__all__ = ["FIELDS", "V2025_03_26", "V2025_06_18", "V2025_11_25", "pick"]

V2025_11_25, V2025_06_18, V2025_03_26 = LEGACY_VERSIONS
_OLD: Final = V2025_03_26
_MID: Final = V2025_06_18
_NEW: Final = V2025_11_25

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


_KNOWN: Final[dict[tuple[str, str], frozenset[str]]] = {}
"""``(shape, version)`` -> the fields of ``shape`` that ``version`` knows, filled on first use
(bounded: shapes x supported versions); ``pick`` runs per translated object on every call."""


def _known(shape: str, version: str) -> frozenset[str]:
    known = _KNOWN.get((shape, version))
    if known is None:
        fields = FIELDS[shape]
        known = frozenset(key for key, since in fields.items() if at_least(version, since))
        if version in SUPPORTED_VERSIONS:
            _KNOWN[shape, version] = known
    return known


def pick(obj: Any, shape: str, version: str) -> Any:
    """Keep only the fields of ``shape`` that ``version`` knows (non-objects pass through)."""
    if type(obj) is not dict and not isinstance(obj, Mapping):
        return obj
    known = _known(shape, version)
    if obj.keys() <= known:  # the usual case: nothing to drop (one C-level set test)
        return dict(obj)
    return {key: value for key, value in obj.items() if key in known}

"""protocol/legacy_results.py: results, errors and notifications checked against each 2025
revision's own schema.

The strict check (`support.legacy_client.strict_validate`) closes every definition, so a
field the revision does not know fails; the modern inputs below carry every field 2026-07-28
allows, so a translation that forgets to drop one is caught.
"""

from __future__ import annotations

from typing import Any, Final

import pytest

from genmcp.protocol import legacy_results as legacy
from support.legacy_client import check_message, strict_validate

VERSIONS: Final = ("2025-11-25", "2025-06-18", "2025-03-26")
ICON: Final = [{"src": "https://example.com/i.png", "mimeType": "image/png"}]
ANNOTATIONS: Final = {"audience": ["user"], "priority": 1, "lastModified": "2026-01-01T00:00:00Z"}
SERVER_INFO: Final = {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}
TOOL: Final = {
    "name": "t",
    "title": "T",
    "description": "d",
    "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}},
    "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
    "annotations": {"title": "T", "readOnlyHint": True},
    "icons": ICON,
    "_meta": {"x": 1},
}
BLOCKS: Final = [
    {"type": "text", "text": "hi", "annotations": ANNOTATIONS, "_meta": {"m": 1}},
    {"type": "image", "data": "iVBORw==", "mimeType": "image/png", "_meta": {"m": 1}},
    {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
    {
        "type": "resource",
        "resource": {"uri": "test://r", "mimeType": "text/plain", "text": "r", "_meta": {}},
        "annotations": ANNOTATIONS,
    },
    {
        "type": "resource_link",
        "uri": "file:///a",
        "name": "a",
        "title": "A",
        "size": 3,
        "icons": ICON,
        "annotations": ANNOTATIONS,
    },
]
MODERN_RESULTS: Final[dict[str, dict[str, Any]]] = {
    "tools/list": {
        "resultType": "complete",
        "tools": [TOOL],
        "nextCursor": "c",
        "ttlMs": 5,
        "cacheScope": "public",
        "_meta": SERVER_INFO,
    },
    "tools/call": {
        "resultType": "complete",
        "content": BLOCKS,
        "structuredContent": {"n": 1},
        "isError": False,
        "_meta": {**SERVER_INFO, "kept": True},
    },
    "resources/list": {
        "resultType": "complete",
        "resources": [
            {
                "uri": "test://r",
                "name": "r",
                "title": "R",
                "size": 1,
                "icons": ICON,
                "annotations": ANNOTATIONS,
                "_meta": {},
            },
        ],
        "ttlMs": 0,
        "cacheScope": "private",
    },
    "resources/templates/list": {
        "resultType": "complete",
        "resourceTemplates": [{"uriTemplate": "test://{id}", "name": "t", "title": "T"}],
        "ttlMs": 0,
        "cacheScope": "private",
    },
    "resources/read": {
        "resultType": "complete",
        "contents": [{"uri": "test://r", "blob": "AA==", "mimeType": "x/y", "_meta": {}}],
        "ttlMs": 0,
        "cacheScope": "private",
    },
    "prompts/list": {
        "resultType": "complete",
        "prompts": [
            {
                "name": "p",
                "title": "P",
                "icons": ICON,
                "arguments": [{"name": "a", "title": "A", "required": True}],
            },
        ],
        "ttlMs": 0,
        "cacheScope": "private",
    },
    "prompts/get": {
        "resultType": "complete",
        "description": "d",
        "messages": [{"role": "user", "content": block} for block in BLOCKS],
    },
    "completion/complete": {
        "resultType": "complete",
        "completion": {"values": ["a"], "total": 1, "hasMore": False},
    },
}
DEFINITIONS: Final = {
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "completion/complete": "CompleteResult",
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("method", sorted(MODERN_RESULTS))
def test_results_keep_only_what_the_revision_knows(method: str, version: str) -> None:
    result = legacy.legacy_result(method, MODERN_RESULTS[method], version)
    strict_validate(result, DEFINITIONS[method], version)
    assert not {"resultType", "ttlMs", "cacheScope"} & set(result)
    assert "io.modelcontextprotocol/serverInfo" not in result.get("_meta", {})


def test_call_results_per_revision() -> None:
    old = legacy.legacy_result("tools/call", MODERN_RESULTS["tools/call"], "2025-03-26")
    assert "structuredContent" not in old
    assert old["content"][4] == {"type": "text", "text": "Resource link: A <file:///a>"}
    assert old["_meta"] == {"kept": True}
    mid = legacy.legacy_result("tools/call", MODERN_RESULTS["tools/call"], "2025-06-18")
    assert mid["structuredContent"] == {"n": 1}
    assert "icons" not in mid["content"][4]
    new = legacy.legacy_result("tools/call", MODERN_RESULTS["tools/call"], "2025-11-25")
    assert new["content"][4]["icons"] == ICON
    scalar = {"resultType": "complete", "content": [], "structuredContent": [1, 2]}
    assert "structuredContent" not in legacy.legacy_result("tools/call", scalar, "2025-11-25")


def test_tool_output_schemas_must_describe_objects_before_2026() -> None:
    tool = {**TOOL, "outputSchema": {"type": "array"}}
    listed = legacy.legacy_result("tools/list", {"tools": [tool]}, "2025-11-25")
    assert "outputSchema" not in listed["tools"][0]


@pytest.mark.parametrize("version", VERSIONS)
def test_notifications_are_translated(version: str) -> None:
    progress = {"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": 1, "progress": 1, "total": 2, "message": "m",
                           "_meta": {"io.modelcontextprotocol/subscriptionId": 3}}}  # fmt: skip
    log = {"jsonrpc": "2.0", "method": "notifications/message",
           "params": {"level": "info", "data": {"a": 1}, "logger": "l"}}  # fmt: skip
    changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}}
    updated = {"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "test://r", "_meta": {}}}  # fmt: skip
    for message in (progress, log, changed, updated):
        check_message(legacy.legacy_message(message, version), None, version)
    assert "_meta" not in legacy.legacy_message(progress, version)["params"]


def test_only_a_missing_resource_changes_its_error_code() -> None:
    missing = {"code": -32602, "message": "Resource not found: test://gone", "data": {"uri": "x"}}
    assert legacy.legacy_error("resources/read", missing) == {**missing, "code": -32002}
    other = {"code": -32602, "message": "Invalid params: uri"}
    assert legacy.legacy_error("resources/read", other) is other
    assert legacy.legacy_error("tools/call", missing) is missing

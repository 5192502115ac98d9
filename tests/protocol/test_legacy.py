"""protocol/legacy.py: the handshake, requests in and server requests, checked against each
2025 revision's own schema.

The strict check (`support.legacy_client.strict_validate`) closes every definition, so a
field the revision does not know fails; the modern inputs below carry every field 2026-07-28
allows, so a translation that forgets to drop one is caught.
"""

from __future__ import annotations

from typing import Any, Final

import pytest

from genmcp.errors import MCPError
from genmcp.protocol import legacy
from support.legacy_client import check_message, strict_validate

VERSIONS: Final = ("2025-11-25", "2025-06-18", "2025-03-26")
UI: Final = "io.modelcontextprotocol/ui"
ICON: Final = [{"src": "https://example.com/i.png", "mimeType": "image/png"}]


@pytest.mark.parametrize("version", VERSIONS)
def test_initialize_result(version: str) -> None:
    info = {"name": "s", "version": "1", "title": "S", "websiteUrl": "https://s", "icons": ICON}
    capabilities = {
        "tools": {"listChanged": True},
        "resources": {"subscribe": True},
        "extensions": {"io.modelcontextprotocol/tasks": {}},
    }
    result = legacy.initialize_result(version, info, capabilities, "be nice")
    strict_validate(result, "InitializeResult", version)
    assert result["protocolVersion"] == version
    assert result["capabilities"] == {
        "tools": {"listChanged": True},
        "resources": {"subscribe": True},
        "logging": {},
    }
    assert ("title" in result["serverInfo"]) is (version != "2025-03-26")
    assert ("icons" in result["serverInfo"]) is (version == "2025-11-25")


def test_initialize_params() -> None:
    version, caps, info = legacy.initialize_params(
        {"protocolVersion": "2025-06-18", "capabilities": {"roots": {}}, "clientInfo": {}}
    )
    assert (version, caps, info) == ("2025-06-18", {"roots": {}}, {})
    assert legacy.initialize_params({})[0] == "2025-11-25"
    for bad in ({"capabilities": []}, {"clientInfo": "me"}):
        with pytest.raises(MCPError) as failure:
            legacy.initialize_params(bad)
        assert failure.value.code == -32602


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("2025-11-25", {"roots": {}, "sampling": {"tools": {}}, "elicitation": {"url": {}}}),
        ("2025-06-18", {"roots": {}, "sampling": {"context": {}}, "elicitation": {}}),
        ("2025-03-26", {"roots": {}, "sampling": {"context": {}}}),
    ],
)
def test_client_capabilities_as_the_revision_defines_them(
    version: str, expected: dict[str, Any]
) -> None:
    declared = {
        "roots": {},
        "sampling": {"tools": {}},
        "elicitation": {"url": {}},
        "tasks": {"list": {}},
        "extensions": {"x": {}},
        "experimental": "not an object",
    }
    assert legacy.client_capabilities(declared, version) == expected


def test_modern_params_synthesize_meta_and_drop_modern_only_params() -> None:
    params = {
        "name": "t",
        "arguments": {"a": 1},
        "task": {"ttl": 5},
        "requestState": "forged",
        "inputResponses": {"k": {}},
        "_meta": {"progressToken": 7, "custom": "kept", "io.modelcontextprotocol/logLevel": "x"},
    }
    modern = legacy.modern_params(
        params,
        modern_version="2026-07-28",
        capabilities={"roots": {}},
        client_info={"name": "c", "version": "1"},
        level="info",
    )
    assert modern == {
        "name": "t",
        "arguments": {"a": 1},
        "_meta": {
            "progressToken": 7,
            "custom": "kept",
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
            "io.modelcontextprotocol/logLevel": "info",
        },
    }
    bare = legacy.modern_params({}, modern_version="2026-07-28", capabilities={},
                                client_info={}, level=None)  # fmt: skip
    assert set(bare["_meta"]) == {
        "io.modelcontextprotocol/protocolVersion",
        "io.modelcontextprotocol/clientCapabilities",
    }


def test_modernize_is_modern_params_in_place() -> None:
    """``modern_meta`` then ``modernize`` leave the params as ``modern_params`` returns them."""
    for sent in (
        {"name": "t", "arguments": {"a": 1}},
        {"name": "t", "task": {"ttl": 5}, "requestState": "x", "inputResponses": {},
         "_meta": {"progressToken": 7, "io.modelcontextprotocol/protocolVersion": "x"}},
    ):  # fmt: skip
        options = {"modern_version": "2026-07-28", "capabilities": {"roots": {}},
                   "client_info": {"name": "c"}, "level": "info"}  # fmt: skip
        expected = legacy.modern_params(sent, **options)
        params = dict(sent)
        legacy.modernize(params, legacy.modern_meta(params, **options))
        assert params == expected


NESTED: Final = {
    "form": {"method": "elicitation/create",
             "params": {"mode": "form", "message": "m", "requestedSchema": {
                 "type": "object", "properties": {"n": {"type": "string"}}}}},
    "sampling": {"method": "sampling/createMessage",
                 "params": {"messages": [{"role": "user",
                                          "content": {"type": "text", "text": "q"}}],
                            "maxTokens": 5, "temperature": 0.5}},
    "roots": {"method": "roots/list"},
}  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "version"),
    # 2025-03-26 has no elicitation: the capability check refuses it before any translation
    [(k, v) for k in sorted(NESTED) for v in VERSIONS if (k, v) != ("form", "2025-03-26")],
)
def test_nested_requests_become_server_requests_of_the_revision(kind: str, version: str) -> None:
    message = legacy.server_request("srv-1", NESTED[kind], version)
    check_message(message, None, version)
    assert message["id"] == "srv-1"
    if kind == "form":
        assert ("mode" in message["params"]) is (version == "2025-11-25")


def test_url_elicitation_gets_the_2025_11_25_elicitation_id() -> None:
    nested = {"method": "elicitation/create",
              "params": {"mode": "url", "message": "m", "url": "https://x"}}  # fmt: skip
    message = legacy.server_request("srv-2", nested, "2025-11-25")
    check_message(message, None, "2025-11-25")
    assert message["params"]["elicitationId"] == "srv-2"


def test_sampling_with_tools_keeps_them_only_in_2025_11_25() -> None:
    params = {"messages": [], "maxTokens": 5, "tools": [{"name": "t", "inputSchema": {}}]}
    nested = {"method": "sampling/createMessage", "params": params}
    assert "tools" in legacy.server_request("a", nested, "2025-11-25")["params"]
    assert "tools" not in legacy.server_request("a", nested, "2025-06-18")["params"]


def test_input_responses_drop_the_meta_2026_does_not_have() -> None:
    assert legacy.input_response("elicitation/create", {"action": "cancel", "_meta": {}}) == {
        "action": "cancel"
    }
    sample = {"role": "assistant", "content": {}, "model": "m", "_meta": {"k": 1}}
    assert legacy.input_response("sampling/createMessage", sample) == sample
    with pytest.raises(MCPError):
        legacy.input_response("roots/list", ["not", "an", "object"])


def test_log_levels_and_modern_only_methods() -> None:
    assert legacy.log_level({"level": "debug"}) == "debug"
    for bad in ({}, {"level": "loud"}, {"level": ["debug"]}):
        with pytest.raises(MCPError):
            legacy.log_level(bad)
    assert legacy.is_modern_only("server/discover") and legacy.is_modern_only("tasks/get")
    assert not legacy.is_modern_only("tools/call")


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26"])
def test_legacy_translation_keeps_the_extension_where_the_revision_carries_it(version: str) -> None:
    declared = {
        "extensions": {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}, "x.example/other": {}}
    }
    carried = version != "2025-03-26"
    kept = legacy.client_capabilities(declared, version)
    assert kept.get("extensions") == ({UI: declared["extensions"][UI]} if carried else None)
    served = legacy.server_capabilities({"tools": {}, **declared}, version)
    assert ("extensions" in served) is carried
    assert "x.example/other" not in served.get("extensions", {})
    bogus = legacy.client_capabilities({"extensions": ["not", "a", "map"]}, version)
    assert "extensions" not in bogus

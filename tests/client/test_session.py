"""client.session: a 2025 session's handshake, headers and request shapes (pure)."""

from __future__ import annotations

import pytest

from genmcp.client.session import LegacySession, initialize_request


def test_initialize_carries_only_what_a_2025_session_knows() -> None:
    capabilities = {"elicitation": {}, "roots": {}, "extensions": {"io.x/y": {}}}
    message = initialize_request("init-1", "2025-06-18", capabilities, {"name": "c"})

    assert message["method"] == "initialize" and message["id"] == "init-1"
    assert message["params"] == {
        "protocolVersion": "2025-06-18",
        "capabilities": {"elicitation": {}, "roots": {}},
        "clientInfo": {"name": "c"},
    }
    with pytest.raises(ValueError, match="2026-07-28"):
        initialize_request(1, "2026-07-28", {}, {})


def test_a_session_opens_only_on_a_2025_result() -> None:
    session = LegacySession.accept({"protocolVersion": "2025-11-25", "capabilities": {}}, "s-1")

    assert session is not None and session.version == "2025-11-25"
    assert session.headers()["mcp-session-id"] == "s-1"
    assert session.headers()["mcp-protocol-version"] == "2025-11-25"
    assert LegacySession.accept({"protocolVersion": "2026-07-28"}, "s") is None
    assert LegacySession.accept("junk", None) is None
    assert "mcp-session-id" not in LegacySession(None, "2025-03-26").headers()


def test_requests_keep_their_meta_and_add_the_progress_token() -> None:
    session = LegacySession("s", "2025-11-25")
    message = session.request("tools/call", {"name": "t", "_meta": {"k": 1}}, 7, "p-7")

    params = {"name": "t", "_meta": {"k": 1, "progressToken": "p-7"}}
    assert message == {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    assert "_meta" not in session.request("tools/list", None, 8)["params"]
    assert LegacySession.cancelled(7)["params"]["requestId"] == 7
    assert LegacySession.initialized() == {"jsonrpc": "2.0", "method": "notifications/initialized"}


def test_meta_is_merged_last_over_the_params_meta_and_the_progress_token() -> None:
    params = {"name": "t", "_meta": {"k": 1, "keep": True}}
    message = LegacySession.request("tools/call", params, 7, "p-7", {"k": 2, "progressToken": "x"})

    assert message["params"] == {"name": "t", "_meta": {"k": 2, "keep": True, "progressToken": "x"}}
    assert params == {"name": "t", "_meta": {"k": 1, "keep": True}}  # the caller's, untouched

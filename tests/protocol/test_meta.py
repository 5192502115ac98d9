"""protocol.meta: a 2026-07-28 request's ``_meta``: version, capabilities, level, progress."""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.errors import MCPError
from genmcp.protocol.meta import (
    LOG_LEVELS,
    absent_capabilities,
    check_meta,
    meta_of,
    request_version,
)
from genmcp.protocol.versions import META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROTOCOL_VERSION


def reason(call: Any) -> tuple[str, str]:
    with pytest.raises(MCPError) as caught:
        call()
    return caught.value.reason, caught.value.message


def test_meta_of() -> None:
    meta = {"k": 1}
    assert meta_of({"_meta": meta}) is meta
    assert reason(lambda: meta_of({})) == (
        "missing_meta",
        "Invalid params: params._meta is required",
    )
    assert reason(lambda: meta_of({"_meta": None}))[0] == "missing_meta"
    assert reason(lambda: meta_of({"_meta": []}))[0] == "invalid_meta"


def test_request_version() -> None:
    assert request_version({META_PROTOCOL_VERSION: "2026-07-28"}) == "2026-07-28"
    assert request_version({META_PROTOCOL_VERSION: "x"}, ("x", "y")) == "x"
    assert reason(lambda: request_version({}))[0] == "missing_meta"
    with pytest.raises(MCPError) as caught:
        request_version({META_PROTOCOL_VERSION: "2025-06-18"})
    assert caught.value.reason == "unsupported_version"
    assert caught.value.data == {"supported": ["2026-07-28"], "requested": "2025-06-18"}
    assert reason(lambda: request_version({META_PROTOCOL_VERSION: 2026}))[0] == (
        "unsupported_version"
    )


@pytest.mark.parametrize(
    "meta",
    [
        {META_CLIENT_CAPABILITIES: {}},
        {META_CLIENT_CAPABILITIES: {"sampling": {}}, META_LOG_LEVEL: "emergency"},
        {META_CLIENT_CAPABILITIES: {}, "progressToken": 0},
        {META_CLIENT_CAPABILITIES: {}, "progressToken": "p-1", "other": object()},
    ],
)
def test_good_meta_passes(meta: dict[str, Any]) -> None:
    check_meta(meta)


@pytest.mark.parametrize(
    ("meta", "expected"),
    [
        ({}, "missing_meta"),
        ({META_CLIENT_CAPABILITIES: []}, "invalid_meta"),
        ({META_CLIENT_CAPABILITIES: {}, META_LOG_LEVEL: "verbose"}, "bad_log_level"),
        ({META_CLIENT_CAPABILITIES: {}, META_LOG_LEVEL: 3}, "bad_log_level"),
        ({META_CLIENT_CAPABILITIES: {}, "progressToken": True}, "invalid_meta"),
        ({META_CLIENT_CAPABILITIES: {}, "progressToken": 1.5}, "invalid_meta"),
    ],
)
def test_bad_meta_is_refused_with_its_reason(meta: dict[str, Any], expected: str) -> None:
    assert reason(lambda: check_meta(meta))[0] == expected


def test_the_log_levels_in_rfc_5424_order() -> None:
    assert LOG_LEVELS[0] == "debug" and LOG_LEVELS[-1] == "emergency" and len(LOG_LEVELS) == 8


@pytest.mark.parametrize(
    ("required", "declared", "missing"),
    [
        ({"sampling": {}}, {"sampling": {}}, {}),
        ({"sampling": {}}, {}, {"sampling": {}}),
        ({"sampling": {}}, {"sampling": True}, {"sampling": {}}),  # declared means an object
        ({"elicitation": {"url": {}}}, {"elicitation": {"form": {}}}, {"elicitation": {"url": {}}}),
        ({"elicitation": {"url": {}}}, {"elicitation": {"url": {}, "form": {}}}, {}),
        ({"roots": {"listChanged": True}}, {"roots": {}}, {"roots": {"listChanged": True}}),
        ({"a": {}, "b": {}}, {"b": {}}, {"a": {}}),
    ],
)
def test_absent_capabilities(
    required: dict[str, Any], declared: dict[str, Any], missing: dict[str, Any]
) -> None:
    assert absent_capabilities(required, declared) == missing

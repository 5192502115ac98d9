"""protocol.versions: the supported revisions, their order, and which era a request is."""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.protocol.versions import (
    LATEST,
    LEGACY_VERSIONS,
    SUPPORTED_VERSIONS,
    Era,
    at_least,
    era_of,
    negotiate_legacy,
)


def test_the_revisions_newest_first() -> None:
    assert SUPPORTED_VERSIONS == ("2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26")
    assert SUPPORTED_VERSIONS[0] == LATEST
    assert list(SUPPORTED_VERSIONS) == sorted(SUPPORTED_VERSIONS, reverse=True)


@pytest.mark.parametrize(
    ("version", "minimum", "newer"),
    [
        ("2026-07-28", "2025-03-26", True),
        ("2025-06-18", "2025-06-18", True),
        ("2025-03-26", "2025-06-18", False),
        ("2025-11-25", "2026-07-28", False),
        ("2099-01-01", "2025-03-26", False),  # unknown counts as oldest, however it sorts
        (None, "2025-03-26", False),
    ],
)
def test_at_least(version: Any, minimum: str, newer: bool) -> None:
    assert at_least(version, minimum) is newer


def test_at_least_refuses_an_unknown_minimum() -> None:
    with pytest.raises(ValueError, match="unknown minimum protocol version '2024-11-05'"):
        at_least(LATEST, "2024-11-05")


@pytest.mark.parametrize(
    ("requested", "answered"),
    [
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2026-07-28", LEGACY_VERSIONS[0]),  # not a session revision
        ("2024-11-05", "2025-11-25"),
        (None, "2025-11-25"),
        (20250618, "2025-11-25"),
    ],
)
def test_negotiate_legacy(requested: Any, answered: str) -> None:
    assert negotiate_legacy(requested) == answered


@pytest.mark.parametrize(
    ("method", "params", "header", "session", "http", "batch", "era"),
    [
        ("initialize", {}, None, None, "POST", False, Era.LEGACY),
        ("initialize", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
         "2026-07-28", None, "POST", False, Era.MODERN),
        ("initialize", {}, "2026-07-28", None, "POST", False, Era.MODERN),
        ("tools/list", {}, "2025-06-18", None, "POST", False, Era.LEGACY),
        ("tools/list", {}, None, "sid", "POST", False, Era.LEGACY),
        ("tools/list", {}, None, None, "POST", False, Era.LEGACY),
        ("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "x"}},
         None, "sid", "POST", False, Era.MODERN),
        ("tools/list", {}, "v999", "sid", "POST", False, Era.MODERN),
        (None, None, "2026-07-28", None, "POST", False, Era.LEGACY),
        (None, None, None, None, "POST", True, Era.LEGACY),
        (None, None, None, "sid", "GET", False, Era.LEGACY),
        (None, None, "2026-07-28", "sid", "DELETE", False, Era.MODERN),
    ],
)  # fmt: skip
def test_era_rules(
    method: str | None,
    params: dict[str, Any] | None,
    header: str | None,
    session: str | None,
    http: str,
    batch: bool,
    era: Era,
) -> None:
    assert era_of(method, params, header, session, http_method=http, batch=batch) is era

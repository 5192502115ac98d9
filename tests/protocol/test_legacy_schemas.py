"""protocol/legacy_schemas.py: ``pick`` keeps the fields a 2025 revision's schema knows."""

from __future__ import annotations

import pytest

from genmcp.protocol.legacy_schemas import FIELDS, V2025_03_26, V2025_06_18, V2025_11_25, pick

TOOL = {"name": "t", "inputSchema": {}, "title": "T", "icons": [], "resultType": "x"}


@pytest.mark.parametrize(
    ("version", "kept"),
    [
        (V2025_03_26, {"name", "inputSchema"}),
        (V2025_06_18, {"name", "inputSchema", "title"}),
        (V2025_11_25, {"name", "inputSchema", "title", "icons"}),
    ],
)
def test_pick_keeps_what_the_revision_knows(version: str, kept: set[str]) -> None:
    picked = pick(TOOL, "Tool", version)
    assert set(picked) == kept
    assert picked is not TOOL and "resultType" in TOOL  # a copy: the input is left alone


def test_pick_copies_what_it_keeps_whole_and_passes_non_objects_through() -> None:
    known = {"name": "t", "inputSchema": {}}
    picked = pick(known, "Tool", V2025_03_26)
    assert picked == known and picked is not known
    for other in (None, "text", [1, 2]):
        assert pick(other, "Tool", V2025_11_25) is other


def test_fields_name_only_legacy_revisions() -> None:
    revisions = {V2025_03_26, V2025_06_18, V2025_11_25}
    assert all(set(fields.values()) <= revisions for fields in FIELDS.values())
    assert "resultType" not in FIELDS["Tool"] and "ttlMs" not in FIELDS["Resource"]

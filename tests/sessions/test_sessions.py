"""``legacy.sessions``: what a sealed ``Mcp-Session-Id`` payload says, once checked.

``session_of`` reads a payload (already verified: ``session_ids`` checks the seal) and gives
a ``Session`` only when every field has its type and the version is a legacy one; the
session's 2026-07-28 capabilities are derived once, and its TTL counts down to its expiry.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from genmcp.sessions.sessions import Session, session_of

PAYLOAD: dict[str, Any] = {
    "k": "key-1",
    "v": "2025-06-18",
    "c": {"elicitation": {}, "roots": {"listChanged": True}},
    "i": {"name": "client", "version": "1"},
    "t": 0,  # issued at: set to now by each test that needs it
    "e": "epoch-a",
}


def issued_now() -> dict[str, Any]:
    return {**PAYLOAD, "t": int(time.time())}


def test_a_payload_of_ours_is_a_session_expiring_max_age_after_it_was_issued() -> None:
    payload = issued_now()
    session = session_of(payload, max_age_s=600)
    assert isinstance(session, Session)
    assert (session.key, session.version, session.epoch) == ("key-1", "2025-06-18", "epoch-a")
    assert session.client_info == {"name": "client", "version": "1"}
    assert session.expires_at == payload["t"] + 600
    assert 590 < session.ttl_s <= 600
    assert "elicitation" in session.modern_capabilities


def test_an_expired_session_has_no_time_left() -> None:
    session = session_of({**PAYLOAD, "t": int(time.time()) - 1000}, max_age_s=600)
    assert session is not None and session.ttl_s == 0.0


def test_a_payload_without_an_epoch_belongs_to_the_empty_one() -> None:
    payload = {key: value for key, value in issued_now().items() if key != "e"}
    session = session_of(payload, max_age_s=60)
    assert session is not None and session.epoch == ""


@pytest.mark.parametrize(
    "payload",
    [
        None,
        ["k", "v"],
        {**PAYLOAD, "k": 7},
        {**PAYLOAD, "v": "2026-07-28"},
        {**PAYLOAD, "v": "1999-01-01"},
        {**PAYLOAD, "c": []},
        {**PAYLOAD, "i": "client"},
        {**PAYLOAD, "t": "yesterday"},
        {**PAYLOAD, "t": 1.5},
        {**PAYLOAD, "e": 3},
    ],
)
def test_anything_else_is_not_a_session(payload: Any) -> None:
    assert session_of(payload, max_age_s=60) is None

"""GrantStore: PKCE S256, single-use codes, rotated refresh tokens, replay revocation,
encrypted upstream tokens, bounded tables."""

from __future__ import annotations

import time

from genmcp.auth.front.grants import Authorization, GrantStore, pkce_challenge, pkce_matches

VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
ASKED = Authorization("c", "http://127.0.0.1/cb", pkce_challenge(VERIFIER), "s", ("a",), "r")


def test_pkce_is_rfc_7636_s256() -> None:
    assert pkce_challenge(VERIFIER) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"  # §4.6
    assert pkce_matches(VERIFIER, pkce_challenge(VERIFIER))
    assert not pkce_matches(VERIFIER[:-1] + "x", pkce_challenge(VERIFIER))
    assert not pkce_matches("short", pkce_challenge("short"))
    assert not pkce_matches("é" * 50, pkce_challenge("a" * 50))
    assert not pkce_matches("a" * 42 + "!", pkce_challenge("a" * 42 + "!"))


def test_pending_authorizations_resume_once() -> None:
    store = GrantStore()
    state = store.begin(ASKED, "upstream-verifier")
    pending = store.resume(state)
    assert pending is not None and pending.request == ASKED
    assert store.resume(state) is None and store.resume("forged") is None


def test_a_code_is_single_use_and_a_replay_revokes_its_family() -> None:
    store = GrantStore()
    code = store.issue_code(ASKED, "alice", {"access_token": "upstream-secret"})
    grant = store.redeem_code(code)
    assert grant is not None and grant.subject == "alice"
    assert b"upstream-secret" not in grant.upstream  # kept encrypted
    assert store.upstream_tokens(grant) == {"access_token": "upstream-secret"}
    refresh = store.issue_refresh(grant)
    assert store.redeem_code(code) is None  # replay
    assert store.revoked(grant.family) and store.rotate(refresh) is None


def test_refresh_tokens_rotate_and_a_replay_revokes() -> None:
    store = GrantStore()
    code = store.issue_code(ASKED, "alice", {})
    grant = store.redeem_code(code)
    assert grant is not None
    first = store.issue_refresh(grant)
    again = store.rotate(first)
    assert again is not None
    second = store.issue_refresh(again)
    assert store.rotate(first) is None  # replay of a rotated token
    assert store.rotate(second) is None  # the family is gone


def test_codes_expire_and_tables_are_bounded() -> None:
    store = GrantStore(code_ttl_s=0.05, max_entries=5)
    code = store.issue_code(ASKED, "alice", {})
    time.sleep(0.1)
    assert store.redeem_code(code) is None
    states = [store.begin(ASKED, "v") for _ in range(20)]
    assert store.resume(states[0]) is None and store.resume(states[-1]) is not None

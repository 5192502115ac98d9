"""GrantStore: PKCE S256, single-use codes, rotated refresh tokens, replay revocation,
encrypted upstream tokens, bounded tables."""

from __future__ import annotations

import asyncio

import pytest
from cryptography.fernet import Fernet

from genmcp.auth.front.grants import Authorization, GrantStore, pkce_challenge, pkce_matches
from genmcp.auth.front.limits import Throttled
from genmcp.storage.memory import MemoryRecordStore

VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
ASKED = Authorization("c", "http://127.0.0.1/cb", pkce_challenge(VERIFIER), "s", ("a",), "r")


KEY = Fernet.generate_key()


async def test_processes_sharing_a_store_and_a_key_share_grants() -> None:
    shared = MemoryRecordStore()
    one, two = GrantStore(store=shared, key=KEY), GrantStore(store=shared, key=KEY)
    code = await one.issue_code(ASKED, "alice", {"access_token": "up"})
    grant = await two.redeem_code(code)
    assert grant is not None and two.upstream_tokens(grant) == {"access_token": "up"}
    refresh = await two.issue_refresh(grant)
    assert await one.rotate(refresh) is not None
    assert await one.redeem_code(code) is None and await two.revoked(grant.family)


def test_pkce_is_rfc_7636_s256() -> None:
    assert pkce_challenge(VERIFIER) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"  # §4.6
    assert pkce_matches(VERIFIER, pkce_challenge(VERIFIER))
    assert not pkce_matches(VERIFIER[:-1] + "x", pkce_challenge(VERIFIER))
    assert not pkce_matches("short", pkce_challenge("short"))
    assert not pkce_matches("é" * 50, pkce_challenge("a" * 50))
    assert not pkce_matches("a" * 42 + "!", pkce_challenge("a" * 42 + "!"))


async def test_pending_authorizations_resume_once() -> None:
    store = GrantStore()
    state = await store.begin(ASKED, "upstream-verifier")
    pending = await store.resume(state)
    assert pending is not None and pending.request == ASKED
    assert await store.resume(state) is None and await store.resume("forged") is None


async def test_a_code_is_single_use_and_a_replay_revokes_its_family() -> None:
    store = GrantStore()
    code = await store.issue_code(ASKED, "alice", {"access_token": "upstream-secret"})
    grant = await store.redeem_code(code)
    assert grant is not None and grant.subject == "alice"
    assert b"upstream-secret" not in grant.upstream  # kept encrypted
    assert store.upstream_tokens(grant) == {"access_token": "upstream-secret"}
    refresh = await store.issue_refresh(grant)
    assert await store.redeem_code(code) is None  # replay
    assert await store.revoked(grant.family) and await store.rotate(refresh) is None
    again = await store.redeem_code(code)  # every replay is seen (the spent marker stays)
    assert again is None


async def test_refresh_tokens_rotate_and_a_replay_revokes() -> None:
    store = GrantStore()
    code = await store.issue_code(ASKED, "alice", {})
    grant = await store.redeem_code(code)
    assert grant is not None
    first = await store.issue_refresh(grant)
    again = await store.rotate(first)
    assert again is not None
    second = await store.issue_refresh(again)
    assert await store.refresh_grant(second) is not None
    assert await store.rotate(first) is None  # replay of a rotated token
    assert await store.rotate(second) is None  # the family is gone
    assert await store.rotate("forged") is None


async def test_codes_expire_and_tables_are_bounded() -> None:
    store = GrantStore(code_ttl_s=0.05, max_entries=5)
    assert GrantStore(key=KEY).store is not GrantStore(key=KEY).store
    code = await store.issue_code(ASKED, "alice", {})
    await asyncio.sleep(0.1)
    assert await store.redeem_code(code) is None
    states = [await store.begin(ASKED, "v") for _ in range(5)]
    with pytest.raises(Throttled) as full:  # a sixth is refused: none of the five is evicted
        await store.begin(ASKED, "v")
    assert full.value.status == 503 and full.value.retry_after >= 1
    assert all([await store.resume(state) is not None for state in states])

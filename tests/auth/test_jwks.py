"""auth.jwks: discovery of ``jwks_uri``, the key cache, and its rate-limited refresh.

Against real servers on loopback: the oidc-provider AS for discovery and the refetch limit,
and the `documents` server for the key sets and metadata the real AS never serves.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from genmcp.auth import InvalidToken, JWTVerifier
from genmcp.auth.jwks import JWKSCache, discover_jwks_uri
from support.authorization_server import AuthorizationServer
from support.documents import Documents
from support.oauth import RESOURCE


def public_jwk(kid: str | None, **extra: Any) -> dict[str, Any]:
    """A fresh ES256 public key as a JWK (``kid`` None: without one)."""
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    jwk: dict[str, Any] = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key))
    if kid is not None:
        jwk["kid"] = kid
    return {**jwk, "alg": "ES256", **extra}


def cache(documents: Documents, **options: Any) -> JWKSCache:
    return JWKSCache(documents.url, documents.url + "/jwks", **options)


async def test_unknown_kids_refetch_the_jwks_at_most_once_per_interval(
    authorization_server: AuthorizationServer,
) -> None:
    verifier = JWTVerifier(authorization_server.issuer)  # jwks_uri discovered
    good = authorization_server.token(RESOURCE)
    assert (await verifier.verify(good)).subject == "alice"
    assert verifier.jwks.fetches == 1
    claims = authorization_server.claims(RESOURCE)
    for index in range(25):
        forged = authorization_server.forge(claims, headers={"kid": f"made-up-{index}"})
        with pytest.raises(InvalidToken):
            await verifier.verify(forged)
    assert verifier.jwks.fetches == 1  # the last fetch was < 60 s ago
    verifier.jwks.min_refresh_s = 0
    with pytest.raises(InvalidToken):
        await verifier.verify(authorization_server.forge(claims, headers={"kid": "new"}))
    assert verifier.jwks.fetches == 2  # an unknown kid refetches once the interval passed


async def test_the_real_authorization_server_publishes_its_jwks_uri(
    authorization_server: AuthorizationServer,
) -> None:
    uri = await discover_jwks_uri(authorization_server.issuer)
    assert uri.startswith(authorization_server.issuer + "/")
    keys = JWKSCache(authorization_server.issuer)
    assert (await keys.key("ec-1")).algorithm_name == "ES256"
    assert (await keys.key("rs-1")).algorithm_name == "RS256"
    assert (keys.jwks_uri, keys.fetches) == (uri, 1)


async def test_discovery_tries_rfc_8414_then_openid_and_checks_the_issuer(
    documents: Documents,
) -> None:
    issuer = documents.url + "/tenant"
    documents.answers["/.well-known/oauth-authorization-server/tenant"] = (
        200,
        {"issuer": documents.url, "jwks_uri": "https://wrong.example/jwks"},  # another issuer
    )
    documents.answers["/tenant/.well-known/openid-configuration"] = (
        200,
        {"issuer": issuer, "jwks_uri": documents.url + "/keys"},
    )
    assert await discover_jwks_uri(issuer) == documents.url + "/keys"
    assert [seen.path for seen in documents.seen] == [
        "/.well-known/oauth-authorization-server/tenant",
        "/tenant/.well-known/openid-configuration",
    ]
    assert documents.seen[0].headers["accept"] == "application/json"


@pytest.mark.parametrize(
    "answer",
    [
        (500, {"issuer": "ISSUER", "jwks_uri": "https://x/jwks"}),
        (200, b"not json"),
        (200, ["a", "list"]),
        (200, {"issuer": "ISSUER"}),  # no jwks_uri
        (200, {"issuer": "ISSUER", "jwks_uri": 7}),
    ],
)
async def test_discovery_without_a_usable_document_is_a_lookup_error(
    documents: Documents, answer: tuple[int, Any]
) -> None:
    status, document = answer
    if isinstance(document, dict):
        document = {**document, "issuer": documents.url}
    documents.answers["/.well-known/oauth-authorization-server"] = (status, document)
    documents.answers["/.well-known/openid-configuration"] = (status, document)
    with pytest.raises(LookupError, match="no authorization server metadata"):
        await discover_jwks_uri(documents.url)
    assert len(documents.seen) == 2  # both places were asked


async def test_a_kid_less_token_takes_the_only_key(documents: Documents) -> None:
    documents.answers["/jwks"] = (200, {"keys": [public_jwk("only")]})
    keys = cache(documents)
    assert (await keys.key(None)).key_id == "only"
    documents.answers["/jwks"] = (200, {"keys": [public_jwk("one"), public_jwk("two")]})
    keys = cache(documents)
    with pytest.raises(InvalidToken, match="unknown key"):
        await keys.key(None)  # two keys: which one is not the token's to leave open
    assert (await keys.key("two")).key_id == "two"
    assert keys.fetches == 1


async def test_keys_not_for_signing_or_unusable_are_skipped(documents: Documents) -> None:
    entries = [
        public_jwk("enc", use="enc"),
        {"kid": "strange", "kty": "RSA", "alg": "XX256", "n": "AQAB", "e": "AQAB"},
        "not a key",
        public_jwk("sig", use="sig"),
        public_jwk("default"),  # no "use": a signing key
    ]
    documents.answers["/jwks"] = (200, {"keys": entries})
    keys = cache(documents, min_refresh_s=3600)
    assert (await keys.key("sig")).key_id == "sig"
    assert (await keys.key("default")).key_id == "default"
    for kid in ("enc", "strange"):
        with pytest.raises(InvalidToken):
            await keys.key(kid)
    assert keys.fetches == 1


@pytest.mark.parametrize(
    "unusable",
    [
        {"kid": "bad", "kty": "nope"},
        {"kid": "bad", "kty": "OKP", "crv": "X25519", "x": "AA"},
        {"kid": "bad", "kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"},
    ],
)
async def test_a_key_pyjwt_cannot_load_is_skipped(
    documents: Documents, unusable: dict[str, Any]
) -> None:
    documents.answers["/jwks"] = (200, {"keys": [unusable, public_jwk("good")]})
    assert (await cache(documents).key("good")).key_id == "good"


@pytest.mark.parametrize("document", [{"keys": "none"}, ["keys"], {}])
async def test_a_malformed_key_set_holds_no_key(documents: Documents, document: Any) -> None:
    documents.answers["/jwks"] = (200, document)
    with pytest.raises(InvalidToken):
        await cache(documents).key("any")


async def test_a_failed_fetch_is_rate_limited_and_logged(
    documents: Documents, caplog: pytest.LogCaptureFixture
) -> None:
    documents.answers["/jwks"] = (503, {"error": "down"})
    keys = cache(documents, min_refresh_s=3600, retry_s=3600)
    with caplog.at_level(logging.WARNING, logger="genmcp.auth"):
        for _ in range(3):
            with pytest.raises(InvalidToken):
                await keys.key("k")
    assert (len(documents.seen), keys.fetches) == (1, 0)  # one try, and it did not count
    assert "JWKS fetch for" in caplog.text and "HTTPStatusError" in caplog.text


async def test_a_stale_set_is_fetched_again(documents: Documents) -> None:
    documents.answers["/jwks"] = (200, {"keys": [public_jwk("old")]})
    keys = cache(documents, max_age_s=0)
    assert (await keys.key("old")).key_id == "old"
    documents.answers["/jwks"] = (200, {"keys": [public_jwk("new")]})
    assert (await keys.key("new")).key_id == "new"
    with pytest.raises(InvalidToken):
        await keys.key("old")  # the rotated-out key is gone
    assert keys.fetches == 3


async def test_a_fresh_set_answers_known_kids_without_fetching(documents: Documents) -> None:
    documents.answers["/jwks"] = (200, {"keys": [public_jwk("k")]})
    keys = cache(documents)
    for _ in range(5):
        await keys.key("k")
    assert (keys.fetches, len(documents.seen)) == (1, 1)


async def test_after_a_failed_fetch_the_next_try_comes_soon_and_backs_off(
    documents: Documents,
) -> None:
    import asyncio
    import time

    documents.answers["/jwks"] = (503, {"error": "starting"})
    # retry_s 0.5 (the default); the refresh interval an hour: a success at all is the retry
    # (pytest's timeout ends the loop below if only the interval would fetch again)
    keys = cache(documents, min_refresh_s=3600)
    started = time.monotonic()
    with pytest.raises(InvalidToken):
        await keys.key("k")
    documents.answers["/jwks"] = (200, {"keys": [public_jwk("k")]})
    while True:  # a client retrying every 20 ms
        try:
            await keys.key("k")
            break
        except InvalidToken:
            await asyncio.sleep(0.02)
    first_success = time.monotonic() - started
    print(f"time to first success after one 503: {first_success:.2f}s")
    assert first_success >= 0.4  # not before retry_s (0.5 s)
    assert len(documents.seen) == 2 and keys.fetches == 1 and keys.failures == 1
    for index in range(50):  # once keys are there, refreshes are rate-limited again
        with pytest.raises(InvalidToken):
            await keys.key(f"made-up-{index}")
    assert len(documents.seen) == 2


async def test_failures_back_off_doubling_up_to_the_refresh_interval(
    documents: Documents,
) -> None:
    import asyncio
    import itertools
    import time

    documents.answers["/jwks"] = (503, {"error": "down"})
    keys = cache(documents, retry_s=0.1, min_refresh_s=0.4)
    fetched: list[float] = []  # when each try went out (a busy machine only delays them)
    deadline = time.monotonic() + 30  # a hang guard: the loop ends on the sixth try
    while len(fetched) < 6 and time.monotonic() < deadline:
        before, at = len(documents.seen), time.monotonic()
        with pytest.raises(InvalidToken):
            await keys.key("k")
        if len(documents.seen) > before:
            fetched.append(at)
        await asyncio.sleep(0.01)
    # waits of at least 0.1, 0.2, 0.4, 0.4, 0.4: doubling, never past the refresh interval's
    gaps = [later - earlier for earlier, later in itertools.pairwise(fetched)]
    assert len(gaps) == 5, fetched
    least = (0.1, 0.2, 0.4, 0.4, 0.4)
    assert all(gap >= wait * 0.9 for gap, wait in zip(gaps, least, strict=True)), gaps

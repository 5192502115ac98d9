"""auth.jwt_verifier: which JWTs are accepted, and the AccessToken made of their claims.

Tokens are signed here with keys whose public halves the `documents` server publishes as the
issuer's JWKS (real HTTP on loopback), so each case changes exactly one property.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from genmcp.auth import InvalidToken, JWKSOptions, JWTVerifier
from support.documents import Documents

EC_KEY = ec.generate_private_key(ec.SECP256R1())
OTHER_KEY = ec.generate_private_key(ec.SECP256R1())
ISSUER = "https://issuer.example"


def jwk(key: ec.EllipticCurvePrivateKey, kid: str) -> dict[str, Any]:
    public: dict[str, Any] = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    return {**public, "kid": kid, "alg": "ES256", "use": "sig"}


@pytest.fixture
def verifier(documents: Documents) -> JWTVerifier:
    documents.answers["/jwks"] = (200, {"keys": [jwk(EC_KEY, "ec-1")]})
    return JWTVerifier(ISSUER, jwks_uri=documents.url + "/jwks", algorithms=["ES256"])


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    found = {"iss": ISSUER, "sub": "alice", "aud": "https://r", "scope": "a b", "exp": now + 60}
    found.update(overrides)
    return {name: value for name, value in found.items() if value is not None}


def sign(body: dict[str, Any], *, key: Any = EC_KEY, **headers: Any) -> str:
    return jwt.encode(body, key, algorithm="ES256", headers={"kid": "ec-1", **headers})


def unsigned(header: dict[str, Any], body: dict[str, Any]) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part(header)}.{part(body)}."


async def test_a_good_token_becomes_an_access_token(verifier: JWTVerifier) -> None:
    body = claims(aud=["https://r", 7, "https://s"], azp="app")
    token = await verifier.verify(sign(body))
    assert token.subject == "alice" and token.principal == "alice"
    assert token.scopes == {"a", "b"}
    assert token.audience == ("https://r", "https://s")  # the string values of aud
    assert (token.client_id, token.issuer) == ("app", ISSUER)  # azp when no client_id
    assert token.expires_at == float(body["exp"]) and token.claims == body


async def test_client_id_wins_over_azp_and_a_string_aud_is_one_value(
    verifier: JWTVerifier,
) -> None:
    token = await verifier.verify(sign(claims(client_id="c", azp="a", sub=None)))
    assert (token.client_id, token.subject, token.principal) == ("c", None, "c")
    assert token.audience == ("https://r",)


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        (lambda: "not-a-jwt", "not a well-formed JWT"),
        (lambda: unsigned({"alg": "none", "kid": "ec-1"}, claims()), "algorithm is not accepted"),
        (lambda: jwt.encode(claims(), "k" * 32, algorithm="HS256"), "algorithm is not accepted"),
        (lambda: sign(claims(exp=int(time.time()) - 120)), "has expired"),
        (lambda: sign(claims(iss="https://evil.example")), "issued by another issuer"),
        (lambda: sign(claims(exp=None)), "no 'exp' claim"),
        (lambda: sign(claims(iss=None)), "no 'iss' claim"),
        (lambda: sign(claims(nbf=int(time.time()) + 600)), "signature or claims are invalid"),
        (lambda: sign(claims(), key=OTHER_KEY), "signature or claims are invalid"),
        (lambda: sign(claims(), kid="unknown"), "unknown key"),
    ],
    ids=[
        "garbage", "alg-none", "alg-hs256", "expired", "issuer", "no-exp", "no-iss",
        "not-yet", "other-key", "unknown-kid",
    ],
)  # fmt: skip
async def test_a_bad_token_is_refused_with_its_reason(
    verifier: JWTVerifier, token: Any, reason: str
) -> None:
    with pytest.raises(InvalidToken, match=reason):
        await verifier.verify(token())


async def test_the_leeway_admits_a_token_just_expired(verifier: JWTVerifier) -> None:
    just = sign(claims(exp=int(time.time()) - 5))
    assert (await verifier.verify(just)).subject == "alice"  # 30 s of leeway by default
    verifier.leeway_s = 0
    with pytest.raises(InvalidToken, match="has expired"):
        await verifier.verify(just)


async def test_the_algorithm_must_match_the_key(documents: Documents) -> None:
    documents.answers["/jwks"] = (200, {"keys": [jwk(EC_KEY, "ec-1")]})
    verifier = JWTVerifier(ISSUER, jwks_uri=documents.url + "/jwks", algorithms=["RS256", "ES256"])
    header = {"alg": "RS256", "kid": "ec-1", "typ": "JWT"}  # an RS256 claim on an ES256 key
    with pytest.raises(InvalidToken, match="does not match its key"):
        await verifier.verify(unsigned(header, claims()) + "c2ln")


async def test_token_types_pin_the_typ_header(documents: Documents) -> None:
    documents.answers["/jwks"] = (200, {"keys": [jwk(EC_KEY, "ec-1")]})
    uri = documents.url + "/jwks"
    verifier = JWTVerifier(ISSUER, jwks_uri=uri, algorithms=["ES256"], token_types=["AT+JWT"])
    assert (await verifier.verify(sign(claims(), typ="at+jwt"))).subject == "alice"
    for typ in ("JWT", None):
        with pytest.raises(InvalidToken, match="not an access token"):
            await verifier.verify(sign(claims(), typ=typ))


def test_the_jwks_options_reach_the_key_cache_and_a_misspelt_one_is_refused() -> None:
    options = JWKSOptions(timeout_s=1.0, max_age_s=600.0, min_refresh_s=10.0, retry_s=0.25)
    cache = JWTVerifier(ISSUER, jwks_uri="x", jwks_options=options).jwks
    assert (cache.timeout_s, cache.max_age_s, cache.min_refresh_s, cache.retry_s) == (
        1.0, 600.0, 10.0, 0.25,
    )  # fmt: skip
    default = JWTVerifier(ISSUER, jwks_uri="x").jwks
    assert (default.timeout_s, default.max_age_s, default.min_refresh_s) == (5.0, 3600.0, 60.0)
    misspelt: dict[str, Any] = {"max_age": 600.0}
    with pytest.raises(TypeError, match=r"JWKSCache\(\) got an unexpected keyword .*'max_age'"):
        JWTVerifier(ISSUER, jwks_uri="x", jwks_options=misspelt)  # type: ignore[arg-type]


def test_none_is_never_an_accepted_algorithm() -> None:
    assert JWTVerifier(ISSUER, jwks_uri="x", algorithms=["ES256", "None"]).algorithms == ("ES256",)
    with pytest.raises(ValueError, match="never 'none'"):
        JWTVerifier(ISSUER, jwks_uri="x", algorithms=["none"])


@pytest.mark.parametrize("claim", ["exp", "nbf", "iat"])
async def test_a_date_claim_must_be_a_json_number(verifier: JWTVerifier, claim: str) -> None:
    now = int(time.time())
    good = {"exp": now + 60, "nbf": now - 5, "iat": now - 5}
    assert (await verifier.verify(sign(claims(**good)))).subject == "alice"
    with pytest.raises(InvalidToken, match=f"{claim!r} claim is not a number"):
        await verifier.verify(sign(claims(**{**good, claim: str(good[claim])})))
    with pytest.raises(InvalidToken):
        await verifier.verify(sign(claims(**{**good, claim: True})))

"""The upstream's ID token, checked before it names a user: signed by a key of the upstream's
JWKS (fetched from the real provider), its issuer, this client as audience, unexpired, this
authorization's nonce; the hostile ones are refused, each for its own reason."""

from __future__ import annotations

import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from genmcp.auth.front.id_token import InvalidIdToken, verify_id_token
from genmcp.auth.jwks import JWKSCache
from support.authorization_server import AuthorizationServer

from .conftest import UPSTREAM_CLIENT

CLIENT = UPSTREAM_CLIENT["id"]


def _claims(upstream: AuthorizationServer, **overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    claims = {"iss": upstream.issuer, "sub": "alice", "aud": CLIENT, "iat": now,
              "exp": now + 300, "nonce": "n-1", **overrides}  # fmt: skip
    return {k: v for k, v in claims.items() if v is not None}


async def _verify(upstream: AuthorizationServer, token: str, **options: Any) -> dict[str, Any]:
    keys = JWKSCache(upstream.issuer, upstream.issuer + "/jwks")
    arguments: dict[str, Any] = {"keys": keys, "issuer": upstream.issuer, "client_id": CLIENT,
                                 "nonce": "n-1", "algorithms": ("RS256", "ES256"), **options}
    return await verify_id_token(token, **arguments)


async def test_a_genuine_id_token_is_accepted(upstream: AuthorizationServer) -> None:
    claims = await _verify(upstream, upstream.forge(_claims(upstream)))
    assert claims["sub"] == "alice"
    several = _claims(upstream, aud=[CLIENT, "other"], azp=CLIENT)
    assert (await _verify(upstream, upstream.forge(several, alg="ES256")))["sub"] == "alice"


def _stranger() -> rsa.RSAPrivateKey:
    """A key the upstream never published."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _none(claims: dict[str, Any]) -> str:
    return jwt.encode(claims, None, algorithm="none", headers={"kid": "rs-1"})


@pytest.mark.parametrize(("case", "why"), [
    ("wrong_aud", "another client"), ("expired", "expired"), ("bad_nonce", "nonce"),
    ("no_nonce", "nonce"), ("alg_none", "algorithm 'none'"), ("hs256", "algorithm 'HS256'"),
    ("other_issuer", "another issuer"), ("other_key", "signature"), ("unknown_kid", "publish"),
    ("several_aud", "azp"), ("no_sub", "'sub'"), ("no_exp", "'exp'"), ("garbage", "well-formed"),
    ("alg_mismatch", "does not match its key"),
])  # fmt: skip
async def test_hostile_id_tokens_are_refused(
    upstream: AuthorizationServer, case: str, why: str
) -> None:
    tokens = {
        "wrong_aud": lambda: upstream.forge(_claims(upstream, aud="another-client")),
        "expired": lambda: upstream.forge(_claims(upstream, exp=int(time.time()) - 120)),
        "bad_nonce": lambda: upstream.forge(_claims(upstream, nonce="replayed")),
        "no_nonce": lambda: upstream.forge(_claims(upstream, nonce=None)),
        "alg_none": lambda: _none(_claims(upstream)),
        "hs256": lambda: jwt.encode(_claims(upstream), UPSTREAM_CLIENT["secret"] * 3,
                                    algorithm="HS256"),  # the client secret as a key
        "other_issuer": lambda: upstream.forge(_claims(upstream, iss="https://evil.example")),
        "other_key": lambda: jwt.encode(_claims(upstream), _stranger(), algorithm="RS256",
                                        headers={"kid": "rs-1"}),
        "unknown_kid": lambda: upstream.forge(_claims(upstream), headers={"kid": "made-up"}),
        "several_aud": lambda: upstream.forge(_claims(upstream, aud=[CLIENT, "other"])),
        "no_sub": lambda: upstream.forge(_claims(upstream, sub=None)),
        "no_exp": lambda: upstream.forge(_claims(upstream, exp=None)),
        "garbage": lambda: "not.a.jwt",
        "alg_mismatch": lambda: upstream.forge(_claims(upstream), alg="ES256",
                                               headers={"kid": "rs-1"}),
    }
    with pytest.raises(InvalidIdToken, match=why):
        await _verify(upstream, tokens[case]())


async def test_the_accepted_algorithms_are_asymmetric_only(upstream: AuthorizationServer) -> None:
    token = jwt.encode(_claims(upstream), UPSTREAM_CLIENT["secret"] * 3, algorithm="HS256")
    with pytest.raises(InvalidIdToken, match="not accepted"):  # even when asked for
        await _verify(upstream, token, algorithms=("HS256", "none"))

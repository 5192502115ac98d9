"""TokenIssuer: ES256 at+jwt tokens for one resource, checked by its own JWTVerifier."""

from __future__ import annotations

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from genmcp.auth.front.issuer import TokenIssuer, thumbprint
from genmcp.auth.tokens import InvalidToken


async def test_its_tokens_verify_with_the_key_in_hand() -> None:
    issuer = TokenIssuer("https://front.example", ttl_s=60)
    token = issuer.issue(subject="alice", client_id="c1", scope=["a", "b"],
                         resource="https://front.example/mcp")  # fmt: skip
    assert jwt.get_unverified_header(token)["typ"] == "at+jwt"
    verifier = issuer.verifier()
    verified = await verifier.verify(token)
    assert verified.subject == "alice" and verified.client_id == "c1"
    assert verified.scopes == {"a", "b"} and verified.audience == ("https://front.example/mcp",)
    assert verified.expires_at is not None
    assert verifier.jwt.jwks.fetches == 0  # never fetched


async def test_another_issuers_tokens_are_refused() -> None:
    ours, theirs = TokenIssuer("https://front.example"), TokenIssuer("https://front.example")
    token = theirs.issue(subject="eve", client_id="c", scope=[], resource="r")
    with pytest.raises(InvalidToken):
        await ours.verifier().verify(token)
    expired = TokenIssuer("https://front.example", ttl_s=-120)
    with pytest.raises(InvalidToken, match="expired"):
        await expired.verifier().verify(expired.issue(subject="a", client_id="c", scope=[],
                                                      resource="r"))  # fmt: skip


async def test_a_revoked_grant_is_refused() -> None:
    issuer = TokenIssuer("https://front.example")
    token = issuer.issue(subject="a", client_id="c", scope=[], resource="r", grant="g1")
    revoked: set[str] = set()

    async def is_revoked(grant: str) -> bool:
        return grant in revoked

    verifier = issuer.verifier(is_revoked)
    assert (await verifier.verify(token)).claims["gid"] == "g1"
    revoked.add("g1")
    with pytest.raises(InvalidToken, match="revoked"):
        await verifier.verify(token)


def test_the_key_id_is_the_rfc_7638_thumbprint() -> None:
    # RFC 7638 §3.1 gives an RSA example only: this one is checked by its definition
    key = ec.generate_private_key(ec.SECP256R1())
    one, two = TokenIssuer("https://f", key=key), TokenIssuer("https://f", key=key)
    assert one.kid == two.kid == thumbprint(one.jwk) and len(one.kid) == 43
    assert TokenIssuer("https://f").kid != one.kid

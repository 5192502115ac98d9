"""client.jws: what SigningKey signs verifies with PyJWT (an independent implementation), for
every algorithm; the thumbprint is RFC 7638's own example; keys load from PEM."""

from __future__ import annotations

import json

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from genmcp.client import SigningKey
from genmcp.client.jws import ALGORITHMS

# RFC 7638 §3.1: this RSA public key's thumbprint is NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs
RFC7638_N = (
    "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECP"
    "ebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY"
    "368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0f"
    "M4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
)


@pytest.mark.parametrize("alg", ALGORITHMS)
def test_every_algorithm_verifies_with_pyjwt(alg: str) -> None:
    key = SigningKey.generate(alg)
    token = key.sign({"sub": "x", "n": 1}, {"typ": "JWT"})
    public = jwt.PyJWK(key.public_jwk, alg)
    assert jwt.decode(token, public, algorithms=[alg]) == {"sub": "x", "n": 1}
    assert jwt.get_unverified_header(token) == {"alg": alg, "typ": "JWT"}
    assert "d" not in key.public_jwk and len(key.thumbprint()) == 43


def test_thumbprint_is_rfc7638s_example() -> None:
    key = SigningKey.generate("ES256")
    key.public_jwk = {"kty": "RSA", "n": RFC7638_N, "e": "AQAB"}  # the public half is all it reads
    assert key.thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"


def test_keys_load_from_pem_and_refuse_an_algorithm_they_cannot_sign() -> None:
    private = ec.generate_private_key(ec.SECP384R1())
    pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"pw"),
    )
    key = SigningKey(pem, password=b"pw", kid="k")
    assert key.alg == "ES384" and key.public_jwk["crv"] == "P-384"
    header = jwt.get_unverified_header(key.sign({}))
    assert header == {"alg": "ES384", "kid": "k"}
    with pytest.raises(ValueError, match="cannot sign 'ES256'"):
        SigningKey(private, alg="ES256")
    with pytest.raises(ValueError, match="cannot sign 'PS256'"):
        SigningKey(private, alg="PS256")
    assert json.loads(jwt.utils.base64url_decode(key.sign({"a": 1}).split(".")[1])) == {"a": 1}

"""``SigningKey``: a private key that signs compact JWS (RFC 7515) for the client's assertions.

What the client signs: ``private_key_jwt`` client assertions (RFC 7523 §2.2) and DPoP proofs
(RFC 9449). Both need only signing, the public key as a JWK (RFC 7517/7518) and its SHA-256
thumbprint (RFC 7638), so this is done with ``cryptography`` alone (PyJWT is the server's
``auth`` extra, not a client dependency). Algorithms: ES256/ES384/ES512 (EC P-256/384/521),
RS256 and PS256 (RSA), EdDSA (Ed25519). Imports nothing from genmcp.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

__all__ = ["ALGORITHMS", "PrivateKey", "SigningKey", "b64url"]

PrivateKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey
"""The key types a ``SigningKey`` holds."""

_CURVES: Final[dict[str, tuple[type[ec.EllipticCurve], str, int, hashes.HashAlgorithm]]] = {
    "ES256": (ec.SECP256R1, "P-256", 32, hashes.SHA256()),
    "ES384": (ec.SECP384R1, "P-384", 48, hashes.SHA384()),
    "ES512": (ec.SECP521R1, "P-521", 66, hashes.SHA512()),
}
ALGORITHMS: Final = (*_CURVES, "RS256", "PS256", "EdDSA")
"""The JWS algorithms a ``SigningKey`` signs with."""


def b64url(data: bytes) -> str:
    """Base64url without padding (RFC 7515 §2)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _uint(value: int, size: int) -> str:
    return b64url(value.to_bytes(size, "big"))


class SigningKey:
    """A private key and the JWS algorithm it signs with.

    Args:
        key: a ``cryptography`` private key, or one in PEM (PKCS #8 or the traditional forms).
        alg: the algorithm; when None, the key's usual one (ES256/384/512 by curve, RS256
            for RSA, EdDSA for Ed25519).
        kid: a key id to put in the JWS header (the ``kid`` the server knows the key by).
        password: the PEM's password, when it is encrypted.

    Raises ``ValueError`` when the key cannot sign with ``alg``.
    """

    def __init__(
        self,
        key: PrivateKey | str | bytes,
        *,
        alg: str | None = None,
        kid: str | None = None,
        password: bytes | None = None,
    ) -> None:
        if isinstance(key, str | bytes):
            pem = key.encode() if isinstance(key, str) else key
            loaded = serialization.load_pem_private_key(pem, password=password)
            if not isinstance(loaded, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey
                              | ed25519.Ed25519PrivateKey):  # fmt: skip
                raise ValueError(f"a {type(loaded).__name__} cannot sign JWS here: use EC, "
                                 "RSA or Ed25519")  # fmt: skip
            key = loaded
        self.key: PrivateKey = key
        self.alg = alg if alg is not None else _usual_alg(key)
        self.kid = kid
        _check(key, self.alg)
        self.public_jwk: dict[str, str] = _public_jwk(key)
        """The public key as a JWK (no private members), as a DPoP proof carries it."""

    @classmethod
    def generate(cls, alg: str = "ES256") -> SigningKey:
        """A new key for ``alg`` (RSA: 2048 bits)."""
        key: PrivateKey
        if alg in _CURVES:
            key = ec.generate_private_key(_CURVES[alg][0]())
        elif alg in ("RS256", "PS256"):
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        elif alg == "EdDSA":
            key = ed25519.Ed25519PrivateKey.generate()
        else:
            raise ValueError(f"alg {alg!r}: one of {', '.join(ALGORITHMS)}")
        return cls(key, alg=alg)

    def thumbprint(self) -> str:
        """The JWK SHA-256 thumbprint (RFC 7638), base64url: DPoP's ``jkt``."""
        required = {"EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n"),
                    "OKP": ("crv", "kty", "x")}[self.public_jwk["kty"]]  # fmt: skip
        members = {name: self.public_jwk[name] for name in required}
        canonical = json.dumps(members, separators=(",", ":"), sort_keys=True)
        return b64url(hashlib.sha256(canonical.encode()).digest())

    def sign(self, claims: Mapping[str, Any], header: Mapping[str, Any] | None = None) -> str:
        """A compact JWS of ``claims`` (JSON), with ``alg`` (and ``kid``) over ``header``."""
        protected: dict[str, Any] = {"alg": self.alg, **(header or {})}
        if self.kid is not None and "jwk" not in protected:
            protected.setdefault("kid", self.kid)
        parts = [b64url(json.dumps(part, separators=(",", ":")).encode())
                 for part in (protected, claims)]  # fmt: skip
        signing_input = ".".join(parts).encode("ascii")
        return ".".join([*parts, b64url(self._signature(signing_input))])

    def _signature(self, data: bytes) -> bytes:
        key, alg = self.key, self.alg
        if isinstance(key, ec.EllipticCurvePrivateKey):
            _, _, size, digest = _CURVES[alg]
            r, s = decode_dss_signature(key.sign(data, ec.ECDSA(digest)))
            return r.to_bytes(size, "big") + s.to_bytes(size, "big")
        if isinstance(key, rsa.RSAPrivateKey):
            if alg == "PS256":
                pss = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32)
                return key.sign(data, pss, hashes.SHA256())
            return key.sign(data, padding.PKCS1v15(), hashes.SHA256())
        return key.sign(data)


def _usual_alg(key: PrivateKey) -> str:
    if isinstance(key, ec.EllipticCurvePrivateKey):
        for alg, (curve, *_) in _CURVES.items():
            if isinstance(key.curve, curve):
                return alg
        raise ValueError(f"EC curve {key.curve.name}: P-256, P-384 or P-521")
    return "RS256" if isinstance(key, rsa.RSAPrivateKey) else "EdDSA"


def _check(key: PrivateKey, alg: str) -> None:
    if isinstance(key, ec.EllipticCurvePrivateKey):
        fits = alg in _CURVES and isinstance(key.curve, _CURVES[alg][0])
    elif isinstance(key, rsa.RSAPrivateKey):
        fits = alg in ("RS256", "PS256")
    else:
        fits = alg == "EdDSA"
    if not fits:
        raise ValueError(f"a {type(key).__name__} cannot sign {alg!r}")


def _public_jwk(key: PrivateKey) -> dict[str, str]:
    if isinstance(key, ec.EllipticCurvePrivateKey):
        numbers = key.public_key().public_numbers()
        name, size = next((n, s) for c, n, s, _ in _CURVES.values() if isinstance(key.curve, c))
        return {"kty": "EC", "crv": name, "x": _uint(numbers.x, size), "y": _uint(numbers.y, size)}
    if isinstance(key, rsa.RSAPrivateKey):
        public = key.public_key().public_numbers()
        return {"kty": "RSA", "n": _uint(public.n, (public.n.bit_length() + 7) // 8),
                "e": _uint(public.e, (public.e.bit_length() + 7) // 8)}  # fmt: skip
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return {"kty": "OKP", "crv": "Ed25519", "x": b64url(raw)}

"""The front's own access tokens: short-lived JWTs (RFC 9068) for one MCP resource.

:class:`TokenIssuer` holds an ES256 key made at start-up (or given), signs access tokens with
``typ: at+jwt``, ``iss`` = the front, ``aud`` = the MCP resource (RFC 8707), ``sub``,
``client_id``, ``scope``, ``exp``, ``jti``; publishes the public key as a JWKS; and builds the
``JWTVerifier`` that checks them with that key set in hand (no fetch), so a protected
``mcp_router`` accepts them with no more configuration.

Needs the ``auth`` extra (PyJWT with ``cryptography``).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterable
from typing import Any, Final

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

from genmcp.auth.jwt_verifier import JWTVerifier

__all__ = ["TokenIssuer"]

ALGORITHM: Final = "ES256"


class TokenIssuer:
    """Signs the front's access tokens.

    Args:
        issuer: the front's issuer URL (``iss``).
        ttl_s: access token lifetime (short: refresh tokens renew them).
        key: an EC P-256 private key; a new one when None (tokens die with the process).
    """

    def __init__(
        self, issuer: str, *, ttl_s: int = 300, key: ec.EllipticCurvePrivateKey | None = None
    ) -> None:
        self.issuer, self.ttl_s = issuer, ttl_s
        self._key = key if key is not None else ec.generate_private_key(ec.SECP256R1())
        public: dict[str, Any] = json.loads(
            jwt.algorithms.ECAlgorithm.to_jwk(self._key.public_key())
        )
        self.kid = secrets.token_urlsafe(8)
        self.jwk = {**public, "kid": self.kid, "alg": ALGORITHM, "use": "sig"}

    def jwks(self) -> dict[str, Any]:
        """The public key set (served at the front's ``jwks_uri``)."""
        return {"keys": [self.jwk]}

    def issue(
        self, *, subject: str, client_id: str, scope: Iterable[str], resource: str
    ) -> str:
        """A signed access token for ``resource``."""
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": subject,
            "aud": resource,
            "client_id": client_id,
            "scope": " ".join(scope),
            "iat": now,
            "exp": now + self.ttl_s,
            "jti": secrets.token_urlsafe(16),
        }
        headers = {"kid": self.kid, "typ": "at+jwt"}
        return jwt.encode(claims, self._key, algorithm=ALGORITHM, headers=headers)

    def verifier(self) -> JWTVerifier:
        """A verifier of exactly these tokens (this issuer, this key, ``at+jwt``)."""
        return JWTVerifier(
            self.issuer, algorithms=(ALGORITHM,), token_types=("at+jwt",), jwks=self.jwks()
        )

"""The front's own access tokens: short-lived JWTs (RFC 9068) for one MCP resource.

:class:`TokenIssuer` holds an ES256 key made at start-up (or given), signs access tokens with
``typ: at+jwt``, ``iss`` = the front, ``aud`` = the MCP resource (RFC 8707), ``sub``,
``client_id``, ``scope``, ``exp``, ``jti``, ``gid`` (the grant it belongs to) and, for a
DPoP-bound token, ``cnf.jkt`` (RFC 9449 §6: the proof key's thumbprint); publishes
the public key as a JWKS (its ``kid`` the RFC 7638 thumbprint, so processes sharing the key
verify each other's tokens); and builds the verifier that checks them: a ``JWTVerifier`` with
that key set in hand (no fetch), then "is its grant still live" (revocation), so a
protected ``mcp_router`` accepts them with no more configuration.

Needs the ``auth`` extra (PyJWT with ``cryptography``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Final

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

from genmcp.auth.jwt_verifier import JWTVerifier
from genmcp.auth.tokens import AccessToken, InvalidToken

__all__ = ["FrontVerifier", "TokenIssuer", "thumbprint"]

ALGORITHM: Final = "ES256"
Revoked = Callable[[str], Awaitable[bool]]
"""Whether a grant (a token's ``gid``) was revoked."""


def thumbprint(jwk: dict[str, Any]) -> str:
    """The RFC 7638 SHA-256 thumbprint of an EC public ``jwk`` (its ``kid``)."""
    members = {name: jwk[name] for name in ("crv", "kty", "x", "y")}
    digest = hashlib.sha256(json.dumps(members, separators=(",", ":")).encode()).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


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
        self.kid = thumbprint(public)  # the same key names itself alike in every process
        self.jwk = {**public, "kid": self.kid, "alg": ALGORITHM, "use": "sig"}

    def jwks(self) -> dict[str, Any]:
        """The public key set (served at the front's ``jwks_uri``)."""
        return {"keys": [self.jwk]}

    def issue(
        self,
        *,
        subject: str,
        client_id: str,
        scope: Iterable[str],
        resource: str,
        grant: str | None = None,
        jkt: str | None = None,
    ) -> str:
        """A signed access token for ``resource`` (bound to the DPoP key ``jkt``, if given)."""
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "sub": subject,
            "aud": resource,
            "client_id": client_id,
            "scope": " ".join(scope),
            "iat": now,
            "exp": now + self.ttl_s,
            "jti": secrets.token_urlsafe(16),
        }
        if grant is not None:
            claims["gid"] = grant
        if jkt is not None:
            claims["cnf"] = {"jkt": jkt}
        headers = {"kid": self.kid, "typ": "at+jwt"}
        return jwt.encode(claims, self._key, algorithm=ALGORITHM, headers=headers)

    def verifier(self, revoked: Revoked | None = None) -> FrontVerifier:
        """A verifier of exactly these tokens (this issuer, this key, ``at+jwt``); with
        ``revoked``, a token whose grant it names is refused."""
        jwt_verifier = JWTVerifier(
            self.issuer, algorithms=(ALGORITHM,), token_types=("at+jwt",), jwks=self.jwks()
        )
        return FrontVerifier(jwt_verifier, revoked)


class FrontVerifier:
    """The front's tokens: the JWT checks, then the grant's revocation (a ``TokenVerifier``)."""

    def __init__(self, jwt_verifier: JWTVerifier, revoked: Revoked | None) -> None:
        self.jwt, self.revoked = jwt_verifier, revoked

    async def aclose(self) -> None:
        """Release what its JWT verifier holds (nothing today)."""
        await self.jwt.aclose()

    async def verify(self, token: str) -> AccessToken:
        """The verified token; :class:`InvalidToken` when it is not genuine, or revoked."""
        verified = await self.jwt.verify(token)
        grant = verified.claims.get("gid")
        if self.revoked is not None and isinstance(grant, str) and await self.revoked(grant):
            raise InvalidToken("the token has been revoked")
        return verified

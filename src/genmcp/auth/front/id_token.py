"""The upstream's ID token, checked as OpenID Connect Core §3.1.3.7 says before it names a user.

:func:`verify_id_token` accepts an ID token only when its header names an accepted asymmetric
algorithm (never ``none``, never an HMAC one: the front would have to trust its client secret
as a key), its key is in the upstream's JWKS (``JWKSCache``: fetched, cached, refetched on an
unknown ``kid`` at most once a minute) with that algorithm, the signature holds, ``iss`` is the
upstream's issuer, ``aud`` contains the front's client id (and, with several audiences,
``azp`` is it), ``exp`` is in the future and ``iat`` present, ``sub`` a non-empty string, and
``nonce`` the one the front sent with this very authorization (a replayed ID token carries
another). Any failure is :class:`InvalidIdToken`, whose message names the check, never the token.

Needs the ``auth`` extra (PyJWT with ``cryptography``).
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from typing import Any, Final

import jwt

from genmcp.auth.jwks import JWKSCache
from genmcp.auth.jwt_verifier import decoded
from genmcp.auth.tokens import InvalidToken

__all__ = ["ASYMMETRIC", "InvalidIdToken", "verify_id_token"]

ASYMMETRIC: Final = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
"""The signing algorithms an ID token may use here (public-key ones only)."""


class InvalidIdToken(Exception):
    """The upstream's ID token is not acceptable; the message says which check failed."""


async def verify_id_token(
    token: str,
    *,
    keys: JWKSCache,
    issuer: str,
    client_id: str,
    nonce: str,
    algorithms: Iterable[str] = ("RS256",),
    leeway_s: float = 30.0,
) -> dict[str, Any]:
    """The claims of ``token`` when every check of the module holds; :class:`InvalidIdToken`."""
    alg, key = await _signing_key(token, keys, [a for a in algorithms if a in ASYMMETRIC])
    claims = decoded(
        token, key, alg, InvalidIdToken, "the ID token", issuer=issuer, audience=client_id,
        leeway=leeway_s, options={"require": ["iss", "aud", "exp", "iat", "sub"]},
    )  # fmt: skip
    audience = claims["aud"]
    if isinstance(audience, list) and len(audience) > 1 and claims.get("azp") != client_id:
        raise InvalidIdToken("the ID token has several audiences and azp is not this client")
    sent = claims.get("nonce")
    if not isinstance(sent, str) or not hmac.compare_digest(sent, nonce):
        raise InvalidIdToken("the ID token's nonce is not this authorization's")
    if not isinstance(claims["sub"], str) or not claims["sub"]:
        raise InvalidIdToken("the ID token's sub is not a string")
    return claims


async def _signing_key(token: str, keys: JWKSCache, accepted: list[str]) -> tuple[str, Any]:
    """The algorithm of ``token``'s header, if accepted, and the upstream's key for it."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise InvalidIdToken("the ID token is not a well-formed JWT") from None
    alg = header.get("alg")
    if not isinstance(alg, str) or alg not in accepted:
        raise InvalidIdToken(f"the ID token's algorithm {str(alg)[:20]!r} is not accepted")
    kid = header.get("kid")
    try:
        key = await keys.key(kid if isinstance(kid, str) else None)
    except InvalidToken:
        raise InvalidIdToken(
            "the ID token is signed with a key the upstream does not publish"
        ) from None
    if key.algorithm_name != alg:
        raise InvalidIdToken("the ID token's algorithm does not match its key")
    return alg, key.key

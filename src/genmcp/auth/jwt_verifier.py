"""JWT access tokens (RFC 9068) verified against the issuer's JWKS, with PyJWT.

:class:`JWTVerifier` accepts a token only when: its header ``alg`` is one of the configured
algorithms (``none`` never is) and agrees with the key's own ``alg``; the signature verifies
with the issuer's key for its ``kid``; ``exp`` is present and in the future, ``nbf``/``iat``
are not in the future (``leeway_s`` either way), each a JSON number (a numeric string is
refused, RFC 7519); ``iss`` equals the configured issuer; and,
when ``token_types`` is set, the ``typ`` header is one of them (``at+jwt``). The audience is
checked by the resource for every verifier (``OAuthResource``), not here. :func:`decoded` says
which claim check failed, for this verifier and for the front's ID tokens alike.

Needs the ``auth`` extra (PyJWT with ``cryptography``, httpx).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import jwt

from genmcp.auth.jwks import JWKSCache, JWKSOptions
from genmcp.auth.tokens import AccessToken, InvalidToken, scopes_of

__all__ = ["JWTVerifier", "decoded"]

_NUMERIC_DATES: Final = ("exp", "nbf", "iat")
"""NumericDate claims: JSON numbers only (RFC 7519 §2); PyJWT alone takes ``"123"`` too."""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class JWTVerifier:
    """Verifies JWT access tokens of one issuer.

    Args:
        issuer: the exact ``iss`` value (and where ``jwks_uri`` is discovered).
        jwks_uri: the key set URL; discovered from the issuer's metadata when None.
        algorithms: the accepted signing algorithms (pinned; the token cannot choose).
        leeway_s: clock skew allowed on ``exp``, ``nbf`` and ``iat``.
        token_types: accepted ``typ`` header values (e.g. ``("at+jwt",)``); None: any.
        jwks: the issuer's key set, when it lives in this process (never fetched then).
        jwks_options: how the key set is fetched and kept (:class:`JWKSOptions`:
            ``timeout_s``, ``max_age_s``, ``min_refresh_s``, ``retry_s``); None: the defaults.
    """

    def __init__(
        self,
        issuer: str,
        *,
        jwks_uri: str | None = None,
        algorithms: Iterable[str] = ("RS256",),
        leeway_s: float = 30.0,
        token_types: Iterable[str] | None = None,
        jwks: Mapping[str, Any] | None = None,
        jwks_options: JWKSOptions | None = None,
    ) -> None:
        self.issuer = issuer
        self.algorithms = tuple(alg for alg in algorithms if alg.lower() != "none")
        if not self.algorithms:
            raise ValueError("JWTVerifier needs at least one signing algorithm (never 'none')")
        self.leeway_s = leeway_s
        self.token_types = None if token_types is None else {t.lower() for t in token_types}
        self.jwks = JWKSCache(issuer, jwks_uri, keys=jwks, **(jwks_options or {}))

    async def aclose(self) -> None:
        """Nothing to release: each key-set fetch opens and closes its own client."""

    async def verify(self, token: str) -> AccessToken:
        """The verified token; :class:`InvalidToken` for anything not acceptable."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise InvalidToken("the token is not a well-formed JWT") from None
        alg = header.get("alg")
        if alg not in self.algorithms:
            raise InvalidToken("the token's signing algorithm is not accepted")
        typ = header.get("typ")
        if self.token_types is not None and str(typ).lower() not in self.token_types:
            raise InvalidToken("the token is not an access token (typ)")
        kid = header.get("kid")
        key = await self.jwks.key(kid if isinstance(kid, str) else None)
        if key.algorithm_name != alg:
            raise InvalidToken("the token's algorithm does not match its key")
        claims = self._decode(token, key.key, alg)
        for name in _NUMERIC_DATES:
            if name in claims and not _is_number(claims[name]):
                raise InvalidToken(f"the token's {name!r} claim is not a number (RFC 7519)")
        return _access_token(claims)

    def _decode(self, token: str, key: Any, alg: str) -> dict[str, Any]:
        return decoded(
            token, key, alg, InvalidToken, "the token", issuer=self.issuer, leeway=self.leeway_s,
            options={"require": ["exp", "iss"], "verify_aud": False},
        )  # fmt: skip


def decoded(
    token: str, key: Any, alg: str, error: type[Exception], noun: str, **checks: Any
) -> dict[str, Any]:
    """The claims of ``token``, signed with ``key`` by ``alg``, when ``jwt.decode`` passes
    ``checks`` (issuer, audience, leeway, options); else ``error`` with a message naming the
    failed check and ``noun`` (``"the token"``, ``"the ID token"``), never the token."""
    try:
        claims: dict[str, Any] = jwt.decode(token, key, algorithms=[alg], **checks)
    except jwt.ExpiredSignatureError:
        raise error(f"{noun} has expired") from None
    except jwt.InvalidIssuerError:
        raise error(f"{noun} was issued by another issuer") from None
    except jwt.InvalidAudienceError:
        raise error(f"{noun} was issued to another client (aud)") from None
    except jwt.MissingRequiredClaimError as exc:
        raise error(f"{noun} has no {exc.claim!r} claim") from None
    except jwt.PyJWTError:
        raise error(f"{noun}'s signature or claims are invalid") from None
    return claims


def _access_token(claims: dict[str, Any]) -> AccessToken:
    aud = claims.get("aud")
    values = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    audience = tuple(value for value in values if isinstance(value, str))
    sub, client_id = claims.get("sub"), claims.get("client_id", claims.get("azp"))
    return AccessToken(
        subject=sub if isinstance(sub, str) else None,
        scopes=scopes_of(claims),
        audience=audience,
        client_id=client_id if isinstance(client_id, str) else None,
        issuer=claims.get("iss"),
        expires_at=float(claims["exp"]),
        claims=claims,
    )

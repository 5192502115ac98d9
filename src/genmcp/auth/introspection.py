"""Opaque access tokens checked by RFC 7662 token introspection.

:class:`IntrospectionVerifier` POSTs the token to the authorization server's introspection
endpoint (client authentication with HTTP Basic, a timeout) and accepts it when the answer
says ``active: true``. Answers are cached under a SHA-256 digest of the token (never the
token itself), for at most ``cache_s`` and never past the token's ``exp``; inactive answers
are not cached. The audience comes from the answer's ``aud`` and is checked by the resource.

Needs httpx (the ``auth`` extra).
"""

from __future__ import annotations

import hashlib
import logging
import time
from typing import Any

import httpx

from genmcp.auth.tokens import AccessToken, InvalidToken, scopes_of

__all__ = ["IntrospectionVerifier"]

log = logging.getLogger("genmcp.auth")


class IntrospectionVerifier:
    """Verifies opaque tokens with the authorization server's introspection endpoint.

    Args:
        endpoint: the RFC 7662 introspection URL.
        client_id, client_secret: this resource server's credentials at the AS.
        issuer: when given, an answer's ``iss`` (if any) must equal it.
        timeout_s: timeout of each introspection request.
        cache_s: longest time an active answer is reused (0: never cached).
        max_cached: answers kept at most (the oldest are dropped).
    """

    def __init__(
        self,
        endpoint: str,
        *,
        client_id: str,
        client_secret: str,
        issuer: str | None = None,
        timeout_s: float = 5.0,
        cache_s: float = 60.0,
        max_cached: int = 10_000,
    ) -> None:
        self.endpoint, self.issuer = endpoint, issuer
        self._auth = httpx.BasicAuth(client_id, client_secret)
        self.timeout_s, self.cache_s, self.max_cached = timeout_s, cache_s, max_cached
        self.requests = 0
        self._cache: dict[bytes, tuple[float, AccessToken]] = {}

    async def verify(self, token: str) -> AccessToken:
        """The token as the AS describes it; :class:`InvalidToken` when it is not active."""
        key = hashlib.sha256(token.encode()).digest()
        now = time.time()
        cached = self._cache.get(key)
        if cached is not None and cached[0] > now:
            return cached[1]
        answer = await self._introspect(token)
        if answer.get("active") is not True:
            raise InvalidToken("the token is not active")
        access = _access_token(answer)
        if self.issuer is not None and access.issuer not in (None, self.issuer):
            raise InvalidToken("the token was issued by another issuer")
        if access.expires_at is not None and access.expires_at <= now:
            raise InvalidToken("the token has expired")
        until = now + self.cache_s
        if access.expires_at is not None:
            until = min(until, access.expires_at)
        if self.cache_s > 0:
            if len(self._cache) >= self.max_cached:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = (until, access)
        return access

    async def _introspect(self, token: str) -> dict[str, Any]:
        self.requests += 1
        data = {"token": token, "token_type_hint": "access_token"}
        try:
            async with httpx.AsyncClient(timeout=self.timeout_s) as client:
                response = await client.post(self.endpoint, data=data, auth=self._auth)
            response.raise_for_status()
            answer = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            log.warning("token introspection failed: %s", type(exc).__name__)
            raise InvalidToken("the token could not be introspected") from None
        if not isinstance(answer, dict):
            raise InvalidToken("the token could not be introspected")
        return answer


def _access_token(answer: dict[str, Any]) -> AccessToken:
    aud = answer.get("aud")
    values = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    sub, client_id, exp = answer.get("sub"), answer.get("client_id"), answer.get("exp")
    return AccessToken(
        subject=sub if isinstance(sub, str) else None,
        scopes=scopes_of(answer),
        audience=tuple(value for value in values if isinstance(value, str)),
        client_id=client_id if isinstance(client_id, str) else None,
        issuer=answer.get("iss") if isinstance(answer.get("iss"), str) else None,
        expires_at=float(exp) if isinstance(exp, int | float) else None,
        claims=answer,
    )

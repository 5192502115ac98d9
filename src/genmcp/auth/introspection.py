"""Opaque access tokens checked by RFC 7662 token introspection.

:class:`IntrospectionVerifier` POSTs the token to the authorization server's introspection
endpoint (client authentication with HTTP Basic, a timeout) and accepts it when the answer
says ``active: true``. It is built to stand a flood of made-up tokens without passing the
flood on to the authorization server:

- one pooled HTTP client per verifier (keep-alive connections, at most ``max_in_flight``),
  made on first use and closed by :meth:`IntrospectionVerifier.aclose` (the router's
  lifespan calls it at shutdown);
- single flight: concurrent checks of one token share one request;
- answers are cached under a SHA-256 digest of the token (never the token itself): an
  active one for at most ``cache_s`` and never past the token's ``exp``, an inactive one
  for ``negative_cache_s``; at most ``max_cached`` of each;
- at most ``max_rate`` introspection requests per second (a token bucket of ``max_rate``),
  and at most ``max_rate_per_source`` of them for one source (the client address the
  resource passes in ``tokens.SOURCE``; the ``max_sources`` most recent kept): past either,
  an unknown token is not checked now: :class:`~genmcp.auth.tokens.VerifierBusy`, which the
  resource answers 503 with ``Retry-After`` (never ``invalid_token``: the token may be
  good). One flooding address spends its own budget first, so the others keep
  ``max_rate - max_rate_per_source`` per second; the authorization server never sees more
  than ``max_rate`` per second from this process;
- ``token_shape`` (a regular expression the AS's tokens always match, optional): a token
  of another shape is refused (``invalid_token``) without a request and without spending
  any budget, so made-up tokens of the wrong shape cost nothing.

``exp`` must be a number (RFC 7662 §2.2): an answer whose ``exp`` is anything else is
refused. The audience comes from the answer's ``aud`` and is checked by the resource.

Needs httpx (the ``auth`` extra).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import time
from collections import OrderedDict
from typing import Any

import httpx

from genmcp.auth.tokens import SOURCE, AccessToken, InvalidToken, VerifierBusy, scopes_of
from genmcp.storage.buckets import MemoryBuckets

__all__ = ["IntrospectionVerifier"]

log = logging.getLogger("genmcp.auth")


class IntrospectionVerifier:
    """Verifies opaque tokens with the authorization server's introspection endpoint.

    Args:
        endpoint: the RFC 7662 introspection URL.
        client_id, client_secret: this resource server's credentials at the AS.
        issuer: when given, an answer's ``iss`` (if any) must equal it; the issuer of the
            callers' owner keys when the answer names none.
        timeout_s: timeout of each introspection request.
        cache_s: longest time an active answer is reused (0: never cached).
        negative_cache_s: how long an inactive answer is reused (0: never cached).
        max_cached: answers kept at most, active and inactive each (the oldest go first).
        max_rate: introspection requests per second at most (and as a burst); 0: no bound.
        max_rate_per_source: introspection requests per second (and burst) for one source
            (client address); 0: no per-source bound.
        max_sources: sources whose budgets are remembered (the least recent forgotten:
            a forgotten source starts with a full budget).
        token_shape: a regular expression every token of the AS matches (``fullmatch``);
            a token that does not is refused without a request. None: any token.
        max_in_flight: introspection requests (and pooled connections) at once.
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
        negative_cache_s: float = 5.0,
        max_cached: int = 10_000,
        max_rate: float = 50.0,
        max_rate_per_source: float = 10.0,
        max_sources: int = 10_000,
        token_shape: str | re.Pattern[str] | None = None,
        max_in_flight: int = 16,
    ) -> None:
        self.endpoint, self.issuer = endpoint, issuer
        self._auth = httpx.BasicAuth(client_id, client_secret)
        self.timeout_s, self.cache_s, self.max_cached = timeout_s, cache_s, max_cached
        self.negative_cache_s, self.max_rate = negative_cache_s, max_rate
        self.max_in_flight, self.max_rate_per_source = max_in_flight, max_rate_per_source
        self.shape = re.compile(token_shape) if isinstance(token_shape, str) else token_shape
        self.requests = 0
        self.refused = 0  # unknown tokens not checked (a rate bound), without a request
        self.misshapen = 0  # tokens refused for their shape, without a request
        self._sources = MemoryBuckets(max_keys=max_sources)
        self._cache: OrderedDict[bytes, tuple[float, AccessToken]] = OrderedDict()
        self._inactive: OrderedDict[bytes, tuple[float, str]] = OrderedDict()
        self._flights: dict[bytes, asyncio.Task[AccessToken]] = {}
        self._tokens, self._stamp = max_rate, time.monotonic()
        self._client: httpx.AsyncClient | None = None
        self._slots: asyncio.Semaphore | None = None

    async def verify(self, token: str) -> AccessToken:
        """The token as the AS describes it; :class:`InvalidToken` when it is not active."""
        if self.shape is not None and self.shape.fullmatch(token) is None:
            self.misshapen += 1  # not one the AS issues: no request, no budget spent
            raise InvalidToken("the token is not of the authorization server's shape")
        key = hashlib.sha256(token.encode()).digest()
        now = time.time()
        cached = self._cache.get(key)
        if cached is not None and cached[0] > now:
            return cached[1]
        refused = self._inactive.get(key)
        if refused is not None and refused[0] > now:
            raise InvalidToken(refused[1])
        flight = self._flights.get(key)
        if flight is None:  # the one request for this token; later callers wait for it
            self._budget(SOURCE.get())
            flight = asyncio.get_running_loop().create_task(self._check(key, token))
            self._flights[key] = flight
            flight.add_done_callback(lambda done: self._landed(key, done))
        return await asyncio.shield(flight)

    def _landed(self, key: bytes, flight: asyncio.Task[AccessToken]) -> None:
        self._flights.pop(key, None)
        if not flight.cancelled():
            flight.exception()  # retrieved, even when every caller had gone

    def _budget(self, source: str | None) -> None:
        """Spend one introspection of ``source``'s budget, then of the shared one; else
        :class:`VerifierBusy` (the source's first: a flooder never reaches the shared one)."""
        rate = self.max_rate_per_source
        if source is not None and rate > 0:
            taken = self._sources.take_now(source, rate, max(1, round(rate)))
            if not taken.ok:
                self.refused += 1
                raise VerifierBusy(
                    "too many tokens to introspect from this address right now: retry later",
                    taken.wait_s,
                )
        if not self._take():
            self.refused += 1
            raise VerifierBusy(
                "too many tokens to introspect right now (the authorization server is "
                "protected by a rate bound): retry later",
                1 / self.max_rate,
            )

    async def _check(self, key: bytes, token: str) -> AccessToken:
        answer = await self._introspect(token)
        now = time.time()
        try:
            access = self._accepted(answer, now)
        except InvalidToken as exc:
            if self.negative_cache_s > 0 and answer.get("active") is not True:
                _put(self._inactive, key, (now + self.negative_cache_s, str(exc)), self.max_cached)
            raise
        until = now + self.cache_s
        if access.expires_at is not None:
            until = min(until, access.expires_at)
        if self.cache_s > 0:
            _put(self._cache, key, (until, access), self.max_cached)
        return access

    def _accepted(self, answer: dict[str, Any], now: float) -> AccessToken:
        if answer.get("active") is not True:
            raise InvalidToken("the token is not active")
        exp = answer.get("exp")
        if exp is not None and (not isinstance(exp, int | float) or isinstance(exp, bool)):
            raise InvalidToken("the introspection answer's exp is not a number (RFC 7662)")
        access = _access_token(answer, self.issuer)
        if self.issuer is not None and answer.get("iss") not in (None, self.issuer):
            raise InvalidToken("the token was issued by another issuer")
        if access.expires_at is not None and access.expires_at <= now:
            raise InvalidToken("the token has expired")
        return access

    def _take(self) -> bool:
        """Take one request from the rate bound's bucket; False when it is empty."""
        if self.max_rate <= 0:
            return True
        now = time.monotonic()
        self._tokens = min(self.max_rate, self._tokens + (now - self._stamp) * self.max_rate)
        self._stamp = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    def _pool(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        if self._client is None or self._slots is None:
            limits = httpx.Limits(
                max_connections=self.max_in_flight, max_keepalive_connections=self.max_in_flight
            )
            self._client = httpx.AsyncClient(timeout=self.timeout_s, limits=limits)
            self._slots = asyncio.Semaphore(self.max_in_flight)
        return self._client, self._slots

    async def aclose(self) -> None:
        """Close the pooled HTTP client (made again if the verifier is used after)."""
        client, self._client, self._slots = self._client, None, None
        if client is not None:
            await client.aclose()

    async def _introspect(self, token: str) -> dict[str, Any]:
        client, slots = self._pool()
        data = {"token": token, "token_type_hint": "access_token"}
        async with slots:
            self.requests += 1
            try:
                response = await client.post(self.endpoint, data=data, auth=self._auth)
                response.raise_for_status()
                answer = response.json()
            except (httpx.HTTPError, ValueError) as exc:
                log.warning("token introspection failed: %s", type(exc).__name__)
                raise InvalidToken("the token could not be introspected") from None
        if not isinstance(answer, dict):
            raise InvalidToken("the token could not be introspected")
        return answer


def _put(cache: OrderedDict[bytes, Any], key: bytes, value: Any, limit: int) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > limit:
        cache.popitem(last=False)


def _access_token(answer: dict[str, Any], issuer: str | None) -> AccessToken:
    aud = answer.get("aud")
    values = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    sub, client_id, exp = answer.get("sub"), answer.get("client_id"), answer.get("exp")
    iss = answer.get("iss")
    return AccessToken(
        subject=sub if isinstance(sub, str) else None,
        scopes=scopes_of(answer),
        audience=tuple(value for value in values if isinstance(value, str)),
        client_id=client_id if isinstance(client_id, str) else None,
        issuer=iss if isinstance(iss, str) else issuer,
        expires_at=float(exp) if isinstance(exp, int | float) else None,
        claims=answer,
    )

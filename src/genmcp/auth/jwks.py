"""The issuer's signing keys: discovery, fetching with timeouts, caching, rate-limited refresh.

:class:`JWKSCache` answers "the key for this ``kid``". Keys are fetched from ``jwks_uri``
(configured, or discovered from the issuer's RFC 8414 / OpenID metadata, whose ``issuer``
must equal the configured one) with an ``httpx`` client and a timeout. The set is kept for
``max_age_s``; an unknown ``kid`` refetches at once, but at most once per
``min_refresh_s``, so a flood of tokens with made-up ``kid`` values costs one fetch a
minute, not one per request. Concurrent misses share one fetch. A fetch that *fails* is
retried sooner: after ``retry_s``, doubling at each failure up to ``min_refresh_s``, so a
503 at start-up refuses tokens for half a second, not a minute (failures are still rate
limited: never more than one try per backoff step). A key set given as ``keys`` (an issuer
in the same process, such as the authorization-server front) is never fetched.

Needs the ``auth`` extra (httpx, PyJWT).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any, Final, TypedDict, Unpack

import httpx
from jwt import PyJWK, PyJWTError

from genmcp.auth.tokens import InvalidToken
from genmcp.protocol.shapes import check_keywords

__all__ = ["JWKSCache", "JWKSOptions", "discover_jwks_uri"]

log = logging.getLogger("genmcp.auth")


async def _get_json(client: httpx.AsyncClient, url: str) -> Any:
    response = await client.get(url, headers={"accept": "application/json"})
    response.raise_for_status()
    return response.json()


def _metadata_urls(issuer: str) -> list[str]:
    base = issuer.rstrip("/")
    scheme, _, rest = base.partition("://")
    host, slash, path = rest.partition("/")
    inserted = f"{scheme}://{host}/.well-known/oauth-authorization-server{slash}{path}"
    return [inserted, f"{base}/.well-known/openid-configuration"]


async def discover_jwks_uri(issuer: str, *, timeout_s: float = 5.0) -> str:
    """``jwks_uri`` from the issuer's authorization server (or OpenID) metadata."""
    async with httpx.AsyncClient(timeout=timeout_s, follow_redirects=False) as client:
        for url in _metadata_urls(issuer):
            try:
                document = await _get_json(client, url)
            except (httpx.HTTPError, ValueError):
                continue
            if not isinstance(document, dict) or document.get("issuer") != issuer:
                continue
            jwks_uri = document.get("jwks_uri")
            if isinstance(jwks_uri, str):
                return jwks_uri
    raise LookupError(f"no authorization server metadata with a jwks_uri for issuer {issuer}")


class JWKSOptions(TypedDict, total=False):
    """How a key set is fetched and kept: the keywords :class:`JWKSCache` takes, and what
    ``JWTVerifier(jwks_options=...)`` passes on to its cache.

    Attributes:
        timeout_s: connect/read timeout of each fetch (default 5 s).
        max_age_s: how long a fetched set is used before it is fetched again (1 h).
        min_refresh_s: least time between two fetches caused by unknown ``kid`` values (60 s).
        retry_s: the first wait after a failed fetch, doubled per failure up to
            ``min_refresh_s`` (0.5 s).
    """

    timeout_s: float
    max_age_s: float
    min_refresh_s: float
    retry_s: float


_OPTIONS: Final = JWKSOptions.__optional_keys__


class JWKSCache:
    """Signing keys of one issuer, by ``kid``.

    Args:
        issuer: used to discover ``jwks_uri`` when it is not given.
        jwks_uri: where the key set lives (else discovered on first use).
        keys: a JWKS document to use as is (no discovery, no fetch), or None.
        **options: how the set is fetched and kept (:class:`JWKSOptions`).

    Raises:
        TypeError: a keyword :class:`JWKSOptions` does not declare.
    """

    def __init__(
        self,
        issuer: str,
        jwks_uri: str | None = None,
        *,
        keys: Mapping[str, Any] | None = None,
        **options: Unpack[JWKSOptions],
    ) -> None:
        check_keywords(options, _OPTIONS, "JWKSCache")
        self.issuer, self.jwks_uri = issuer, jwks_uri
        self.timeout_s = options.get("timeout_s", 5.0)
        self.max_age_s = options.get("max_age_s", 3600.0)
        self.min_refresh_s = options.get("min_refresh_s", 60.0)
        self.retry_s = options.get("retry_s", 0.5)
        self.fetches = 0
        self.failures = 0  # fetches that failed
        self._keys: dict[str | None, PyJWK] = {}
        self._fetched_at = float("-inf")  # the last successful fetch
        self._tried_at = float("-inf")  # the last try, good or bad
        self._wait = 0.0  # after a failure: how long until the next try
        self._lock = asyncio.Lock()
        if keys is not None:  # a local key set: never stale, never refetched
            self._keys, self._fetched_at = _parse_keys(keys), float("inf")

    async def key(self, kid: str | None) -> PyJWK:
        """The key for ``kid`` (None: the only key of the set); :class:`InvalidToken` if none."""
        now = time.monotonic()
        stale = now - self._fetched_at >= self.max_age_s
        missing = self._lookup(kid) is None
        due = stale or (missing and now - self._fetched_at >= self.min_refresh_s)
        if due and now - self._tried_at >= self._wait:
            await self._refresh(self._tried_at)
        found = self._lookup(kid)
        if found is None:
            raise InvalidToken("the token is signed with an unknown key")
        return found

    def _lookup(self, kid: str | None) -> PyJWK | None:
        if kid is None:
            return next(iter(self._keys.values())) if len(self._keys) == 1 else None
        return self._keys.get(kid)

    async def _refresh(self, seen: float) -> None:
        async with self._lock:
            if self._tried_at != seen:  # another request fetched while we waited
                return
            self._tried_at = time.monotonic()
            try:
                if self.jwks_uri is None:
                    self.jwks_uri = await discover_jwks_uri(self.issuer, timeout_s=self.timeout_s)
                async with httpx.AsyncClient(timeout=self.timeout_s) as client:
                    document = await _get_json(client, self.jwks_uri)
            except (httpx.HTTPError, ValueError, LookupError) as exc:
                log.warning("JWKS fetch for %s failed: %s", self.issuer, type(exc).__name__)
                self.failures += 1
                self._wait = min(max(self._wait * 2, self.retry_s), self.min_refresh_s)
                return
            self.fetches += 1
            self._keys = _parse_keys(document)
            self._fetched_at, self._wait = self._tried_at, 0.0


def _parse_keys(document: Any) -> dict[str | None, PyJWK]:
    keys: dict[str | None, PyJWK] = {}
    entries = document.get("keys") if isinstance(document, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
            continue
        try:
            keys[entry.get("kid")] = PyJWK(entry)
        except PyJWTError:  # PyJWKError, or InvalidKeyError (unknown kty, curve, bad point)
            continue  # a key we cannot use: skip it, keep the others
    return keys

"""The upstream OAuth / OpenID provider the front signs users in with.

:class:`Upstream` is configured by issuer URL, client id and secret; its metadata (RFC 8414,
else OpenID discovery: the three places the MCP authorization spec lists) is fetched on
first use, not at start-up, and its ``issuer`` must be the configured one. It builds the
upstream authorization URL (code flow, PKCE S256, our own ``state`` and, for OpenID, a
``nonce``), exchanges the code at the token endpoint (client secret, HTTP Basic), and names
the user: with ``openid`` among its scopes, by the ``sub`` of the ID token, which must be
there and pass :func:`id_token.verify_id_token` (signature by the upstream's JWKS, ``iss``,
``aud``, ``exp``, ``nonce``); else by the userinfo endpoint's ``sub``.
:meth:`Upstream.revoke` revokes the upstream's tokens at its RFC 7009 endpoint when it has
one (the front's logout). Every call has a timeout and never follows redirects.

Needs httpx (the ``auth`` extra).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import httpx

from genmcp.auth.front.id_token import ASYMMETRIC, InvalidIdToken, verify_id_token
from genmcp.auth.jwks import JWKSCache

__all__ = ["Upstream", "UpstreamError"]

log = logging.getLogger("genmcp.auth.front")


class UpstreamError(Exception):
    """The upstream provider could not be used; the message says why (never a token)."""


class Upstream:
    """One upstream provider.

    Args:
        issuer: its issuer URL (metadata discovered from it on first use).
        client_id, client_secret: the front's registration with it (confidential client).
        scopes: what the front asks upstream for (``openid``: the user is the verified ID
            token's ``sub``; without it, the userinfo endpoint's).
        timeout_s: connect/read timeout of each call.
        id_token_algorithms: the ID token algorithms accepted (default: the asymmetric ones
            of the upstream's ``id_token_signing_alg_values_supported``, else ``RS256``).
    """

    def __init__(
        self,
        issuer: str,
        client_id: str,
        client_secret: str,
        *,
        scopes: Iterable[str] = ("openid",),
        timeout_s: float = 10.0,
        id_token_algorithms: Iterable[str] | None = None,
    ) -> None:
        self.issuer, self.client_id, self.client_secret = issuer, client_id, client_secret
        self.scopes, self.timeout_s = tuple(scopes), timeout_s
        self.id_token_algorithms = None if id_token_algorithms is None else tuple(
            id_token_algorithms)  # fmt: skip
        self._metadata: dict[str, Any] | None = None
        self._keys: JWKSCache | None = None
        self._lock = asyncio.Lock()

    @property
    def openid(self) -> bool:
        """True when the user is named by a verified ID token (``openid`` is asked for)."""
        return "openid" in self.scopes

    async def metadata(self) -> dict[str, Any]:
        """The provider's metadata (fetched once, on first use)."""
        async with self._lock:
            if self._metadata is None:
                self._metadata = await self._discover()
            return self._metadata

    async def _discover(self) -> dict[str, Any]:
        parts = urlsplit(self.issuer)
        origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
        places = [f"{origin}/.well-known/oauth-authorization-server{path}",
                  f"{origin}/.well-known/openid-configuration{path}",
                  f"{origin}{path}/.well-known/openid-configuration"]  # fmt: skip
        places = list(dict.fromkeys(places))  # without a path, the last two are one
        async with self._http() as http:
            for place in places:
                try:
                    response = await http.get(place, headers={"accept": "application/json"})
                    document = response.json() if response.status_code == 200 else None
                except (httpx.HTTPError, ValueError):
                    continue
                if isinstance(document, dict) and document.get("issuer") == self.issuer:
                    if isinstance(document.get("authorization_endpoint"), str) and isinstance(
                        document.get("token_endpoint"), str
                    ):
                        return document
        raise UpstreamError(f"no usable authorization server metadata at {self.issuer}")

    async def authorization_url(
        self,
        *,
        state: str,
        redirect_uri: str,
        challenge: str,
        scopes: Iterable[str] = (),
        nonce: str | None = None,
    ) -> str:
        """Where to send the user's browser to sign in upstream (``scopes``: asked for on top
        of the configured ones; ``nonce``: the one the ID token must carry)."""
        endpoint = str((await self.metadata())["authorization_endpoint"])
        query = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": redirect_uri,
            "scope": " ".join(dict.fromkeys([*self.scopes, *scopes])),
            "state": state,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
        if nonce is not None:
            query["nonce"] = nonce
        return endpoint + ("&" if "?" in endpoint else "?") + urlencode(query)

    async def exchange(self, *, code: str, redirect_uri: str, verifier: str) -> dict[str, Any]:
        """The upstream's token response for ``code``."""
        metadata = await self.metadata()
        form = {"grant_type": "authorization_code", "code": code,
                "redirect_uri": redirect_uri, "code_verifier": verifier}  # fmt: skip
        form, auth, headers = self._token_request(form)
        async with self._http() as http:
            try:
                response = await http.post(str(metadata["token_endpoint"]), data=form,
                                           headers=headers,
                                           auth=auth or httpx.USE_CLIENT_DEFAULT)  # fmt: skip
                body = response.json()
            except (httpx.HTTPError, ValueError) as exc:
                failed = f"the upstream token endpoint failed: {type(exc).__name__}"
                raise UpstreamError(failed) from None
        if response.status_code != 200 or not isinstance(body, dict) or "access_token" not in body:
            error = body.get("error") if isinstance(body, dict) else None
            raise UpstreamError(f"the upstream refused the code (HTTP {response.status_code}, "
                                f"{error or 'no error code'})")  # fmt: skip
        return body

    def _token_request(
        self, form: dict[str, str]
    ) -> tuple[dict[str, str], httpx.Auth | None, dict[str, str]]:
        """The token request's form, its ``auth`` (HTTP Basic, RFC 6749 §2.3.1) and headers."""
        auth = httpx.BasicAuth(quote(self.client_id, safe=""), quote(self.client_secret, safe=""))
        return form, auth, {"accept": "application/json"}

    async def subject(self, tokens: dict[str, Any], nonce: str | None = None) -> str:
        """The signed-in user: the verified ID token's ``sub`` (OpenID: ``nonce`` is the one
        sent), else the userinfo endpoint's."""
        if self.openid:
            return await self._id_token_subject(tokens, nonce)
        return await self._userinfo_subject(tokens)

    async def _id_token_subject(self, tokens: dict[str, Any], nonce: str | None) -> str:
        token = tokens.get("id_token")
        if not isinstance(token, str) or nonce is None:
            raise UpstreamError("the upstream answered no ID token to an OpenID sign-in")
        metadata = await self.metadata()
        if self._keys is None:
            jwks_uri = metadata.get("jwks_uri")
            if not isinstance(jwks_uri, str):
                raise UpstreamError(f"{self.issuer} publishes no jwks_uri: cannot check ID tokens")
            self._keys = JWKSCache(self.issuer, jwks_uri, timeout_s=self.timeout_s)
        try:
            claims = await verify_id_token(token, keys=self._keys, issuer=self.issuer,
                                           client_id=self.client_id, nonce=nonce,
                                           algorithms=self._algorithms(metadata))  # fmt: skip
        except InvalidIdToken as exc:
            log.warning("upstream ID token refused: %s", exc)
            raise UpstreamError(f"the upstream's ID token is refused: {exc}") from None
        sub: str = claims["sub"]
        return sub

    def _algorithms(self, metadata: dict[str, Any]) -> tuple[str, ...]:
        if self.id_token_algorithms is not None:
            return self.id_token_algorithms
        offered = metadata.get("id_token_signing_alg_values_supported")
        if isinstance(offered, list):
            usable = tuple(alg for alg in offered if isinstance(alg, str) and alg in ASYMMETRIC)
            if usable:
                return usable
        return ("RS256",)

    async def revoke(self, tokens: dict[str, Any]) -> int:
        """Revoke the upstream's refresh and access tokens at its RFC 7009 endpoint, if it has
        one; how many it accepted (never raises: the front's own grant is ended anyway)."""
        try:
            endpoint = (await self.metadata()).get("revocation_endpoint")
        except UpstreamError:
            return 0
        if not isinstance(endpoint, str):
            return 0
        auth = (quote(self.client_id, safe=""), quote(self.client_secret, safe=""))
        revoked = 0
        async with self._http() as http:
            for hint in ("refresh_token", "access_token"):
                token = tokens.get(hint)
                if not isinstance(token, str):
                    continue
                form = {"token": token, "token_type_hint": hint}
                try:
                    response = await http.post(endpoint, data=form, auth=auth)
                except httpx.HTTPError as exc:
                    log.warning("upstream revocation failed: %s", type(exc).__name__)
                    continue
                revoked += response.status_code == 200
        return revoked

    async def _userinfo_subject(self, tokens: dict[str, Any]) -> str:
        endpoint = (await self.metadata()).get("userinfo_endpoint")
        if not isinstance(endpoint, str):
            raise UpstreamError(f"{self.issuer} has no userinfo endpoint: cannot name the user")
        headers = {"authorization": f"Bearer {tokens['access_token']}",
                   "accept": "application/json"}  # fmt: skip
        async with self._http() as http:
            try:
                response = await http.get(endpoint, headers=headers)
                body = response.json()
            except (httpx.HTTPError, ValueError) as exc:
                failed = f"the upstream userinfo endpoint failed: {type(exc).__name__}"
                raise UpstreamError(failed) from None
        sub = body.get("sub") if isinstance(body, dict) and response.status_code == 200 else None
        if not isinstance(sub, str) or not sub:
            raise UpstreamError(f"the upstream userinfo answered {response.status_code}, no sub")
        return sub

    def _http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=self.timeout_s, follow_redirects=False, trust_env=False)

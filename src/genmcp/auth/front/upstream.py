"""The upstream OAuth / OpenID provider the front signs users in with.

:class:`Upstream` is configured by issuer URL, client id and secret; its metadata (RFC 8414,
else OpenID discovery) is fetched on first use, not at start-up, and its ``issuer`` must be
the configured one. It builds the upstream authorization URL (code flow, PKCE S256, our own
``state``), exchanges the code at the token endpoint (client secret, HTTP Basic), and finds
the user's ``sub`` from the userinfo endpoint. Every call has a timeout and never follows
redirects.

Needs httpx (the ``auth`` extra).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import httpx

__all__ = ["Upstream", "UpstreamError"]


class UpstreamError(Exception):
    """The upstream provider could not be used; the message says why (never a token)."""


class Upstream:
    """One upstream provider.

    Args:
        issuer: its issuer URL (metadata discovered from it on first use).
        client_id, client_secret: the front's registration with it (confidential client).
        scopes: what the front asks upstream for (``openid`` gives the userinfo ``sub``).
        timeout_s: connect/read timeout of each call.
    """

    def __init__(
        self,
        issuer: str,
        client_id: str,
        client_secret: str,
        *,
        scopes: Iterable[str] = ("openid",),
        timeout_s: float = 10.0,
    ) -> None:
        self.issuer, self.client_id, self.client_secret = issuer, client_id, client_secret
        self.scopes, self.timeout_s = tuple(scopes), timeout_s
        self._metadata: dict[str, Any] | None = None
        self._lock = asyncio.Lock()

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
                  f"{origin}{path}/.well-known/openid-configuration"]  # fmt: skip
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
        self, *, state: str, redirect_uri: str, challenge: str, scopes: Iterable[str] = ()
    ) -> str:
        """Where to send the user's browser to sign in upstream (``scopes``: asked for on top
        of the configured ones)."""
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
        return endpoint + ("&" if "?" in endpoint else "?") + urlencode(query)

    async def exchange(self, *, code: str, redirect_uri: str, verifier: str) -> dict[str, Any]:
        """The upstream's token response for ``code``."""
        metadata = await self.metadata()
        form = {"grant_type": "authorization_code", "code": code,
                "redirect_uri": redirect_uri, "code_verifier": verifier}  # fmt: skip
        auth = (quote(self.client_id, safe=""), quote(self.client_secret, safe=""))
        async with self._http() as http:
            try:
                response = await http.post(str(metadata["token_endpoint"]), data=form, auth=auth)
                body = response.json()
            except (httpx.HTTPError, ValueError) as exc:
                failed = f"the upstream token endpoint failed: {type(exc).__name__}"
                raise UpstreamError(failed) from None
        if response.status_code != 200 or not isinstance(body, dict) or "access_token" not in body:
            error = body.get("error") if isinstance(body, dict) else None
            raise UpstreamError(f"the upstream refused the code (HTTP {response.status_code}, "
                                f"{error or 'no error code'})")  # fmt: skip
        return body

    async def subject(self, tokens: dict[str, Any]) -> str:
        """The signed-in user's ``sub``, from the userinfo endpoint."""
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

"""The GitHub preset: GitHub is OAuth 2.0 without OpenID (no discovery, no ID token, no
userinfo endpoint), so :class:`GitHub` knows its endpoints instead of discovering them.

From GitHub's documentation of OAuth apps ("Authorizing OAuth apps", REST "Users" and
"OAuth authorizations"): the browser goes to ``<web>/login/oauth/authorize`` (PKCE S256 is
accepted); the code is exchanged at ``<web>/login/oauth/access_token`` with ``client_id`` and
``client_secret`` in the form and ``Accept: application/json`` (an unusable code is an HTTP
200 whose body names an ``error``); the granted ``scope`` comes comma-separated; the user is
``GET <api>/user`` with the token, and is named by its numeric ``id`` (a ``login`` can be
renamed, and then taken by someone else); a token is revoked by ``DELETE
<api>/applications/<client_id>/token`` with the app's credentials (HTTP Basic). ``web`` and
``api`` default to github.com; give a GitHub Enterprise Server's ``https://HOST`` and
``https://HOST/api/v3``.

Needs httpx (the ``auth`` extra).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import quote

import httpx

from genmcp.auth.front.upstream import Upstream, UpstreamError

__all__ = ["GitHub"]

log = logging.getLogger("genmcp.auth.front")

API_VERSION: Final = "2022-11-28"
"""The REST API version asked for (``X-GitHub-Api-Version``)."""


class GitHub(Upstream):
    """GitHub (or GitHub Enterprise Server) as the upstream: an OAuth app's id and secret.

    Args:
        client_id, client_secret: the OAuth app's (its callback URL: the front's
            ``/oauth/callback``).
        scopes: asked for at every sign-in (``read:user`` reads the profile; none is needed
            for the public one).
        web, api: GitHub's web and REST API origins.
        timeout_s: connect/read timeout of each call.
    """

    def __init__(
        self,
        client_id: str,
        client_secret: str,
        *,
        scopes: Iterable[str] = ("read:user",),
        web: str = "https://github.com",
        api: str = "https://api.github.com",
        timeout_s: float = 10.0,
    ) -> None:
        super().__init__(web.rstrip("/"), client_id, client_secret, scopes=scopes,
                         timeout_s=timeout_s)  # fmt: skip
        self.api = api.rstrip("/")
        self._metadata = {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/login/oauth/authorize",
            "token_endpoint": f"{self.issuer}/login/oauth/access_token",
            "userinfo_endpoint": f"{self.api}/user",
        }

    def _token_request(
        self, form: dict[str, str]
    ) -> tuple[dict[str, str], httpx.Auth | None, dict[str, str]]:
        credentials = {"client_id": self.client_id, "client_secret": self.client_secret}
        return {**form, **credentials}, None, {"accept": "application/json"}  # in the form

    async def exchange(self, *, code: str, redirect_uri: str, verifier: str) -> dict[str, Any]:
        """GitHub's token response, its ``scope`` made space-separated (RFC 6749 §3.3)."""
        tokens = await super().exchange(code=code, redirect_uri=redirect_uri, verifier=verifier)
        if isinstance(tokens.get("scope"), str):
            tokens["scope"] = " ".join(s for s in tokens["scope"].replace(",", " ").split())
        return tokens

    async def subject(self, tokens: dict[str, Any], nonce: str | None = None) -> str:
        """The GitHub user's numeric ``id``, from ``GET /user``."""
        headers = {"authorization": f"Bearer {tokens['access_token']}",
                   "accept": "application/vnd.github+json",
                   "x-github-api-version": API_VERSION}  # fmt: skip
        async with self._http() as http:
            try:
                response = await http.get(f"{self.api}/user", headers=headers)
                body = response.json()
            except (httpx.HTTPError, ValueError) as exc:
                raise UpstreamError(f"GitHub's user API failed: {type(exc).__name__}") from None
        user = body.get("id") if isinstance(body, dict) and response.status_code == 200 else None
        if not isinstance(user, int) or isinstance(user, bool):
            raise UpstreamError(f"GitHub's user API answered {response.status_code}, no user id")
        return str(user)

    async def revoke(self, tokens: dict[str, Any]) -> int:
        """Revoke the access token (``DELETE /applications/{client_id}/token``)."""
        token = tokens.get("access_token")
        if not isinstance(token, str):
            return 0
        url = f"{self.api}/applications/{quote(self.client_id, safe='')}/token"
        headers = {"accept": "application/vnd.github+json", "x-github-api-version": API_VERSION}
        async with self._http() as http:
            try:
                response = await http.request("DELETE", url, json={"access_token": token},
                                              headers=headers,
                                              auth=(self.client_id, self.client_secret))
            except httpx.HTTPError as exc:
                log.warning("GitHub token revocation failed: %s", type(exc).__name__)
                return 0
        return int(response.status_code == 204)

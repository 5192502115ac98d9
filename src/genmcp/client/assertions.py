"""JWT assertions for ``OAuth``: a client key that proves who the client is, and grants made of
an assertion from somewhere else.

* ``PrivateKeyJWT`` (``OAuth(client_key=...)``): client authentication by a JWT signed with
  the client's private key (RFC 7523 §2.2, ``private_key_jwt``), instead of a shared secret;
  the authorization server holds only the public key.
* ``JWTBearer`` (``OAuth(grant=JWTBearer(...))``): the JWT bearer grant (RFC 7523 §2.1) for
  workload identity federation (SEP-1933): a token the platform gives the workload (a
  Kubernetes service account token, a cloud or CI identity token) traded for an access token.
* ``IdentityAssertion`` (``OAuth(grant=IdentityAssertion(...))``): enterprise-managed
  authorization (SEP-990): the user's ID token from the enterprise identity provider is
  exchanged there (RFC 8693) for an Identity Assertion JWT Authorization Grant (ID-JAG) for
  the MCP server's authorization server, which takes it as a JWT bearer grant.

Each grant gives the token request's form (``await grant.form(...)``); ``OAuth`` adds the
client authentication, ``resource`` and DPoP. Imports ``client.jws`` and ``client.errors``.
"""

from __future__ import annotations

import base64
import inspect
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol
from urllib.parse import quote

import httpx

from genmcp.client.errors import ClientError
from genmcp.client.jws import PrivateKey, SigningKey

__all__ = [
    "ASSERTION_TYPE",
    "JWT_BEARER",
    "AssertionGrant",
    "IdentityAssertion",
    "JWTBearer",
    "PrivateKeyJWT",
    "json_object",
]

JWT_BEARER: Final = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ASSERTION_TYPE: Final = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
TOKEN_EXCHANGE: Final = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN: Final = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG: Final = "urn:ietf:params:oauth:token-type:id-jag"

Source = str | Callable[[], str | Awaitable[str]]
"""A token, or what gives one when asked (sync or async): rotated tokens are read afresh."""


async def _read(source: Source) -> str:
    if isinstance(source, str):
        return source
    value = source()
    if inspect.isawaitable(value):
        value = await value
    if not isinstance(value, str) or not value:
        raise ClientError("the assertion source gave no token")
    return value


class PrivateKeyJWT:
    """``private_key_jwt`` client authentication (RFC 7523 §2.2).

    Args:
        key: the client's private key (PEM, a ``cryptography`` key or a ``SigningKey``).
        alg: its JWS algorithm (by default the key's usual one: ES256 for P-256, RS256...).
        kid: the key id the authorization server knows the key by.
        lifetime_s: how long an assertion is valid (each token request signs a new one).
        audience: the ``aud`` claim; by default the authorization server's issuer (what
            RFC 7523bis and SEP-1046 ask; some servers also take their token endpoint URL).
    """

    def __init__(
        self,
        key: SigningKey | PrivateKey | str | bytes,
        *,
        alg: str | None = None,
        kid: str | None = None,
        lifetime_s: int = 60,
        audience: str | None = None,
    ) -> None:
        if isinstance(key, SigningKey):
            key = SigningKey(key.key, alg=alg or key.alg, kid=kid or key.kid)
        self.key = key if isinstance(key, SigningKey) else SigningKey(key, alg=alg, kid=kid)
        self.lifetime_s, self.audience = lifetime_s, audience

    def assertion(self, client_id: str, issuer: str) -> str:
        """A new signed assertion for ``client_id`` at the authorization server ``issuer``."""
        now = int(time.time())
        claims = {"iss": client_id, "sub": client_id, "aud": self.audience or issuer,
                  "iat": now, "exp": now + self.lifetime_s,
                  "jti": secrets.token_urlsafe(16)}  # fmt: skip
        return self.key.sign(claims, {"typ": "JWT"})

    def form(self, client_id: str, issuer: str) -> dict[str, str]:
        """The token request's client authentication members."""
        return {"client_id": client_id, "client_assertion_type": ASSERTION_TYPE,
                "client_assertion": self.assertion(client_id, issuer)}  # fmt: skip


class AssertionGrant(Protocol):
    """A grant whose token request carries an assertion (``OAuth(grant=...)``)."""

    grant_type: str

    async def form(
        self, http: httpx.AsyncClient, *, issuer: str, resource: str, scope: str | None
    ) -> dict[str, str]:
        """The grant's members of the token request to ``issuer`` for ``resource``."""
        ...


class JWTBearer:
    """The JWT bearer grant (RFC 7523 §2.1), for workload identity federation.

    Args:
        assertion: the workload's JWT (its ``aud`` must be the authorization server), or a
            function that reads it (sync or async: a projected token file is re-read at each
            authorization, so a rotated token is picked up).

    A refused assertion (expired, another audience, not authorized) is a ``ClientError``
    with the server's error; the request is not retried and no other grant is tried.
    """

    grant_type = JWT_BEARER

    def __init__(self, assertion: Source) -> None:
        self.assertion = assertion

    async def form(
        self, http: httpx.AsyncClient, *, issuer: str, resource: str, scope: str | None
    ) -> dict[str, str]:
        """``grant_type`` and the assertion as it is now."""
        return {"grant_type": JWT_BEARER, "assertion": await _read(self.assertion)}


class IdentityAssertion:
    """Enterprise-managed authorization (SEP-990): ID token -> ID-JAG -> access token.

    Args:
        id_token: the user's ID token from the enterprise identity provider (IdP), or a
            function giving it (sync or async).
        idp_token_endpoint: the IdP's token endpoint, where the token exchange (RFC 8693)
            turns the ID token into an ID-JAG for the MCP server's authorization server.
        idp_client_id, idp_client_secret: this client at the IdP (the secret, when there is
            one, goes as HTTP Basic).

    The exchange asks for ``audience`` = the authorization server's issuer and ``resource``
    = the MCP server; the ID-JAG then goes to the authorization server as a JWT bearer
    grant, with ``OAuth``'s client authentication (``client_id`` / ``client_secret`` there).
    """

    grant_type = JWT_BEARER

    def __init__(
        self,
        *,
        id_token: Source,
        idp_token_endpoint: str,
        idp_client_id: str,
        idp_client_secret: str | None = None,
    ) -> None:
        self.id_token, self.idp_token_endpoint = id_token, idp_token_endpoint
        self.idp_client_id, self.idp_client_secret = idp_client_id, idp_client_secret

    async def exchange(
        self, http: httpx.AsyncClient, *, issuer: str, resource: str, scope: str | None
    ) -> str:
        """The ID-JAG the IdP issues for ``issuer`` and ``resource``."""
        form = {"grant_type": TOKEN_EXCHANGE, "requested_token_type": ID_JAG,
                "subject_token": await _read(self.id_token), "subject_token_type": ID_TOKEN,
                "audience": issuer, "resource": resource}  # fmt: skip
        if scope:
            form["scope"] = scope
        headers: dict[str, str] = {}
        if self.idp_client_secret is None:
            form["client_id"] = self.idp_client_id
        else:
            pair = f"{quote(self.idp_client_id, safe='')}:{quote(self.idp_client_secret, safe='')}"
            headers["authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        response = await http.post(self.idp_token_endpoint, data=form, headers=headers)
        body = json_object(response)
        jag = body.get("access_token")
        if response.status_code >= 400 or not isinstance(jag, str):
            raise ClientError(f"the identity provider refused the token exchange (HTTP "
                              f"{response.status_code}): {body.get('error', body)}")  # fmt: skip
        if body.get("issued_token_type") not in (None, ID_JAG):
            raise ClientError(f"the identity provider issued a {body['issued_token_type']!r}, "
                              "not an ID-JAG")  # fmt: skip
        return jag

    async def form(
        self, http: httpx.AsyncClient, *, issuer: str, resource: str, scope: str | None
    ) -> dict[str, str]:
        """The exchange at the IdP, then the JWT bearer grant's members."""
        jag = await self.exchange(http, issuer=issuer, resource=resource, scope=scope)
        return {"grant_type": JWT_BEARER, "assertion": jag}


def json_object(response: httpx.Response) -> dict[str, Any]:
    """The JSON object an authorization server answered, ``{}`` for any other body."""
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}

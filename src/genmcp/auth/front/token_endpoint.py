"""The token endpoint (``/token``) and revocation (``/revoke``, RFC 7009) of the front.

``/token``: ``authorization_code`` (the code used once, issued to this client, the same
redirect URI, PKCE verified, the grant's resource) and ``refresh_token`` (rotated; a
narrower scope may be asked, never a wider one), answering the front's access token and,
for clients registered with the ``refresh_token`` grant, a new refresh token. ``/revoke``:
a refresh or access token of the calling client ends its whole grant, and the upstream
tokens behind it are revoked at the upstream too (when it has an RFC 7009 endpoint): this is
the front's logout; any other token is answered 200 too (RFC 7009 §2.2).

With a ``DPoPPolicy`` a token request may carry a ``DPoP`` proof (RFC 9449 §5): it is checked
(for ``POST`` to the token endpoint's URL, before the code is spent) and the access token is
bound to its key (``cnf.jkt``, ``token_type: DPoP``), and so are the grant's refresh tokens
(a refresh without a proof of that key is ``invalid_grant``); a refused proof is 400
``invalid_dpop_proof``, a missing nonce 400 ``use_dpop_nonce`` with ``DPoP-Nonce``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from genmcp.auth.front.grants import Grant, GrantStore, pkce_matches
from genmcp.auth.front.issuer import TokenIssuer
from genmcp.auth.front.registration import RegisteredClient, RegistrationError
from genmcp.auth.front.wire import NO_STORE, Refused, oauth_error, read_form
from genmcp.auth.tokens import InvalidToken, canonical_uri
from genmcp.storage.guard import StorageUnavailable

if TYPE_CHECKING:
    from genmcp.auth.dpop import DPoPPolicy

__all__ = ["TokenEndpoint"]

log = logging.getLogger("genmcp.auth.front")

Lookup = Callable[[str], Awaitable[RegisteredClient | None]]
RevokeUpstream = Callable[[dict[str, Any]], Awaitable[int]]


class TokenEndpoint:
    """``/token`` and ``/revoke`` over the front's grants and token issuer.

    Args:
        grants: the grant memory (codes, refresh tokens, revocations).
        tokens: signs the access tokens.
        lookup: finds a client by ``client_id`` (registered, or a metadata document URL).
        revoke_upstream: revokes a grant's upstream tokens (``Upstream.revoke``), or None.
        dpop: how DPoP proofs are checked (tokens then bound to their key), or None.
        url: the token endpoint's own URL (a proof's ``htu``).
    """

    def __init__(
        self,
        grants: GrantStore,
        tokens: TokenIssuer,
        lookup: Lookup,
        revoke_upstream: RevokeUpstream | None = None,
        *,
        dpop: DPoPPolicy | None = None,
        url: str = "",
    ) -> None:
        self.grants, self.tokens, self.lookup = grants, tokens, lookup
        self.revoke_upstream = revoke_upstream
        self.dpop, self.url = dpop, url

    async def token(self, request: Request) -> Response:
        """Answer a token request (RFC 6749 §4.1.3, §6)."""
        try:
            fields = await read_form(request)
            grant_type = fields.get("grant_type")
            if grant_type not in ("authorization_code", "refresh_token"):
                raise Refused("unsupported_grant_type", "authorization_code or refresh_token")
            client = await self._client(fields)
            jkt = await self._proof(request)  # before the code or refresh token is spent
            if grant_type == "authorization_code":
                grant = replace(await self._redeem(fields, client.client_id), jkt=jkt)
            else:
                grant = await self._rotate(fields, client.client_id)
                if grant.jkt is not None and grant.jkt != jkt:  # RFC 9449 §5: bound refresh
                    raise Refused("invalid_grant", "the refresh token is bound to a DPoP key: "
                                  "prove it")  # fmt: skip
        except Refused as exc:
            log.info("token refused: %s", exc.error)
            response = oauth_error(exc.error, exc.description, exc.status)
            if exc.error == "use_dpop_nonce" and self.dpop and self.dpop.nonces:
                response.headers["dpop-nonce"] = self.dpop.nonces.current()
            return response
        return await self._tokens(grant, client, jkt)

    async def _proof(self, request: Request) -> str | None:
        """The key thumbprint of the request's DPoP proof; None without one (or no policy)."""
        proofs = request.headers.getlist("dpop")
        if self.dpop is None or not proofs:
            return None
        from genmcp.auth.dpop import DPoPProblem

        try:
            proof = await self.dpop.verify(proofs, "POST", (self.url, str(request.url)))
        except DPoPProblem as exc:
            raise Refused(exc.error, exc.description) from None
        except StorageUnavailable:
            raise Refused("temporarily_unavailable", "the DPoP replay cache", 503) from None
        return proof.jkt

    async def revoke(self, request: Request) -> Response:
        """Answer a revocation request (RFC 7009)."""
        try:
            fields = await read_form(request)
            client_id = (await self._client(fields)).client_id
        except Refused as exc:
            return oauth_error(exc.error, exc.description, exc.status)
        token = fields.get("token")
        if not token:
            return oauth_error("invalid_request", "send the token to revoke")
        family = await self._family(token, client_id)
        if family is not None:
            upstream = await self.grants.revoke(family)
            revoked = 0
            if upstream is not None and self.revoke_upstream is not None:
                revoked = await self.revoke_upstream(upstream)
            log.info("grant revoked by client %s (%d upstream tokens revoked)", client_id, revoked)
        return Response(status_code=200, headers=NO_STORE)  # unknown tokens too (RFC 7009)

    async def _family(self, token: str, client_id: str) -> str | None:
        """The grant ``token`` (refresh or access) belongs to, if it is ``client_id``'s."""
        grant = await self.grants.refresh_grant(token)
        if grant is not None:
            return grant.family if grant.request.client_id == client_id else None
        try:
            verified = await self.tokens.verifier().verify(token)
        except InvalidToken:
            return None
        family = verified.claims.get("gid")
        if verified.client_id != client_id or not isinstance(family, str):
            return None
        return family

    async def _client(self, fields: dict[str, str]) -> RegisteredClient:
        try:
            client = await self.lookup(fields.get("client_id", ""))
        except RegistrationError as exc:
            if exc.status == 503:  # too many metadata documents being fetched: not the client's
                raise Refused("temporarily_unavailable", exc.description, 503) from None
            raise Refused("invalid_client", exc.description, 401) from None
        if client is None:
            raise Refused("invalid_client", "unknown client_id", 401)
        return client

    def _resource(self, fields: dict[str, str], granted: str) -> None:
        resource = fields.get("resource")
        if resource is not None and canonical_uri(resource) != canonical_uri(granted):
            raise Refused("invalid_target", f"this grant is for {granted}")

    async def _redeem(self, fields: dict[str, str], client_id: str) -> Grant:
        grant = await self.grants.redeem_code(fields.get("code", ""))
        if grant is None:
            raise Refused("invalid_grant", "the code is unknown, expired or already used")
        asked = grant.request
        if asked.client_id != client_id:
            raise Refused("invalid_grant", "the code was issued to another client")
        if fields.get("redirect_uri") != asked.redirect_uri:
            raise Refused("invalid_grant", "redirect_uri differs from the authorization's")
        if not pkce_matches(fields.get("code_verifier", ""), asked.code_challenge):
            raise Refused("invalid_grant", "the code_verifier does not match (PKCE)")
        self._resource(fields, asked.resource)
        return grant

    async def _rotate(self, fields: dict[str, str], client_id: str) -> Grant:
        grant = await self.grants.rotate(fields.get("refresh_token", ""))
        if grant is None or grant.request.client_id != client_id:
            raise Refused("invalid_grant", "the refresh token is unknown, expired or used")
        self._resource(fields, grant.request.resource)
        wanted = fields.get("scope")
        if wanted is not None:
            scope = tuple(wanted.split())
            if not set(scope) <= set(grant.request.scope):
                raise Refused("invalid_scope", "a refresh cannot add scopes: authorize again")
            grant = replace(grant, request=replace(grant.request, scope=scope))
        return grant

    async def _tokens(self, grant: Grant, client: RegisteredClient, jkt: str | None) -> Response:
        asked = grant.request
        access = self.tokens.issue(subject=grant.subject, client_id=asked.client_id,
                                   scope=asked.scope, resource=asked.resource,
                                   grant=grant.family, jkt=jkt)  # fmt: skip
        body: dict[str, Any] = {
            "access_token": access,
            "token_type": "Bearer" if jkt is None else "DPoP",
            "expires_in": self.tokens.ttl_s,
            "scope": " ".join(asked.scope),
        }
        if "refresh_token" in client.grant_types:
            body["refresh_token"] = await self.grants.issue_refresh(grant)
        return JSONResponse(body, headers=NO_STORE)

"""``AuthorizationFront``: an OAuth 2.1 authorization server in front of an upstream provider.

MCP clients register with it (RFC 7591), sign their users in through it (authorization code
with PKCE S256), and get its own short-lived access tokens for the MCP resource; the user
signs in at the upstream provider, whose tokens stay here. Routes (at the root of the app):

- ``/.well-known/oauth-authorization-server``: RFC 8414 metadata;
- ``/register``: dynamic client registration (201: ``registration_endpoint``); a
  ``client_id`` that is an https URL is a Client ID Metadata Document instead, fetched with
  SSRF protection (``MetadataDocuments``);
- ``/authorize``: checks the client and its exact redirect URI first (a bad one is a 400
  page, never a redirect), then the request (``response_type=code``, PKCE ``S256``, scope,
  ``resource``; errors go back to the client's redirect URI with ``state``; the scopes'
  rules are ``scope_rules``), then shows the consent page (``consent``);
- ``/authorize/consent``: the user's answer, from the browser the page was shown to: denied
  goes back to the client, approved sends the browser upstream;
- ``/oauth/callback``: the upstream's redirect: exchanges its code, keeps its tokens, sends
  the browser back to the client with the front's own code and ``iss`` (RFC 9207);
- ``/token`` and ``/revoke``: ``token_endpoint.TokenEndpoint``;
- ``/jwks``: the public key of the access tokens.

Each OAuth parameter comes once (RFC 6749 §3.1; only ``resource`` may repeat, RFC 8707): a
repeated ``client_id`` or ``redirect_uri`` is a 400 page, another an ``invalid_request``.
Floods are bounded per source address, per client and in all (``limits.FrontLimits``): the
flooder gets 429 (or everyone 503 when the store-wide bound is reached) with
``Retry-After``, and no one's pending sign-in is evicted.

:meth:`AuthorizationFront.resource_server` builds the ``OAuthResource`` that accepts its tokens.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Final
from urllib.parse import urlencode, urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from genmcp.auth.dpop import DPoPPolicy
from genmcp.auth.front import scope_rules
from genmcp.auth.front.consent import Consent, Consents, consent_page
from genmcp.auth.front.grants import Authorization, GrantStore, pkce_challenge
from genmcp.auth.front.issuer import TokenIssuer
from genmcp.auth.front.limits import FrontLimits, Gate, Throttled, source_key
from genmcp.auth.front.metadata_documents import MetadataDocuments, is_metadata_url
from genmcp.auth.front.registration import ClientRegistry, RegisteredClient, RegistrationError
from genmcp.auth.front.registration_endpoint import RegistrationEndpoint
from genmcp.auth.front.token_endpoint import TokenEndpoint
from genmcp.auth.front.upstream import Upstream, UpstreamError
from genmcp.auth.front.wire import (
    NO_STORE,
    Refused,
    guarded,
    page,
    read_form,
    retry_later,
)
from genmcp.auth.protected_resource import OAuthResource
from genmcp.auth.tokens import canonical_uri
from genmcp.storage import RecordStore
from genmcp.storage.buckets import Buckets, MemoryBuckets
from genmcp.storage.memory import MemoryRecordStore

__all__ = ["AuthorizationFront"]

log = logging.getLogger("genmcp.auth.front")

CALLBACK: Final = "/oauth/callback"
CONSENT: Final = "/authorize/consent"
_COOKIE: Final = "genmcp_consent"
_REPEATABLE: Final = frozenset({"resource"})
_PAGE_HEADERS: Final = {
    "x-frame-options": "DENY",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    "referrer-policy": "no-referrer",
}


class AuthorizationFront:
    """The authorization server an MCP client talks to, over an upstream provider.

    Args:
        issuer: the front's own issuer URL (its origin, e.g. ``https://mcp.example.com``).
        upstream: the provider users sign in with.
        resource: the canonical URI of the MCP endpoint (the ``aud`` of every token).
        scopes_supported: the scopes clients may ask for (the MCP server's scopes).
        default_scopes: granted when a client asks for none (default: every supported one).
        scope_map: the grant rule of every supported scope: MCP scope -> the upstream scopes
            it needs, e.g. ``{"mcp:tools": [], "notes:write": ["notes.write"]}``: asked for
            upstream with it, and granted only when the upstream grants them all; ``[]``
            grants it to anyone who signs in upstream. A supported scope without a rule is a
            ``ValueError`` here (never granted by omission).
        access_ttl_s: access token lifetime.
        signing_key: the EC P-256 key of the access tokens (a new one when None: tokens
            then die with the process).
        store: where registrations, consents, codes, refresh tokens and the encrypted
            upstream tokens live: one process's memory when None; a ``RedisRecordStore``
            for several processes (then give them all the same ``signing_key`` and
            ``token_key``).
        token_key: the Fernet key the upstream tokens are encrypted with (a new one when None).
        registry, grants: the client table and the grant memory (built on ``store`` when None).
        documents: how ``client_id`` URLs (Client ID Metadata Documents) are fetched.
        consent_page: renders the consent page (default :func:`consent.consent_page`).
        limits: the abuse bounds (:class:`limits.FrontLimits`: per source address, per
            client, in all).
        buckets: where the per-source and per-client tokens are counted (this process by
            default; ``genmcp.storage.redis.RedisBuckets`` for one budget across processes).
        source: the request's source key (default: the connection's address, an IPv6
            one's /64; behind a proxy, the client's address it forwards).
        dpop: take DPoP proofs at ``/token`` and bind the tokens to their keys
            (``genmcp.auth.DPoPPolicy``); the resource server takes them too.
    """

    def __init__(
        self,
        *,
        issuer: str,
        upstream: Upstream,
        resource: str,
        scopes_supported: Iterable[str] = (),
        default_scopes: Iterable[str] | None = None,
        scope_map: Mapping[str, Iterable[str]] | None = None,
        access_ttl_s: int = 300,
        signing_key: ec.EllipticCurvePrivateKey | None = None,
        store: RecordStore | None = None,
        token_key: bytes | str | None = None,
        registry: ClientRegistry | None = None,
        grants: GrantStore | None = None,
        documents: MetadataDocuments | None = None,
        consent_page: Callable[[Consent, str], str] = consent_page,
        limits: FrontLimits | None = None,
        buckets: Buckets | None = None,
        source: Callable[[Request], str] | None = None,
        dpop: DPoPPolicy | None = None,
    ) -> None:
        self.issuer = issuer.rstrip("/")
        self.upstream, self.resource = upstream, resource
        self.scopes_supported = tuple(scopes_supported)
        self.default_scopes = tuple(self.scopes_supported if default_scopes is None
                                    else default_scopes)  # fmt: skip
        self.scope_map = {mcp: tuple(up) for mcp, up in (scope_map or {}).items()}
        scope_rules.check_rules(self.scopes_supported, self.default_scopes, self.scope_map)
        self.tokens = TokenIssuer(self.issuer, ttl_s=access_ttl_s, key=signing_key)
        self.store = store if store is not None else MemoryRecordStore()
        self.registry = registry if registry is not None else ClientRegistry(store=self.store)
        self.limits = limits if limits is not None else FrontLimits()
        self.gate = Gate(self.limits, buckets if buckets is not None else MemoryBuckets())
        self.source = source if source is not None else _connection_source
        self.grants = (grants if grants is not None
                       else GrantStore(store=self.store, key=token_key,
                                       max_pending=self.limits.max_pending))  # fmt: skip
        self.documents = documents if documents is not None else MetadataDocuments()
        self.callback_url = self.issuer + CALLBACK
        self.consents = Consents(store=self.store, max_pending=self.limits.max_pending)
        self.consent_page = consent_page
        self.dpop = dpop
        self.token_endpoint = TokenEndpoint(self.grants, self.tokens, self._lookup,
                                            upstream.revoke, dpop=dpop,
                                            url=self.issuer + "/token")  # fmt: skip
        self.registration_endpoint = RegistrationEndpoint(self.gate, self.registry, self.source)
        self._path = urlsplit(self.issuer).path
        self._secure = urlsplit(self.issuer).scheme == "https"

    # -- wiring -----------------------------------------------------------------------------

    def resource_server(self, **options: Any) -> OAuthResource:
        """The ``OAuthResource`` for the MCP router: it accepts this front's tokens."""
        options.setdefault("scopes_supported", self.scopes_supported)
        options.setdefault("dpop", self.dpop)
        return OAuthResource(resource=self.resource, authorization_servers=[self.issuer],
                             verifier=self.tokens.verifier(self.grants.revoked),
                             **options)  # fmt: skip

    def metadata(self) -> dict[str, Any]:
        """The RFC 8414 document."""
        document: dict[str, Any] = {
            "issuer": self.issuer,
            "authorization_endpoint": self.issuer + "/authorize",
            "token_endpoint": self.issuer + "/token",
            "revocation_endpoint": self.issuer + "/revoke",
            "revocation_endpoint_auth_methods_supported": ["none"],
            "registration_endpoint": self.issuer + "/register",
            "jwks_uri": self.issuer + "/jwks",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "authorization_response_iss_parameter_supported": True,
            "client_id_metadata_document_supported": True,
        }
        if self.scopes_supported:
            document["scopes_supported"] = list(self.scopes_supported)
        if self.dpop is not None:
            document["dpop_signing_alg_values_supported"] = list(self.dpop.algorithms)
        return document

    def router(self) -> APIRouter:
        """The front's routes; include it in the app without a prefix."""
        router = APIRouter()
        path = urlsplit(self.issuer).path
        router.add_api_route(f"/.well-known/oauth-authorization-server{path}", self._metadata,
                             methods=["GET"], include_in_schema=False)  # fmt: skip
        for route, endpoint, method in (
            ("/register", self.registration_endpoint.register, "POST"),
            ("/authorize", self._authorize, "GET"),
            (CONSENT, self._consent, "POST"),
            (CALLBACK, self._callback, "GET"),
            ("/token", self.token_endpoint.token, "POST"),
            ("/revoke", self.token_endpoint.revoke, "POST"),
            ("/jwks", self._jwks, "GET"),
        ):
            router.add_api_route(path + route, guarded(endpoint), methods=[method],
                                 include_in_schema=False)  # fmt: skip
        return router

    # -- metadata, keys --------------------------------------------------------------------

    async def _metadata(self) -> Response:
        return JSONResponse(self.metadata(), headers={"cache-control": "max-age=3600"})

    async def _jwks(self) -> Response:
        return JSONResponse(self.tokens.jwks(), headers={"cache-control": "max-age=300"})

    # -- the authorization request ----------------------------------------------------------

    async def _authorize(self, request: Request) -> Response:
        query = request.query_params
        repeated = _repeated(query.multi_items())
        if repeated & {"client_id", "redirect_uri"}:
            return page(400, "Repeated parameter",
                        f"{min(repeated & {'client_id', 'redirect_uri'})} is repeated.")
        try:
            client = await self._lookup(query.get("client_id", ""))
        except RegistrationError as exc:
            log.info("authorize refused: %s", exc.description)
            if exc.status == 503:
                return retry_later(page(503, "Try again", exc.description), Throttled(
                    503, exc.description, 5))  # fmt: skip
            return page(400, "Unusable client", exc.description)
        if client is None:
            return page(400, "Unknown client", "This client_id is not registered (or expired).")
        redirect_uri = query.get("redirect_uri")  # matched exactly: no open redirect
        if redirect_uri is None or redirect_uri not in client.redirect_uris:
            log.info("authorize refused: redirect URI mismatch for %s", client.client_id)
            return page(400, "Redirect URI mismatch",
                         "redirect_uri is missing, or not one this client registered.")  # fmt: skip
        state = query.get("state")

        def back(error: str, description: str) -> Response:
            log.info("authorize refused for %s: %s", client.client_id, error)
            return self._redirect(redirect_uri, state, error=error, error_description=description)

        if repeated:
            return back("invalid_request", f"{min(repeated)} is repeated")
        try:
            challenge, scope = self._check_request(query)
        except Refused as exc:
            return back(exc.error, exc.description)
        asked = Authorization(client.client_id, redirect_uri, challenge, state, scope,
                              self.resource)  # fmt: skip
        try:
            await self.gate.sign_in(self.source(request), client.client_id)
            consent = await self.consents.ask(asked, client.client_name)
        except Throttled as exc:
            log.info("authorize refused for %s: %s", client.client_id, exc.description)
            return retry_later(page(exc.status, "Try again later", exc.description), exc)
        document = self.consent_page(consent, self._path + CONSENT)
        response = HTMLResponse(document, headers={**NO_STORE, **_PAGE_HEADERS})
        response.set_cookie(_COOKIE, consent.browser, max_age=int(self.consents.ttl_s),
                            path=self._path or "/", secure=self._secure,
                            httponly=True, samesite="lax")  # fmt: skip
        return response

    async def _consent(self, request: Request) -> Response:
        try:
            fields = await read_form(request)
        except Refused as exc:
            return page(400, "Bad consent", exc.description)
        consent = await self.consents.answer(fields.get("consent", ""),
                                             request.cookies.get(_COOKIE))  # fmt: skip
        if consent is None:  # unknown, used, expired, or posted from another browser
            log.info("consent refused: unknown, expired or from another browser")
            return page(400, "Consent expired", "Start again from your application.")
        asked = consent.request
        if fields.get("decision") != "approve":
            log.info("the user denied client %s", asked.client_id)
            return self._redirect(asked.redirect_uri, asked.state, status=303,
                                  error="access_denied", error_description="the user denied")
        verifier = secrets.token_urlsafe(48)
        nonce = secrets.token_urlsafe(24) if self.upstream.openid else None
        try:
            upstream_state = await self.grants.begin(asked, verifier, consent.browser, nonce)
        except Throttled as exc:
            log.info("sign-in refused for %s: %s", asked.client_id, exc.description)
            return retry_later(page(exc.status, "Try again later", exc.description), exc)
        try:
            url = await self.upstream.authorization_url(
                state=upstream_state, redirect_uri=self.callback_url,
                challenge=pkce_challenge(verifier),
                scopes=scope_rules.upstream_scopes(self.scope_map, asked.scope), nonce=nonce,
            )  # fmt: skip
        except UpstreamError as exc:
            log.warning("upstream unavailable: %s", exc)
            return self._redirect(asked.redirect_uri, asked.state, status=303,
                                  error="temporarily_unavailable",
                                  error_description="the identity provider cannot be reached")
        log.info("the user approved client %s", asked.client_id)
        return RedirectResponse(url, status_code=303, headers=NO_STORE)

    def _check_request(self, query: Any) -> tuple[str, tuple[str, ...]]:
        """The PKCE challenge and the scope of a valid request; :class:`Refused` else."""
        if query.get("response_type") != "code":
            raise Refused("unsupported_response_type", "response_type must be code")
        challenge, method = query.get("code_challenge"), query.get("code_challenge_method")
        if not challenge:
            raise Refused("invalid_request", "PKCE is required: send code_challenge (S256)")
        if method != "S256":
            raise Refused("invalid_request", "code_challenge_method must be S256 (plain refused)")
        if len(challenge) != 43:
            raise Refused("invalid_request", "code_challenge is not an S256 challenge")
        scope = tuple(query.get("scope", "").split()) or self.default_scopes
        unknown = [s for s in scope if s not in self.scopes_supported]
        if unknown:
            raise Refused("invalid_scope", f"unknown scope: {' '.join(unknown)}")
        resources = query.getlist("resource")
        if resources and [canonical_uri(r) for r in resources] != [canonical_uri(self.resource)]:
            raise Refused("invalid_target", f"the only resource here is {self.resource}")
        return str(challenge), tuple(dict.fromkeys(scope))

    async def _callback(self, request: Request) -> Response:
        query = request.query_params
        repeated = _repeated(query.multi_items())
        if repeated:
            return page(400, "Repeated parameter", f"{min(repeated)} is repeated.")
        state = query.get("state", "")
        pending = await self.grants.pending(state)
        if pending is None:
            return page(400, "Unknown or expired sign-in",
                         "Start again from your application.")  # fmt: skip
        asked = pending.request
        cookie = request.cookies.get(_COOKIE)
        if pending.browser is not None and not (
            cookie and hmac.compare_digest(cookie.encode(), pending.browser.encode())
        ):  # refused without spending it: another browser cannot end the user's sign-in
            log.info("callback refused: not the browser that approved client %s", asked.client_id)
            return page(400, "Another browser", "Finish signing in in the browser you started in.")
        if await self.grants.resume(state) is None:  # used meanwhile (or just expired)
            return page(400, "Unknown or expired sign-in",
                         "Start again from your application.")  # fmt: skip
        if "error" in query or not query.get("code"):
            log.info("upstream refused the sign-in: %s", query.get("error", "no code"))
            return self._redirect(asked.redirect_uri, asked.state, error="access_denied",
                                  error_description="the identity provider refused the sign-in")
        try:
            tokens = await self.upstream.exchange(code=query["code"],
                                                  redirect_uri=self.callback_url,
                                                  verifier=pending.upstream_verifier)  # fmt: skip
            subject = await self.upstream.subject(tokens, pending.nonce)
        except UpstreamError as exc:
            log.warning("upstream exchange failed: %s", exc)
            return self._redirect(asked.redirect_uri, asked.state, error="server_error",
                                  error_description="the identity provider failed")  # fmt: skip
        granted = scope_rules.granted(self.scope_map, asked.scope, tokens)
        if granted != asked.scope:
            log.info("upstream did not grant %s: not granted", set(asked.scope) - set(granted))
        code = await self.grants.issue_code(replace(asked, scope=granted), subject, tokens)
        if not is_metadata_url(asked.client_id):
            await self.registry.keep(asked.client_id)  # used: it now lasts its full life
        log.info("signed in %s for client %s", subject, asked.client_id)
        return self._redirect(asked.redirect_uri, asked.state, code=code)

    def _redirect(
        self, redirect_uri: str, state: str | None, status: int = 302, **params: str
    ) -> Response:
        if state is not None:
            params["state"] = state
        params["iss"] = self.issuer
        joiner = "&" if urlsplit(redirect_uri).query else "?"
        return RedirectResponse(redirect_uri + joiner + urlencode(params), status_code=status,
                                headers=NO_STORE)  # fmt: skip

    async def _lookup(self, client_id: str) -> RegisteredClient | None:
        """A registered client, or the client a metadata document URL describes."""
        if is_metadata_url(client_id):
            return await self.documents.client(client_id)
        return await self.registry.get(client_id)


def _connection_source(request: Request) -> str:
    """The default source key: the connection's address (an IPv6 one's /64)."""
    return source_key(request.client.host if request.client is not None else None)


def _repeated(items: Iterable[tuple[str, str]]) -> set[str]:
    """The parameters that come more than once (but those allowed to, RFC 8707)."""
    seen: set[str] = set()
    repeated = set()
    for name, _ in items:
        if name in seen and name not in _REPEATABLE:
            repeated.add(name)
        seen.add(name)
    return repeated

"""``OAuthResource``: an MCP endpoint as an OAuth 2.1 protected resource.

It is an ``Auth`` (``transports.http.auth``): ``mcp_router(..., auth=resource)`` runs
:meth:`OAuthResource.asgi_check` inside the raw MCP endpoint (no FastAPI dependency route);
with more ``dependencies=`` (or wrapped, as by ``forward_credentials``) it is the endpoint's
FastAPI dependency (``__call__``), and the one stdio runs. For every
HTTP request (POST, GET, DELETE; both eras) it reads the one ``Authorization: Bearer``
header (never the query string), has the verifier check the token, checks the audience
against the configured resource URI and the resource-wide scopes, and either returns the
caller's assigns (principal, scopes, client id, claims: never the token) or answers the
request itself with the RFC 6750 challenge: 401 without ``error`` when no bearer token was
sent, 401 ``invalid_token``, 403 ``insufficient_scope``, 400 ``invalid_request`` for two
``Authorization`` headers or a malformed bearer value, 503 with ``Retry-After`` when the
verifier could not check the token now (``VerifierBusy``: a rate bound; the verifier sees
the client address in ``tokens.SOURCE``). With ``dpop=DPoPPolicy(...)`` it also takes
``Authorization: DPoP`` with its ``DPoP`` proof (RFC 9449, ``auth.dpop``): the proof is
checked against the request (method, URI as received or the configured resource) and the
token's ``cnf.jkt``; a DPoP-bound token shown as ``Bearer`` is ``invalid_token``; proof
refusals are ``WWW-Authenticate: DPoP error="invalid_dpop_proof"`` or
``"use_dpop_nonce"`` with the nonce in ``DPoP-Nonce``; a proof taken with the previous
window's nonce (``DPoPNonces``: it rotated) gets the current one in ``DPoP-Nonce`` on its
answer, whatever its status (RFC 9449 §8.2), so the client's next proof needs no challenge.
In the endpoint, the challenges of a 2026-07-28 ``tools/call`` or ``prompts/get`` also name
the scopes of the tool or prompt its ``Mcp-Method`` / ``Mcp-Name`` headers announce (a client
asks for everything at once; a lying header only changes what a refusal advertises). The
transport then calls :meth:`OAuthResource.authorize_message` with the parsed JSON-RPC request,
before the Suite runs and before any stream opens, for the scopes of the tool, prompt or
resource it names.

:meth:`OAuthResource.metadata_router` serves the RFC 9728 document at the root well-known
paths: include it in the app without a prefix.

The one module of ``genmcp.auth`` that imports the web framework.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from fastapi import APIRouter
from starlette.requests import Request as HTTPRequest
from starlette.responses import Response as HTTPResponse
from starlette.types import Scope

from genmcp.auth.challenges import Challenge
from genmcp.auth.denials import with_denial
from genmcp.auth.metadata import metadata_document, metadata_paths, metadata_url
from genmcp.auth.scopes import (
    ScopeHierarchy,
    effective_scopes,
    implications,
    merge_scopes,
    scope_challenge,
)
from genmcp.auth.tokens import SOURCE, InvalidToken, TokenVerifier, VerifierBusy, audience_matches
from genmcp.errors import RATE_LIMITED
from genmcp.protocol.jsonrpc import Request, encode
from genmcp.protocol.methods import METHODS
from genmcp.storage.guard import StorageUnavailable
from genmcp.storage.owner import OWNER, anonymous
from genmcp.transports.http.auth import RESPONSE_HEADERS, MessageCheck, Refusal, RequestCheck

if TYPE_CHECKING:
    from genmcp.auth.dpop import DPoPPolicy, Proof
    from genmcp.suite import Suite

__all__ = ["OAuthResource"]

_TOKEN68: Final = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
_TARGET: Final[Mapping[str, str]] = {
    name: method.target
    for name, method in METHODS.items()
    if method.scoped and method.target is not None
}
"""Method -> the params key of the target whose scopes it needs (``Method.scoped``)."""
_NO_STORE: Final = {"cache-control": "no-store"}
_SCHEMES: Final = {False: ("bearer",), True: ("bearer", "dpop")}
"""The schemes taken without and with a DPoP policy."""
_JSON: Final = "application/json"
_NAMED: Final = frozenset(name for name, method in METHODS.items() if method.scoped_by_header)
"""Methods whose target's scopes the ``Mcp-Method`` / ``Mcp-Name`` headers name pre-auth."""


class OAuthResource:
    """The resource-server side of MCP authorization for one MCP endpoint.

    Args:
        resource: the canonical URI of the MCP endpoint (``https://mcp.example.com/mcp``):
            the ``resource`` of the metadata and the audience tokens must carry.
        authorization_servers: issuer URLs clients may get tokens from (at least one).
        verifier: checks each token (``JWTVerifier``, ``IntrospectionVerifier`` or yours).
        required_scopes: scopes every request needs (the ``scope`` of 401 challenges).
        scopes_supported: advertised in the metadata (default: the required scopes).
        scope_hierarchy: ``{"admin": ["notes:write"]}`` or a function expanding granted
            scopes into every scope they imply.
        accept_parent_audience: also accept tokens whose ``aud`` is a parent URI of
            ``resource`` (``https://h/`` for ``https://h/mcp``); off by default.
        resource_name, resource_documentation: optional metadata fields.
        metadata_max_age_s: ``Cache-Control: max-age`` of the metadata document.
        dpop: take DPoP-bound tokens and their proofs (``genmcp.auth.DPoPPolicy``, the
            ``auth`` extra); None: bearer tokens only.
        sep2643: add SEP-2643's (Draft) structured denial to every 403 ``insufficient_scope``
            (``auth.denials``); off by default.
    """

    def __init__(
        self,
        *,
        resource: str,
        authorization_servers: Iterable[str],
        verifier: TokenVerifier,
        required_scopes: Iterable[str] = (),
        scopes_supported: Iterable[str] | None = None,
        scope_hierarchy: ScopeHierarchy | Mapping[str, Iterable[str]] | None = None,
        accept_parent_audience: bool = False,
        resource_name: str | None = None,
        resource_documentation: str | None = None,
        metadata_max_age_s: int = 3600,
        dpop: DPoPPolicy | None = None,
        sep2643: bool = False,
    ) -> None:
        self.resource = resource
        self.dpop, self.sep2643 = dpop, sep2643
        if not isinstance(verifier, TokenVerifier):
            raise TypeError(
                f"OAuthResource(verifier=...) takes a TokenVerifier (verify, aclose: subclass "
                f"genmcp.auth.TokenVerifier for its aclose), not {verifier!r}"
            )
        self.verifier = verifier
        self.required_scopes = merge_scopes(required_scopes)
        self.accept_parent_audience = accept_parent_audience
        self.hierarchy = (
            implications(scope_hierarchy)
            if isinstance(scope_hierarchy, Mapping)
            else scope_hierarchy
        )
        self.metadata_url = metadata_url(resource)
        self.document = metadata_document(
            resource,
            authorization_servers,
            scopes_supported=self.required_scopes if scopes_supported is None else scopes_supported,
            resource_name=resource_name,
            resource_documentation=resource_documentation,
            dpop_algorithms=None if dpop is None else dpop.algorithms,
            dpop_bound_required=dpop is not None and dpop.required,
        )
        self._metadata_headers = {
            "cache-control": f"public, max-age={metadata_max_age_s}",
            "access-control-allow-origin": "*",
        }

    # -- as an Auth: what the endpoint runs ------------------------------------------------

    @property
    def request_check(self) -> RequestCheck:
        """:meth:`asgi_check`: the token check in the raw endpoint, before the body."""
        return self.asgi_check

    @property
    def message_check(self) -> MessageCheck:
        """:meth:`authorize_message`: the scopes of the tool, prompt or resource named."""
        return self.authorize_message

    @property
    def dependency(self) -> OAuthResource:
        """The resource itself: as a FastAPI dependency it is :meth:`__call__`."""
        return self

    async def aclose(self) -> None:
        """Close what the verifier holds open (its pooled HTTP client); the router's lifespan
        calls it at shutdown."""
        await self.verifier.aclose()

    # -- the token check ------------------------------------------------------------------

    async def __call__(self, request: HTTPRequest) -> Any:
        """As a FastAPI dependency: the caller's assigns, or the challenge response."""
        client = request.client
        bound = SOURCE.set(None if client is None else client.host)
        try:
            found = await self.authenticate(
                request.headers.getlist("authorization"),
                proofs=request.headers.getlist("dpop"),
                method=request.method,
                uris=(str(request.url),),
            )
        finally:
            SOURCE.reset(bound)
        if isinstance(found, tuple):
            body, status, headers = found
            return HTTPResponse(encode(body), status, headers=dict(headers), media_type=_JSON)
        return found

    # FastAPI 0.115 (checked on 0.115.14) reads a dependency instance's string annotations in
    # no namespace (an instance has no __globals__), so ``request`` would be a query
    # parameter; the annotation itself, not its name, is read alike by every release.
    __call__.__annotations__["request"] = HTTPRequest

    async def asgi_check(self, scope: Scope, suite: Suite) -> Mapping[str, Any] | Refusal:
        """In the raw endpoint: the caller's assigns, or the challenge to send.

        Runs before the body is read; the scopes of the tool or prompt named by the
        2026-07-28 ``Mcp-Method`` / ``Mcp-Name`` headers go into every challenge.
        """
        values: list[str] = []
        proofs: list[str] = []
        method = name = host = None
        for key, value in scope["headers"]:
            if key == b"authorization":
                values.append(value.decode("latin-1"))
            elif key == b"dpop":
                proofs.append(value.decode("latin-1"))
            elif key == b"host":
                host = value.decode("latin-1")
            elif key == b"mcp-method":
                method = value.decode("latin-1")
            elif key == b"mcp-name":
                name = value.decode("latin-1")
        # a name lookup only: resources/read would run the repositories' parse_uri pre-auth
        needed: tuple[str, ...] = ()
        if method in _NAMED and name is not None:
            needed = suite.required_scopes(method, name)
        uris: tuple[str, ...] = ()
        if self.dpop is not None and (proofs or host):
            uris = _received(scope, host)
        client = scope.get("client")
        bound = SOURCE.set(str(client[0]) if client else None)  # the verifier's budget key
        try:
            return await self.authenticate(
                values, needed, proofs=proofs, method=scope["method"], uris=uris
            )
        finally:
            SOURCE.reset(bound)

    async def authenticate(
        self,
        authorization: list[str],
        scopes: Iterable[str] = (),
        *,
        proofs: Sequence[str] = (),
        method: str = "POST",
        uris: Iterable[str] = (),
    ) -> Mapping[str, Any] | Refusal:
        """The assigns for the ``Authorization`` header values, or the challenge.

        ``scopes``: the operation's own scopes, named with the resource-wide ones in every
        challenge (the operation itself is checked later, by :meth:`authorize_message`).
        ``proofs``, ``method``, ``uris``: the request's ``DPoP`` header values, method and
        URI as received (with ``dpop=`` only; the configured resource URI is taken too).
        """
        wanted = merge_scopes(self.required_scopes, scopes)
        found = self._credentials(authorization, wanted)
        if isinstance(found, Challenge):
            return self._refusal(found)
        scheme, token = found
        policy, proof = self.dpop, None
        if policy is not None and scheme == "dpop":
            from genmcp.auth.dpop import DPoPProblem  # the auth extra: only with dpop=

            try:
                proof = await policy.verify(proofs, method, (*uris, self.resource), token)
            except DPoPProblem as exc:
                return self._refusal(self._dpop(exc.error, wanted, exc.description))
            except StorageUnavailable as exc:  # the replay cache: never a proof unchecked
                return _busy(VerifierBusy(str(exc), 1.0))
        try:
            access = await self.verifier.verify(token)
        except InvalidToken as exc:
            return self._refusal(self._invalid(proof is not None, wanted, str(exc)))
        except VerifierBusy as exc:  # not the token's fault: 503, retry (never invalid_token)
            return _busy(exc)
        if policy is not None and (unbound := _binding(access.claims, proof)) is not None:
            return self._refusal(self._dpop("invalid_token", wanted, unbound))
        if not audience_matches(
            access.audience, self.resource, accept_parent=self.accept_parent_audience
        ):
            why = "the token was not issued for this resource"
            return self._refusal(self._invalid(proof is not None, wanted, why))
        assigns = access.assigns(effective_scopes(access.scopes, self.hierarchy))
        if assigns.get(OWNER) is None:  # a token naming no one owns as the bearer of itself
            assigns[OWNER] = anonymous(token, access.issuer)
        denied = scope_challenge(assigns, self.required_scopes, self.metadata_url)
        if denied is not None:
            return self._refusal(
                Challenge(denied.error, wanted, self.metadata_url, denied.description)
            )
        if proof is not None:
            _fresh_nonce(assigns, proof, policy)
        return assigns

    def _credentials(
        self, values: list[str], wanted: tuple[str, ...]
    ) -> tuple[str, str] | Challenge:
        """``(scheme, token)``: ``bearer``, or ``dpop`` with a DPoP policy; or the challenge."""
        if not values:
            return Challenge(None, wanted, self.metadata_url)
        if len(values) > 1:
            why = "more than one Authorization header"
            return Challenge("invalid_request", wanted, self.metadata_url, why)
        scheme, _, rest = values[0].strip().partition(" ")
        scheme = scheme.lower()
        if scheme not in _SCHEMES[self.dpop is not None]:
            return Challenge(None, wanted, self.metadata_url)  # another scheme: no token at all
        if scheme == "bearer" and self.dpop is not None and self.dpop.required:
            return Challenge(None, wanted, self.metadata_url)
        token = rest.strip(" ")
        if not _TOKEN68.fullmatch(token):
            why = f"the {scheme} token is malformed"
            return Challenge("invalid_request", wanted, self.metadata_url, why)
        return scheme, token

    def _dpop(self, error: str | None, wanted: tuple[str, ...], why: str | None) -> Challenge:
        algs = None if self.dpop is None else self.dpop.algs
        return Challenge(error, wanted, self.metadata_url, why, scheme="DPoP", algs=algs)

    def _invalid(self, dpop: bool, wanted: tuple[str, ...], why: str) -> Challenge:
        if dpop:
            return self._dpop("invalid_token", wanted, why)
        return Challenge("invalid_token", wanted, self.metadata_url, why)

    def _refusal(self, challenge: Challenge, request_id: Any = None) -> Refusal:
        body, status, headers = challenge.answer(request_id)
        if self.sep2643 and challenge.error == "insufficient_scope":
            body = with_denial(body)
        policy = self.dpop
        if policy is not None and status == 401:
            if challenge.scheme == "Bearer":  # a DPoP client is told it may use DPoP too
                dpop = self._dpop(None, challenge.scopes, None)
                if policy.required and challenge.error is None:
                    headers = []
                headers = [*headers, ("www-authenticate", dpop.header())]
            if policy.nonces is not None:  # the nonce before the first proof: one round less
                headers = [*headers, ("dpop-nonce", policy.nonces.current())]
        return body, status, [*headers, *_NO_STORE.items()]

    # -- per-operation scopes, called by the transport after parsing -------------------

    def authorize_message(
        self, message: Request, assigns: Mapping[str, Any], suite: Suite
    ) -> Refusal | None:
        """None, or the 403 ``(body, status, headers)`` when the target needs more scopes."""
        key = _TARGET.get(message.method)
        params = message.params if isinstance(message.params, Mapping) else {}
        target = params.get(key) if key is not None else None
        if not isinstance(target, str):
            return None
        needed = suite.required_scopes(message.method, target)
        if not needed:
            return None
        denied = scope_challenge(
            assigns, merge_scopes(self.required_scopes, needed), self.metadata_url
        )
        return None if denied is None else self._refusal(denied, message.id)

    # -- RFC 9728 metadata ----------------------------------------------------------------

    def metadata_router(self) -> APIRouter:
        """GET/OPTIONS routes for the metadata document; include it without a prefix."""
        router = APIRouter()

        async def document() -> HTTPResponse:
            return HTTPResponse(
                self.document, 200, headers=self._metadata_headers, media_type="application/json"
            )

        async def preflight() -> HTTPResponse:
            headers = {
                "access-control-allow-origin": "*",
                "access-control-allow-methods": "GET, OPTIONS",
                "access-control-allow-headers": "*",
                "access-control-max-age": "86400",
            }
            return HTTPResponse(None, 204, headers=headers)

        for path in metadata_paths(self.resource):
            router.add_api_route(path, document, methods=["GET"], include_in_schema=False)
            router.add_api_route(path, preflight, methods=["OPTIONS"], include_in_schema=False)
        return router


def _fresh_nonce(assigns: dict[str, Any], proof: Proof, policy: DPoPPolicy | None) -> None:
    """Give the current ``DPoP-Nonce`` on the answer to a proof that carried the previous
    window's (taken, but rotated since): RFC 9449 §8.2, no challenge round trip next time."""
    nonces = None if policy is None else policy.nonces
    if nonces is not None and proof.claims.get("nonce") != (current := nonces.current()):
        assigns[RESPONSE_HEADERS] = (("dpop-nonce", current),)


def _binding(claims: Mapping[str, Any], proof: Proof | None) -> str | None:
    """Why a token's DPoP binding (``cnf.jkt``) and the request's proof disagree, or None."""
    from genmcp.auth.dpop import bound_key  # the auth extra: only with dpop=

    jkt = bound_key(claims)
    if proof is None and jkt is not None:
        return "a DPoP-bound token is presented with the DPoP scheme and a proof"
    if proof is not None and jkt != proof.jkt:
        return "the token is not bound to the proof's key"
    return None


def _received(scope: Scope, host: str | None) -> tuple[str, ...]:
    """The URIs a request was sent to as received: the ``Host`` with the path, and with
    ``root_path`` put before it when it is not already there."""
    origin = f"{scope.get('scheme', 'http')}://{host or ''}"
    path, root = scope.get("path", ""), scope.get("root_path", "")
    if root and not path.startswith(root):
        return (origin + path, origin + root + path)
    return (origin + path,)


def _busy(exc: VerifierBusy) -> Refusal:
    """503 with ``Retry-After`` (whole seconds, at least 1): the token was not checked."""
    wait = max(1, math.ceil(exc.retry_after_s))
    error = {
        "code": RATE_LIMITED,
        "message": f"Service unavailable: {exc}",
        "data": {"retryAfter": wait},
    }
    headers = [("retry-after", str(wait)), *_NO_STORE.items()]
    return {"jsonrpc": "2.0", "error": error}, 503, headers

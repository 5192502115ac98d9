"""``OAuthResource``: an MCP endpoint as an OAuth 2.1 protected resource.

``mcp_router(..., auth=resource)`` uses it as the endpoint's FastAPI dependency. For every
HTTP request (POST, GET, DELETE; both eras) it reads the one ``Authorization: Bearer``
header (never the query string), has the verifier check the token, checks the audience
against the configured resource URI and the resource-wide scopes, and either returns the
caller's assigns (principal, scopes, client id, claims: never the token) or answers the
request itself with the RFC 6750 challenge: 401 without ``error`` when no bearer token was
sent, 401 ``invalid_token``, 403 ``insufficient_scope``, 400 ``invalid_request`` for two
``Authorization`` headers or a malformed bearer value. The transport then calls
:meth:`OAuthResource.authorize_message` with the parsed JSON-RPC request, before the Suite
runs and before any stream opens, for the scopes of the tool, prompt or resource it names.

:meth:`OAuthResource.metadata_router` serves the RFC 9728 document at the root well-known
paths: include it in the app without a prefix.

The one module of ``genmcp.auth`` that imports the web framework.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from fastapi import APIRouter
from starlette.requests import Request as HTTPRequest
from starlette.responses import Response as HTTPResponse

from genmcp.auth.challenges import Challenge
from genmcp.auth.metadata import metadata_document, metadata_paths, metadata_url
from genmcp.auth.scopes import (
    ScopeHierarchy,
    effective_scopes,
    implications,
    merge_scopes,
    scope_challenge,
)
from genmcp.auth.tokens import InvalidToken, TokenVerifier, audience_matches
from genmcp.protocol.jsonrpc import Request, encode

if TYPE_CHECKING:
    from genmcp.suite import Suite

__all__ = ["OAuthResource"]

_TOKEN68: Final = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
_TARGET: Final = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
_NO_STORE: Final = {"cache-control": "no-store"}


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
    ) -> None:
        self.resource = resource
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
        )
        self._metadata_headers = {
            "cache-control": f"public, max-age={metadata_max_age_s}",
            "access-control-allow-origin": "*",
        }

    # -- the FastAPI dependency ---------------------------------------------------------

    async def __call__(self, request: HTTPRequest) -> Any:
        """The caller's assigns, or the challenge response answering the request."""
        found = self._bearer(request.headers.getlist("authorization"))
        if isinstance(found, Challenge):
            return self._respond(found)
        try:
            access = await self.verifier.verify(found)
        except InvalidToken as exc:
            return self._respond(self._challenge("invalid_token", str(exc)))
        if not audience_matches(
            access.audience, self.resource, accept_parent=self.accept_parent_audience
        ):
            return self._respond(
                self._challenge("invalid_token", "the token was not issued for this resource")
            )
        assigns = access.assigns(effective_scopes(access.scopes, self.hierarchy))
        denied = scope_challenge(assigns, self.required_scopes, self.metadata_url)
        return assigns if denied is None else self._respond(denied)

    def _bearer(self, values: list[str]) -> str | Challenge:
        if not values:
            return self._challenge(None)
        if len(values) > 1:
            return self._challenge("invalid_request", "more than one Authorization header")
        scheme, _, rest = values[0].strip().partition(" ")
        if scheme.lower() != "bearer":
            return self._challenge(None)  # another scheme: no bearer credentials at all
        token = rest.strip(" ")
        if not _TOKEN68.fullmatch(token):
            return self._challenge("invalid_request", "the bearer token is malformed")
        return token

    def _challenge(self, error: str | None, description: str | None = None) -> Challenge:
        return Challenge(error, self.required_scopes, self.metadata_url, description)

    def _respond(self, challenge: Challenge, request_id: Any = None) -> HTTPResponse:
        body, status, headers = challenge.answer(request_id)
        return HTTPResponse(
            encode(body),
            status,
            headers={**dict(headers), **_NO_STORE},
            media_type="application/json",
        )

    # -- per-operation scopes, called by the transport after parsing -------------------

    def authorize_message(
        self, message: Request, assigns: Mapping[str, Any], suite: Suite
    ) -> tuple[dict[str, Any], int, list[tuple[str, str]]] | None:
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
        if denied is None:
            return None
        body, status, headers = denied.answer(message.id)
        return body, status, [*headers, *_NO_STORE.items()]

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

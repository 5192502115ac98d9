"""An OAuth 2.1 authorization server front for MCP clients, over an upstream provider.

::

    from genmcp.auth.front import AuthorizationFront, Upstream

    front = AuthorizationFront(
        issuer="https://mcp.example.com",
        upstream=Upstream("https://idp.example.com", "client-id", "client-secret"),
        resource="https://mcp.example.com/mcp",
        scopes_supported=["mcp:tools", "notes:write"],
    )
    app.include_router(front.router())
    app.include_router(mcp_router(..., auth=front.resource_server()), prefix="/mcp")

Modules: ``registration`` (RFC 7591 clients, redirect-URI rules), ``metadata_documents``
(``client_id`` URLs, fetched with SSRF protection), ``consent`` (the user allows each
client), ``grants`` (pending authorizations, single-use codes, rotated refresh tokens,
PKCE), ``issuer`` (the front's JWT access tokens and their verifier), ``upstream`` (the
provider: discovery on first use, code exchange, userinfo), ``token_endpoint`` (``/token``,
``/revoke``), ``wire`` (bounded bodies, forms, errors), ``front`` (``AuthorizationFront``:
the other routes). Needs the ``auth`` extra.
"""

from __future__ import annotations

from genmcp.auth.front.front import AuthorizationFront
from genmcp.auth.front.metadata_documents import MetadataDocuments
from genmcp.auth.front.registration import ClientRegistry, RegistrationError
from genmcp.auth.front.upstream import Upstream, UpstreamError

__all__ = [
    "AuthorizationFront",
    "ClientRegistry",
    "MetadataDocuments",
    "RegistrationError",
    "Upstream",
    "UpstreamError",
]

"""An OAuth 2.1 authorization server front for MCP clients, over an upstream provider.

::

    from genmcp.auth.front import AuthorizationFront, Upstream

    front = AuthorizationFront(
        issuer="https://mcp.example.com",
        upstream=Upstream("https://idp.example.com", "client-id", "client-secret"),
        resource="https://mcp.example.com/mcp",
        scopes_supported=["mcp:tools", "notes:write"],
        scope_map={"mcp:tools": [], "notes:write": ["notes.write"]},
    )
    app.include_router(front.router())
    app.include_router(mcp_router(..., auth=front.resource_server()), prefix="/mcp")

Modules: ``registration`` (RFC 7591 clients, redirect-URI rules), ``metadata_documents``
(``client_id`` URLs, fetched with SSRF protection), ``consent`` (the user allows each
client), ``grants`` (pending authorizations, single-use codes, rotated refresh tokens,
PKCE), ``issuer`` (the front's JWT access tokens and their verifier), ``upstream`` (the
provider: discovery on first use, code exchange, the user from its verified ID token or
userinfo), ``id_token`` (OpenID Core ID token checks), ``github`` (the GitHub preset: OAuth
without OpenID), ``token_endpoint`` (``/token``, ``/revoke``: also the logout),
``registration_endpoint`` (``/register``), ``scope_rules`` (the upstream scopes each MCP
scope needs, what is granted), ``wire`` (bounded bodies, forms, errors, ``Retry-After``, 503
when the store is down), ``limits`` (``FrontLimits``:
what one source, one client and everyone may start; floods are refused, never evicting),
``front`` (``AuthorizationFront``: the other routes). The records live in a
``genmcp.storage.RecordStore``: memory by default, ``RedisRecordStore`` for several processes.
Needs the ``auth`` extra.
"""

from __future__ import annotations

from genmcp.auth.front.front import AuthorizationFront
from genmcp.auth.front.github import GitHub
from genmcp.auth.front.id_token import InvalidIdToken
from genmcp.auth.front.limits import FrontLimits
from genmcp.auth.front.metadata_documents import MetadataDocuments
from genmcp.auth.front.registration import ClientRegistry, RegistrationError
from genmcp.auth.front.upstream import Upstream, UpstreamError

__all__ = [
    "AuthorizationFront",
    "ClientRegistry",
    "FrontLimits",
    "GitHub",
    "InvalidIdToken",
    "MetadataDocuments",
    "RegistrationError",
    "Upstream",
    "UpstreamError",
]

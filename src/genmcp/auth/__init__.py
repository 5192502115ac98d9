"""genmcp as an OAuth 2.1 protected resource (MCP authorization, resource-server side).

::

    from genmcp.auth import JWTVerifier, OAuthResource

    resource = OAuthResource(
        resource="https://mcp.example.com/mcp",
        authorization_servers=["https://issuer.example.com/"],
        verifier=JWTVerifier("https://issuer.example.com/"),
        required_scopes=["mcp:tools"],
    )
    app.include_router(mcp_router(..., auth=resource), prefix="/mcp")
    app.include_router(resource.metadata_router())

``OAuthResource`` is an ``Auth`` (``genmcp.transports.http.auth``): the protocol ``auth=`` takes,
a token check before the body, a check of each parsed request and the FastAPI dependency
stdio runs; a plain FastAPI dependency is wrapped as a ``DependencyAuth``.

``OAuthResource(dpop=DPoPPolicy(...))`` also takes DPoP-bound tokens (RFC 9449): proofs
checked, their ``jti`` kept in a shared store, nonces from ``DPoPNonces``.

``JWTVerifier`` (its key set fetched as ``JWKSOptions`` say), ``IntrospectionVerifier`` and
``DPoPPolicy`` need the ``auth`` extra (``pip install 'genmcp[auth]'``: PyJWT and httpx);
they are imported on first use.

Modules: ``tokens`` (verified tokens, audience), ``challenges`` (WWW-Authenticate),
``scopes`` (hierarchy, checks), ``metadata`` (RFC 9728), ``jwks`` and ``jwt_verifier``
(JWT + JWKS), ``introspection`` (RFC 7662), ``dpop`` and ``nonces`` (RFC 9449 proofs and
nonces), ``protected_resource`` (``OAuthResource``: the
endpoint's token check and the FastAPI dependency).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from genmcp.auth.challenges import Challenge
from genmcp.auth.nonces import DPoPNonces
from genmcp.auth.protected_resource import OAuthResource
from genmcp.auth.scopes import ScopeHierarchy, implications, may_use, scope_challenge
from genmcp.auth.tokens import (
    AccessToken,
    InvalidToken,
    TokenVerifier,
    VerifierBusy,
    audience_matches,
)
from genmcp.transports.http.auth import Auth, DependencyAuth

if TYPE_CHECKING:
    from genmcp.auth.dpop import DPoPPolicy
    from genmcp.auth.introspection import IntrospectionVerifier
    from genmcp.auth.jwks import JWKSOptions
    from genmcp.auth.jwt_verifier import JWTVerifier

__all__ = [
    "AccessToken",
    "Auth",
    "Challenge",
    "DPoPNonces",
    "DPoPPolicy",
    "DependencyAuth",
    "IntrospectionVerifier",
    "InvalidToken",
    "JWKSOptions",
    "JWTVerifier",
    "OAuthResource",
    "ScopeHierarchy",
    "TokenVerifier",
    "VerifierBusy",
    "audience_matches",
    "implications",
    "may_use",
    "scope_challenge",
]

_LAZY = {
    "JWTVerifier": "genmcp.auth.jwt_verifier",
    "JWKSOptions": "genmcp.auth.jwks",
    "IntrospectionVerifier": "genmcp.auth.introspection",
    "DPoPPolicy": "genmcp.auth.dpop",
}


def __getattr__(name: str) -> Any:
    """Import the verifiers (and their optional dependencies) on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'genmcp.auth' has no attribute {name!r}")
    import importlib

    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as exc:
        raise ImportError(
            f"genmcp.auth.{name} needs the auth extra: pip install 'genmcp[auth]' ({exc})"
        ) from exc

"""Verified access tokens: what a verifier returns, the verifier protocol, audience matching.

:class:`AccessToken` is the verified, parsed token (never the raw string); its
:meth:`AccessToken.assigns` become ``channel.assigns``. A :class:`TokenVerifier` turns a raw
bearer token into one or raises :class:`InvalidToken`. :func:`canonical_uri` and
:func:`audience_matches` implement the RFC 8707 / MCP canonical resource comparison: scheme
and host case-insensitive, default port, fragment and one trailing slash ignored, a parent
URI only on opt-in.

Pure: no asyncio, no web framework, no HTTP client. Scopes are split on the space (0x20)
only, as RFC 6749 §3.3 defines them: a tab or a Unicode space is part of a scope name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

from genmcp.storage.owner import OWNER, owner_key

__all__ = [
    "SOURCE",
    "AccessToken",
    "InvalidToken",
    "TokenVerifier",
    "VerifierBusy",
    "audience_matches",
    "canonical_uri",
    "scopes_of",
]

_DEFAULT_PORTS = {"http": 80, "https": 443}


class InvalidToken(Exception):
    """The bearer token is not acceptable; the message is safe to send (never the token)."""


class VerifierBusy(Exception):
    """The token could not be checked now (a bound of the verifier, not the token's fault):
    the resource answers 503 with ``Retry-After``, never ``invalid_token``.

    Attributes:
        retry_after_s: when checking again may succeed (an estimate, at least 1 s on the wire).
    """

    def __init__(self, message: str, retry_after_s: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


SOURCE: ContextVar[str | None] = ContextVar("genmcp_token_source", default=None)
"""Where the token being verified came from (the client address, as the ASGI server saw it),
set by ``OAuthResource`` around ``verify``: a verifier may budget its work per source."""


@dataclass(frozen=True, slots=True)
class AccessToken:
    """A verified access token.

    Attributes:
        subject: ``sub`` (the principal), or None when the token has none.
        scopes: the granted scopes.
        audience: every ``aud`` value (the resources the token was issued for).
        client_id: the OAuth client the token was issued to.
        issuer: ``iss``.
        expires_at: ``exp`` (seconds since the epoch), or None when unknown.
        claims: every claim of the token (or of the introspection answer).
    """

    subject: str | None
    scopes: frozenset[str]
    audience: tuple[str, ...]
    client_id: str | None = None
    issuer: str | None = None
    expires_at: float | None = None
    claims: Mapping[str, Any] = field(default_factory=dict)

    @property
    def principal(self) -> str | None:
        """Who calls, for people and logs: ``sub``, else the client id (client credentials)."""
        return self.subject if self.subject is not None else self.client_id

    @property
    def owner(self) -> str | None:
        """What this caller owns things as (``storage.owner``): ``(user, iss, sub)``, else
        ``(client, iss, client_id)`` for a client-credentials token; None when it names no one
        (the resource then makes the token itself the owner)."""
        if self.subject is not None:
            return owner_key("user", self.issuer, self.subject)
        if self.client_id is not None:
            return owner_key("client", self.issuer, self.client_id)
        return None

    def assigns(self, effective_scopes: Iterable[str]) -> dict[str, Any]:
        """What ``channel.assigns`` holds for this token (never the raw token)."""
        return {
            "principal": self.principal,
            OWNER: self.owner,
            "sub": self.subject,
            "client_id": self.client_id,
            "issuer": self.issuer,
            "scopes": tuple(sorted(self.scopes)),
            "effective_scopes": frozenset(effective_scopes),
            "claims": dict(self.claims),
        }


@runtime_checkable
class TokenVerifier(Protocol):
    """Turns a raw bearer token into an :class:`AccessToken`; raises :class:`InvalidToken`.

    The resource checks the audience and scopes of what ``verify`` returns, so a verifier
    only answers "is this token genuine and live, and what does it say". Subclass it to
    inherit the no-op ``aclose``.
    """

    async def verify(self, token: str) -> AccessToken:
        """Verify ``token``; raise :class:`InvalidToken` when it is not acceptable."""
        ...

    async def aclose(self) -> None:
        """At shutdown (``OAuthResource.aclose``): release what the verifier holds open (a
        pooled HTTP client)."""
        return None


def canonical_uri(uri: str) -> str:
    """``uri`` with scheme and host lowercased; default port, fragment, trailing ``/`` dropped."""
    parts = urlsplit(uri.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    path = parts.path[:-1] if parts.path.endswith("/") else parts.path
    return urlunsplit((scheme, netloc, path, parts.query, ""))


def audience_matches(audience: Iterable[str], resource: str, *, accept_parent: bool) -> bool:
    """True when one ``aud`` value names ``resource`` (or, on opt-in, a parent path of it)."""
    target = canonical_uri(resource)
    for value in audience:
        aud = canonical_uri(value)
        if aud == target:
            return True
        if accept_parent and aud and _is_parent(aud, target):
            return True
    return False


def _is_parent(parent: str, child: str) -> bool:
    p, c = urlsplit(parent), urlsplit(child)
    if (p.scheme, p.netloc) != (c.scheme, c.netloc) or p.query:
        return False
    return p.path == "" or c.path.startswith(p.path + "/")


def scopes_of(claims: Mapping[str, Any]) -> frozenset[str]:
    """The scopes a token grants: ``scope`` (space-separated) or ``scp`` (string or list)."""
    for key in ("scope", "scp"):
        value = claims.get(key)
        if isinstance(value, str):
            return frozenset(scope for scope in value.split(" ") if scope)
        if isinstance(value, list):
            return frozenset(v for v in value if isinstance(v, str))
    return frozenset()

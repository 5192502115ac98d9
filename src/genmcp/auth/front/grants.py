"""What the front remembers between the steps of a grant: pending authorizations, codes,
refresh tokens, and the upstream tokens behind them.

Every record expires and every table is bounded. A code is used once: a second use is
refused and revokes every token issued from it (RFC 6749 §4.1.2, OAuth 2.1). A refresh token
is rotated: each use returns a new one, and a used one presented again revokes its whole
family; so does :meth:`GrantStore.revoke` (RFC 7009), which the access tokens' verifier
also honours. Upstream tokens are kept encrypted (Fernet, a key made at start-up) and are never
sent to the MCP client. PKCE is S256 only (:func:`pkce_matches`).

Pure: no asyncio, no web framework, no HTTP client.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from cryptography.fernet import Fernet

__all__ = ["Authorization", "Grant", "GrantStore", "Pending", "pkce_challenge", "pkce_matches"]

_T = TypeVar("_T")


def pkce_challenge(verifier: str) -> str:
    """The S256 ``code_challenge`` of ``verifier`` (RFC 7636 §4.2)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def pkce_matches(verifier: str, challenge: str) -> bool:
    """True when ``verifier`` (43 to 128 unreserved characters) hashes to ``challenge``."""
    if not 43 <= len(verifier) <= 128 or not verifier.isascii():
        return False
    if any(not (c.isalnum() or c in "-._~") for c in verifier):
        return False
    return hmac.compare_digest(pkce_challenge(verifier), challenge)


@dataclass(frozen=True, slots=True)
class Authorization:
    """What the MCP client asked for at ``/authorize``."""

    client_id: str
    redirect_uri: str
    code_challenge: str
    state: str | None
    scope: tuple[str, ...]
    resource: str


@dataclass(frozen=True, slots=True)
class Pending:
    """An authorization sent upstream, waiting for the upstream's callback."""

    request: Authorization
    upstream_verifier: str
    expires_at: float
    browser: str | None = None
    """The consent cookie of the browser that approved: the callback must come from it."""


@dataclass(frozen=True, slots=True)
class Grant:
    """A signed-in user's grant to one client: behind a code, then behind refresh tokens."""

    request: Authorization
    subject: str
    family: str
    upstream: bytes
    """The upstream tokens, encrypted."""
    expires_at: float


class GrantStore:
    """The front's memory of grants in flight (one process).

    Args:
        pending_ttl_s: how long a user may take to sign in upstream.
        code_ttl_s: how long an authorization code may wait for its exchange.
        refresh_ttl_s: how long a refresh token lasts.
        max_entries: the bound of each table (the oldest entries go first).
    """

    def __init__(
        self,
        *,
        pending_ttl_s: float = 600.0,
        code_ttl_s: float = 60.0,
        refresh_ttl_s: float = 14 * 24 * 3600.0,
        max_entries: int = 10_000,
    ) -> None:
        self.pending_ttl_s, self.code_ttl_s = pending_ttl_s, code_ttl_s
        self.refresh_ttl_s, self.max_entries = refresh_ttl_s, max_entries
        self._fernet = Fernet(Fernet.generate_key())
        self._pending: dict[str, Pending] = {}
        self._codes: dict[str, Grant] = {}
        self._used_codes: dict[str, tuple[str, float]] = {}
        self._refresh: dict[str, Grant] = {}
        self._used_refresh: dict[str, tuple[str, float]] = {}
        self._revoked: dict[str, float] = {}

    # -- pending authorizations -------------------------------------------------------------

    def begin(
        self, request: Authorization, upstream_verifier: str, browser: str | None = None
    ) -> str:
        """Remember ``request``; the upstream ``state`` that names it."""
        state = secrets.token_urlsafe(32)
        pending = Pending(request, upstream_verifier, time.time() + self.pending_ttl_s, browser)
        self._put(self._pending, state, pending)
        return state

    def resume(self, state: str) -> Pending | None:
        """The pending authorization of upstream ``state`` (once), or None."""
        return _live(self._pending.pop(state, None))

    # -- codes ------------------------------------------------------------------------------

    def issue_code(self, request: Authorization, subject: str, upstream: Mapping[str, Any]) -> str:
        """A new single-use code for a signed-in ``subject``."""
        code = secrets.token_urlsafe(32)
        sealed = self._fernet.encrypt(json.dumps(dict(upstream)).encode())
        grant = Grant(request, subject, secrets.token_urlsafe(16), sealed,
                      time.time() + self.code_ttl_s)  # fmt: skip
        self._put(self._codes, code, grant)
        return code

    def redeem_code(self, code: str) -> Grant | None:
        """The grant behind ``code``, once; a replay returns None and revokes its family."""
        grant = _live(self._codes.pop(code, None))
        now = time.time()
        if grant is None:
            used = self._used_codes.get(code)
            if used is not None:
                self.revoke(used[0])
            return None
        self._put(self._used_codes, code, (grant.family, now + self.refresh_ttl_s))
        return grant

    # -- refresh tokens ---------------------------------------------------------------------

    def issue_refresh(self, grant: Grant) -> str:
        """A new refresh token for ``grant``'s family."""
        token = secrets.token_urlsafe(32)
        self._put(self._refresh, token, replace(grant, expires_at=time.time() + self.refresh_ttl_s))
        return token

    def rotate(self, token: str) -> Grant | None:
        """The grant behind refresh ``token``, once; a replay revokes the family."""
        grant = self._refresh.pop(token, None)
        if grant is None:
            used = self._used_refresh.get(token)
            if used is not None:
                self.revoke(used[0])
            return None
        self._put(self._used_refresh, token, (grant.family, grant.expires_at))
        if grant.expires_at <= time.time() or grant.family in self._revoked:
            return None
        return grant

    def revoked(self, family: str) -> bool:
        """True when ``family`` was revoked (a replayed code or refresh token)."""
        return family in self._revoked

    def upstream_tokens(self, grant: Grant) -> dict[str, Any]:
        """The upstream tokens behind ``grant``, decrypted (server-side use only)."""
        tokens: dict[str, Any] = json.loads(self._fernet.decrypt(grant.upstream))
        return tokens

    def refresh_grant(self, token: str) -> Grant | None:
        """The live grant behind refresh ``token`` (not used up: for revocation)."""
        return _live(self._refresh.get(token))

    def revoke(self, family: str) -> None:
        """End a grant: its refresh tokens go, its access tokens are refused from now."""
        self._put(self._revoked, family, time.time() + self.refresh_ttl_s)
        for token in [t for t, g in self._refresh.items() if g.family == family]:
            del self._refresh[token]

    def _put(self, table: dict[str, _T], key: str, value: _T) -> None:
        if len(table) >= self.max_entries:
            self._sweep(table)
        while len(table) >= self.max_entries:
            del table[next(iter(table))]  # the oldest goes first
        table[key] = value

    @staticmethod
    def _sweep(table: dict[str, Any]) -> None:
        now = time.time()
        for key in [k for k, v in table.items() if _expiry(v) <= now]:
            del table[key]


def _expiry(value: Any) -> float:
    if isinstance(value, tuple):
        return float(value[1])
    if isinstance(value, float):
        return value
    return float(value.expires_at)


def _live(record: _T | None) -> _T | None:
    if record is None or getattr(record, "expires_at", 0.0) <= time.time():
        return None
    return record

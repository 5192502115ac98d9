"""What the front remembers between the steps of a grant: pending authorizations, codes,
refresh tokens, and the upstream tokens behind them.

Every record expires; pending sign-ins are bounded (``max_pending`` started within their
life: more are refused, none evicted), and in memory every table is bounded too. A code is
used once: a second use is refused and revokes every token issued from it (RFC 6749 §4.1.2,
OAuth 2.1). A refresh token is rotated: each use returns a new one, and a used one presented
again revokes its whole family; so does :meth:`GrantStore.revoke` (RFC 7009), which the
access tokens' verifier also honours. Upstream tokens are kept encrypted (Fernet: a key made
at start-up, or given to every process that shares the store) and are never sent to the MCP
client. PKCE is S256 only (:func:`pkce_matches`). The records live in a
``genmcp.storage.RecordStore`` as JSON.

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
from dataclasses import asdict, dataclass, replace
from typing import Any, TypeVar

from cryptography.fernet import Fernet

from genmcp.auth.front.limits import Throttled, room
from genmcp.storage import RecordStore
from genmcp.storage.memory import MemoryRecordStore

__all__ = [
    "Authorization",
    "Grant",
    "GrantStore",
    "Pending",
    "pkce_challenge",
    "pkce_matches",
    "request_of",
    "request_record",
]

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
    nonce: str | None = None
    """The OpenID ``nonce`` sent upstream: the ID token must carry it."""


@dataclass(frozen=True, slots=True)
class Grant:
    """A signed-in user's grant to one client: behind a code, then behind refresh tokens."""

    request: Authorization
    subject: str
    family: str
    upstream: bytes
    """The upstream tokens, encrypted."""
    expires_at: float
    jkt: str | None = None
    """The DPoP key its refresh tokens are bound to (RFC 9449 §5), or None."""


_T = TypeVar("_T", Pending, Grant)


class GrantStore:
    """The front's memory of grants in flight, over a ``RecordStore`` (one process's memory
    by default; ``RedisRecordStore`` for several processes).

    Args:
        pending_ttl_s: how long a user may take to sign in upstream.
        code_ttl_s: how long an authorization code may wait for its exchange.
        refresh_ttl_s: how long a refresh token lasts.
        max_entries: the bound of each table of the default in-memory store.
        max_pending: pending sign-ins started within ``pending_ttl_s``, at most (default
            ``max_entries``; fewer when an in-memory ``store`` holds fewer): more are
            :class:`Throttled` (503), none evicted.
        store: where the records live (``MemoryRecordStore(max_entries=...)`` when None).
        key: the Fernet key the upstream tokens are encrypted with (a new one when None:
            every process sharing ``store`` needs the same key).
    """

    def __init__(
        self,
        *,
        pending_ttl_s: float = 600.0,
        code_ttl_s: float = 60.0,
        refresh_ttl_s: float = 14 * 24 * 3600.0,
        max_entries: int = 10_000,
        store: RecordStore | None = None,
        key: bytes | str | None = None,
        max_pending: int | None = None,
    ) -> None:
        self.pending_ttl_s, self.code_ttl_s = pending_ttl_s, code_ttl_s
        self.refresh_ttl_s, self.max_entries = refresh_ttl_s, max_entries
        self.store = store if store is not None else MemoryRecordStore(max_entries=max_entries)
        self.max_pending = room(self.store, max_entries if max_pending is None else max_pending)
        self._fernet = Fernet(key if key is not None else Fernet.generate_key())

    # -- pending authorizations -------------------------------------------------------------

    async def begin(
        self,
        request: Authorization,
        upstream_verifier: str,
        browser: str | None = None,
        nonce: str | None = None,
    ) -> str:
        """Remember ``request``; the upstream ``state`` that names it (:class:`Throttled`
        when ``max_pending`` are in progress)."""
        state = secrets.token_urlsafe(32)
        if not await self.store.admit("pending", state, self.pending_ttl_s, self.max_pending):
            raise Throttled(503, "too many sign-ins in progress: retry later",
                            min(self.pending_ttl_s, 60.0))  # fmt: skip
        pending = Pending(request, upstream_verifier, time.time() + self.pending_ttl_s, browser,
                          nonce)  # fmt: skip
        await self.store.put("pending", state, _pending_record(pending), self.pending_ttl_s)
        return state

    async def pending(self, state: str) -> Pending | None:
        """The pending authorization of upstream ``state``, left in place (to check its
        browser before :meth:`resume` spends it)."""
        record = await self.store.get("pending", state) if state else None
        return None if record is None else _live(_pending_of(record))

    async def resume(self, state: str) -> Pending | None:
        """The pending authorization of upstream ``state`` (once), or None."""
        record, _ = await self.store.take("pending", state)
        return None if record is None else _live(_pending_of(record))

    # -- codes ------------------------------------------------------------------------------

    async def issue_code(
        self, request: Authorization, subject: str, upstream: Mapping[str, Any]
    ) -> str:
        """A new single-use code for a signed-in ``subject``."""
        code = secrets.token_urlsafe(32)
        sealed = self._fernet.encrypt(json.dumps(dict(upstream)).encode())
        grant = Grant(request, subject, secrets.token_urlsafe(16), sealed,
                      time.time() + self.code_ttl_s)  # fmt: skip
        await self.store.put("code", code, _grant_record(grant), self.code_ttl_s,
                             tag=grant.family)  # fmt: skip
        await self.store.put("upstream", grant.family, sealed.decode("ascii"), self.refresh_ttl_s)
        return code

    async def redeem_code(self, code: str) -> Grant | None:
        """The grant behind ``code``, once; a replay returns None and revokes its family."""
        record, replayed = await self.store.take("code", code, self.refresh_ttl_s)
        if replayed:
            await self.revoke(replayed)
        return None if record is None else _live(_grant_of(record))

    # -- refresh tokens ---------------------------------------------------------------------

    async def issue_refresh(self, grant: Grant) -> str:
        """A new refresh token for ``grant``'s family."""
        token = secrets.token_urlsafe(32)
        renewed = replace(grant, expires_at=time.time() + self.refresh_ttl_s)
        await self.store.put("refresh", token, _grant_record(renewed), self.refresh_ttl_s,
                             tag=grant.family)  # fmt: skip
        return token

    async def rotate(self, token: str) -> Grant | None:
        """The grant behind refresh ``token``, once; a replay revokes the family."""
        record, replayed = await self.store.take("refresh", token, self.refresh_ttl_s)
        if replayed:
            await self.revoke(replayed)
        if record is None:
            return None
        grant = _live(_grant_of(record))
        if grant is None or await self.revoked(grant.family):
            return None
        return grant

    async def revoked(self, family: str) -> bool:
        """True when ``family`` was revoked (a replay, a revocation, a logout)."""
        return bool(await self.store.get("revoked", family))

    def upstream_tokens(self, grant: Grant) -> dict[str, Any]:
        """The upstream tokens behind ``grant``, decrypted (server-side use only)."""
        tokens: dict[str, Any] = json.loads(self._fernet.decrypt(grant.upstream))
        return tokens

    async def refresh_grant(self, token: str) -> Grant | None:
        """The live grant behind refresh ``token`` (not used up: for revocation)."""
        record = await self.store.get("refresh", token)
        return None if record is None else _live(_grant_of(record))

    async def revoke(self, family: str) -> dict[str, Any] | None:
        """End a grant: its refresh tokens are refused from now (``rotate`` checks), and so
        are its access tokens (the verifier asks :meth:`revoked`); its upstream tokens leave
        the store and are returned (to be revoked upstream), None when already gone."""
        await self.store.put("revoked", family, True, self.refresh_ttl_s)
        sealed, _ = await self.store.take("upstream", family)
        if not isinstance(sealed, str):
            return None
        tokens: dict[str, Any] = json.loads(self._fernet.decrypt(sealed.encode("ascii")))
        return tokens


def request_record(request: Authorization) -> dict[str, Any]:
    """``request`` as a JSON record."""
    record = asdict(request)
    record["scope"] = list(request.scope)
    return record


def request_of(record: Mapping[str, Any]) -> Authorization:
    """The ``Authorization`` a :func:`request_record` holds."""
    return Authorization(**{**record, "scope": tuple(record["scope"])})


def _pending_record(pending: Pending) -> dict[str, Any]:
    return {"request": request_record(pending.request), "verifier": pending.upstream_verifier,
            "expires_at": pending.expires_at, "browser": pending.browser,
            "nonce": pending.nonce}  # fmt: skip


def _pending_of(record: Mapping[str, Any]) -> Pending:
    return Pending(request_of(record["request"]), record["verifier"], record["expires_at"],
                   record["browser"], record.get("nonce"))  # fmt: skip


def _grant_record(grant: Grant) -> dict[str, Any]:
    return {"request": request_record(grant.request), "subject": grant.subject,
            "family": grant.family, "upstream": grant.upstream.decode("ascii"),
            "expires_at": grant.expires_at, "jkt": grant.jkt}  # fmt: skip


def _grant_of(record: Mapping[str, Any]) -> Grant:
    return Grant(request_of(record["request"]), record["subject"], record["family"],
                 record["upstream"].encode("ascii"), record["expires_at"],
                 record.get("jkt"))  # fmt: skip


def _live(record: _T | None) -> _T | None:
    if record is None or record.expires_at <= time.time():
        return None
    return record

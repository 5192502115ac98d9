"""Legacy session ids: sealed when a session begins, verified (once) when a request names one.

A session id is a sealed token (``genmcp.sealing``) holding the session's key, negotiated
version, client capabilities and info, its owner's digest and when it began. Verifying it
(HMAC, base64, zlib, JSON) is the largest cost of a legacy request, and every request of a
session sends the same id: a verified id is kept, bounded, so the next request only checks
its expiry and owner. Only ids that verified are kept; garbage ids cost a verification each.
"""

from __future__ import annotations

import functools
import logging
import re
import secrets
import time
from typing import Any, Final, final

from genmcp.errors import MCPError
from genmcp.sealing import Sealer, SealError, digest
from genmcp.sessions.sessions import Session, session_of

__all__ = ["MAX_SESSION_ID_CHARS", "SESSION", "UNKNOWN_KEY", "SessionIds"]

log = logging.getLogger("genmcp")

SESSION: Final = "session"
"""Sealing purpose of session ids."""
MAX_SESSION_ID_CHARS: Final = 4096
"""Longest session id issued (it travels in a header on every request)."""
VERIFIED_MAX: Final = 2048
"""Session ids kept verified per process (oldest dropped first)."""
UNKNOWN_KEY: Final = (
    "its id was signed with an unknown key; this server signs with a random key of its own "
    "process, so a session begun on another worker (or before a restart) cannot verify: set "
    "GENMCP_SECRET_KEY, shared by every process (docs/guides/scaling-out.md)"
)
"""Why a session id does not verify on a process with a random key, and the fix."""
_VISIBLE_ASCII: Final = re.compile(r"[\x21-\x7e]+")
_ID_INFO: Final = ("name", "version", "title")


@functools.lru_cache(maxsize=1024)  # few callers at a time; each digest is a SHA-256 of JSON
def _owner_digest(who: str | None) -> str:
    return digest(who)


@final
class SessionIds:
    """Seals new session ids and verifies sent ones, keeping the verified ones."""

    __slots__ = ("_sealer", "_told", "_verified")

    def __init__(self, sealer: Sealer) -> None:
        self._sealer = sealer
        self._verified: dict[str, tuple[Session, Any]] = {}  # id -> (session, owner digest)
        self._told = False  # the unknown-key cause is logged once, not per request

    def new(
        self,
        version: str,
        capabilities: dict[str, Any],
        client_info: dict[str, Any],
        who: Any,
        epoch: str = "",
    ) -> str:
        """Seal a new session id (visible ASCII, at most ``MAX_SESSION_ID_CHARS``)."""
        payload = {
            "e": epoch,
            "k": secrets.token_urlsafe(16),
            "v": version,
            "c": capabilities,
            "i": client_info,
            "p": digest(who),
            "t": int(time.time()),
        }
        token = self._seal(payload)
        if token is None:  # keep only the clientInfo a client must send
            payload["i"] = {k: v for k, v in client_info.items() if k in _ID_INFO}
            token = self._seal(payload)
        if token is None:
            raise MCPError(
                "invalid_params",
                "Invalid params: the client capabilities are too large for a session "
                f"(over {MAX_SESSION_ID_CHARS} characters sealed), or not plain JSON",
            )
        return token

    def _seal(self, payload: dict[str, Any]) -> str | None:
        try:
            token = self._sealer.seal(SESSION, payload)
        except (ValueError, TypeError):  # too large, or NaN from a lenient JSON parse
            return None
        if len(token) > MAX_SESSION_ID_CHARS or not _VISIBLE_ASCII.fullmatch(token):
            return None
        return token

    def verify(self, token: str, who: str | None, max_age_s: float) -> Session:
        """The session ``token`` names for the caller ``who``; ``session_not_found`` when it
        is not ours, has expired or belongs to someone else (one answer for every cause)."""
        verified = self._verified.get(token)
        if verified is None:
            verified = self._unseal(token, max_age_s)
        session, owner = verified
        if session.expires_at <= time.time() or owner != _owner_digest(who):
            raise MCPError("session_not_found", "Session not found")
        return session

    def _unseal(self, token: str, max_age_s: float) -> tuple[Session, Any]:
        try:
            payload = self._sealer.unseal(SESSION, token, max_age_s=max_age_s)
        except SealError as exc:  # the same answer for every cause; the cause only in the log
            if exc.reason == "tampered" and self._sealer.ephemeral:
                # any bad signature reads so here: a forger learns nothing it did not know
                if not self._told:
                    self._told = True
                    log.warning("session id refused (logged once): %s", UNKNOWN_KEY)
                raise MCPError("session_not_found", f"Session not found: {UNKNOWN_KEY}") from None
            log.debug("session id refused: %s", exc.reason)
            raise MCPError("session_not_found", "Session not found") from None
        session = session_of(payload, max_age_s)
        if session is None:
            raise MCPError("session_not_found", "Session not found")
        verified = self._verified[token] = (session, payload.get("p"))
        if len(self._verified) > VERIFIED_MAX:
            del self._verified[next(iter(self._verified))]
        return verified

"""The consent step: the user approves each client before the front signs them in upstream.

The front is one confidential client at the upstream, so the upstream's "you already
approved this app" would approve every client registered with the front, including one an
attacker registered with their own redirect URI (the confused deputy of the MCP security
guidance). So ``/authorize`` shows a page naming the client, where it will be sent back and
the scopes, and only an approval posted from that same browser goes upstream: the form
carries an unguessable consent id, and the browser a matching ``HttpOnly``, ``SameSite=Lax``
cookie set with the page (a cross-site form post carries neither); the upstream's callback
must come back to that browser too. Each consent is used once and expires; an answer from
another browser spends nothing (it cannot cancel the user's consent). Consents live in a
``genmcp.storage.RecordStore`` (the page and the answer may reach different processes), at
most ``max_pending`` started within their life: more are refused, none evicted.
:func:`consent_page` is the minimal page; pass your own renderer to
``AuthorizationFront(consent_page=...)``.

Pure: no asyncio, no web framework, no HTTP client.
"""

from __future__ import annotations

import hmac
import html
import secrets
import time
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from genmcp.auth.front.grants import Authorization, request_of, request_record
from genmcp.auth.front.limits import Throttled, room
from genmcp.storage import RecordStore
from genmcp.storage.memory import MemoryRecordStore

__all__ = ["Consent", "Consents", "consent_page"]

MAX_PENDING: Final = 10_000


@dataclass(frozen=True, slots=True)
class Consent:
    """One consent asked for: the request, the client's name, the browser's secret."""

    consent_id: str
    request: Authorization
    client_name: str | None
    browser: str
    expires_at: float


class Consents:
    """Consents waiting for the user's answer (bounded, expiring, used once).

    Args:
        ttl_s: how long the user may take to answer.
        store: where they live (one process's memory when None).
        max_pending: consents started within ``ttl_s``, at most (fewer when an in-memory
            ``store`` holds fewer): more are :class:`Throttled` (503), none evicted.
    """

    def __init__(
        self,
        *,
        ttl_s: float = 600.0,
        store: RecordStore | None = None,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self.ttl_s = ttl_s
        self.store = store if store is not None else MemoryRecordStore(max_entries=MAX_PENDING)
        self.max_pending = room(self.store, max_pending)

    async def ask(self, request: Authorization, client_name: str | None) -> Consent:
        """A new consent for ``request``; its ``browser`` secret goes in the cookie.
        :class:`Throttled` when ``max_pending`` are waiting."""
        consent = Consent(secrets.token_urlsafe(24), request, client_name,
                          secrets.token_urlsafe(24), time.time() + self.ttl_s)  # fmt: skip
        if not await self.store.admit("consent", consent.consent_id, self.ttl_s,
                                      self.max_pending):  # fmt: skip
            raise Throttled(503, "too many sign-ins in progress: retry later",
                            min(self.ttl_s, 60.0))  # fmt: skip
        record: dict[str, Any] = {"request": request_record(request), "name": client_name,
                                  "browser": consent.browser, "expires_at": consent.expires_at}
        await self.store.put("consent", consent.consent_id, record, self.ttl_s)
        return consent

    async def answer(self, consent_id: str, browser: str | None) -> Consent | None:
        """The consent ``consent_id`` when ``browser`` is the one it was shown to (once); a
        try from another browser leaves it to its own."""
        if not consent_id or browser is None:
            return None
        shown = await self.store.get("consent", consent_id)
        if not isinstance(shown, dict) or not _same(shown["browser"], browser):
            return None
        record, _ = await self.store.take("consent", consent_id)  # once, if two posts race
        if not isinstance(record, dict) or record["expires_at"] <= time.time():
            return None
        consent = Consent(consent_id, request_of(record["request"]), record["name"],
                          record["browser"], record["expires_at"])  # fmt: skip
        return consent


def _same(secret: object, given: str) -> bool:
    """``given`` is the browser secret ``secret`` (constant time, any characters)."""
    return isinstance(secret, str) and hmac.compare_digest(secret.encode(), given.encode())


def consent_page(consent: Consent, action: str) -> str:
    """The minimal consent page: who asks, where the answer goes, for what; approve or deny."""
    asked = consent.request
    name = html.escape(consent.client_name or "An application")
    back = html.escape(urlsplit(asked.redirect_uri).netloc or asked.redirect_uri)
    scopes = "".join(f"<li><code>{html.escape(s)}</code></li>" for s in asked.scope)
    return (
        "<!doctype html><html><head><meta charset=utf-8><title>Allow access?</title></head>"
        f"<body><h1>Allow {name}?</h1>"
        f"<p>{name} (client <code>{html.escape(asked.client_id)}</code>) asks to act for you "
        f"on <code>{html.escape(asked.resource)}</code>. You will be sent back to "
        f"<strong>{back}</strong>.</p><ul>{scopes}</ul>"
        f'<form method=post action="{html.escape(action)}">'
        f'<input type=hidden name=consent value="{html.escape(consent.consent_id)}">'
        '<button name=decision value=approve>Allow</button> '
        "<button name=decision value=deny>Deny</button></form></body></html>"
    )

"""Dynamic client registration (RFC 7591) for the authorization-server front.

:class:`ClientRegistry` keeps the registered public clients in a ``genmcp.storage.RecordStore``
(in memory by default, shared in Redis). A registration never used lives ``unused_ttl_s``
(an hour); the first sign-in through it (:meth:`ClientRegistry.keep`) makes it last ``ttl_s``
(a week). At most ``max_clients`` of each kind live at once: a flood is refused with 429
and never grows memory, and what it took frees itself within the hour (the front also
limits registrations per source address, ``limits.FrontLimits``). The registry checks the
metadata: redirect URIs are ``https``, or ``http`` on a loopback host (the MCP authorization
spec), absolute, without a fragment, user info, white space or control characters; the
front only knows public clients (``token_endpoint_auth_method`` ``none``) of the
authorization-code grant.

Pure: no asyncio, no web framework, no HTTP client.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from genmcp.auth.front.limits import room
from genmcp.storage import RecordStore
from genmcp.storage.memory import MemoryRecordStore

__all__ = ["ClientRegistry", "RegisteredClient", "RegistrationError", "check_redirect_uri"]

LOOPBACK: Final = frozenset({"127.0.0.1", "localhost", "::1"})
GRANTS: Final = frozenset({"authorization_code", "refresh_token"})
MAX_REDIRECT_URIS: Final = 10
MAX_FIELD: Final = 2000


class RegistrationError(Exception):
    """A refused registration: the RFC 7591 ``error`` code, the HTTP status, a description."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error, self.description, self.status = error, description, status


@dataclass(frozen=True, slots=True)
class RegisteredClient:
    """One registered client (public: it has no secret)."""

    client_id: str
    redirect_uris: tuple[str, ...]
    grant_types: tuple[str, ...]
    client_name: str | None
    issued_at: int
    expires_at: float

    def document(self) -> dict[str, Any]:
        """The RFC 7591 registration response."""
        body: dict[str, Any] = {
            "client_id": self.client_id,
            "client_id_issued_at": self.issued_at,
            "client_secret_expires_at": 0,
            "redirect_uris": list(self.redirect_uris),
            "grant_types": list(self.grant_types),
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
        if self.client_name is not None:
            body["client_name"] = self.client_name
        return body


def check_redirect_uri(uri: object) -> str:
    """``uri`` when it is an acceptable redirect URI; :class:`RegistrationError` otherwise."""
    if not isinstance(uri, str) or not uri or len(uri) > MAX_FIELD:
        raise RegistrationError("invalid_redirect_uri", "a redirect URI must be a short string")
    if any(c <= " " or c == "\x7f" for c in uri):  # urlsplit drops tabs and line breaks
        raise RegistrationError(
            "invalid_redirect_uri", f"{uri!r} has white space or a control character"
        )
    parts = urlsplit(uri)
    if parts.fragment or "#" in uri:
        raise RegistrationError("invalid_redirect_uri", f"{uri!r} has a fragment")
    if parts.username is not None or parts.password is not None:
        raise RegistrationError("invalid_redirect_uri", f"{uri!r} carries user info")
    if not parts.hostname:
        raise RegistrationError("invalid_redirect_uri", f"{uri!r} is not an absolute URL")
    if parts.scheme == "https":
        return uri
    if parts.scheme == "http" and parts.hostname.lower() in LOOPBACK:
        return uri
    raise RegistrationError(
        "invalid_redirect_uri", f"{uri!r}: redirect URIs are https, or http on a loopback host"
    )


class ClientRegistry:
    """Registered clients, bounded in number and in time.

    Args:
        max_clients: registrations never used held at once, and as many used ones; more are
            refused (429) until some expire (fewer when an in-memory ``store`` holds fewer
            than twice as many records).
        ttl_s: how long a registration lasts once used (:meth:`keep`).
        unused_ttl_s: how long a registration lasts until it is used.
        store: where they live (one process's memory when None).
    """

    def __init__(
        self,
        *,
        max_clients: int = 1000,
        ttl_s: float = 7 * 24 * 3600.0,
        unused_ttl_s: float = 3600.0,
        store: RecordStore | None = None,
    ) -> None:
        self.ttl_s, self.unused_ttl_s = ttl_s, min(unused_ttl_s, ttl_s)
        self.store = store if store is not None else MemoryRecordStore(max_entries=2 * max_clients)
        self.max_clients = max(1, room(self.store, 2 * max_clients) // 2)

    async def register(self, metadata: Mapping[str, Any]) -> RegisteredClient:
        """Check ``metadata`` (a registration request) and register a new client."""
        uris = metadata.get("redirect_uris")
        if not isinstance(uris, list) or not uris or len(uris) > MAX_REDIRECT_URIS:
            raise RegistrationError(
                "invalid_redirect_uri", f"redirect_uris: a list of 1 to {MAX_REDIRECT_URIS} URIs"
            )
        redirect_uris = tuple(check_redirect_uri(uri) for uri in uris)
        method = metadata.get("token_endpoint_auth_method", "none")
        if method != "none":
            raise RegistrationError(
                "invalid_client_metadata",
                "token_endpoint_auth_method: only 'none' (public clients with PKCE)",
            )
        grants = metadata.get("grant_types", ["authorization_code"])
        if not isinstance(grants, list) or not grants or not set(grants) <= GRANTS:
            raise RegistrationError(
                "invalid_client_metadata", f"grant_types: among {sorted(GRANTS)}"
            )
        responses = metadata.get("response_types", ["code"])
        if responses != ["code"]:
            raise RegistrationError("invalid_client_metadata", "response_types: only ['code']")
        name = metadata.get("client_name")
        if name is not None and (not isinstance(name, str) or len(name) > MAX_FIELD):
            raise RegistrationError("invalid_client_metadata", "client_name: a short string")
        now = time.time()
        client = RegisteredClient(
            client_id=secrets.token_urlsafe(24),
            redirect_uris=redirect_uris,
            grant_types=tuple(dict.fromkeys(grants)),
            client_name=name,
            issued_at=int(now),
            expires_at=now + self.unused_ttl_s,
        )
        ttl_s = self.unused_ttl_s
        if not await self.store.admit("client", client.client_id, ttl_s, self.max_clients):
            raise RegistrationError(
                "temporarily_unavailable", "too many registrations: try again later", 429
            )
        await self.store.put("client", client.client_id, {**asdict(client), "kept": False}, ttl_s)
        return client

    async def keep(self, client_id: str) -> bool:
        """The client was used (a user signed in through it): make a registration never
        used before last ``ttl_s`` from now. False when it is gone, or the used ones are
        at ``max_clients`` (it then keeps its short life)."""
        record = await self.store.get("client", client_id)
        if not isinstance(record, dict) or record.get("kept", True):
            return isinstance(record, dict)
        if not await self.store.admit("client:kept", client_id, self.ttl_s, self.max_clients):
            return False
        expires_at = time.time() + self.ttl_s
        await self.store.put("client", client_id, {**record, "kept": True,
                                                   "expires_at": expires_at}, self.ttl_s)
        return True

    async def get(self, client_id: str) -> RegisteredClient | None:
        """The live client ``client_id``, or None (unknown or expired)."""
        record = await self.store.get("client", client_id)
        if not isinstance(record, dict):
            return None
        fields = {name: value for name, value in record.items() if name != "kept"}
        client = RegisteredClient(**{**fields, "redirect_uris": tuple(record["redirect_uris"]),
                                     "grant_types": tuple(record["grant_types"])})  # fmt: skip
        return client if client.expires_at > time.time() else None

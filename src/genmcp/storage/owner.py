"""Who owns what a caller leaves behind: the one owner key of tasks, sessions, state, buckets.

A task record, a legacy session id, a ``requestState``, a resource cursor and a rate-limit
bucket are each bound to the caller that made them, by the string :func:`owner_of` reads
from its assigns. ``genmcp.auth`` puts an ``owner`` there (:func:`owner_key`): a namespaced
``(kind, issuer, id)`` so that a user ``sub`` "alice" of one issuer, the same ``sub`` of
another issuer and a client-credentials token whose ``client_id`` is "alice" are three
owners, never one. A verified token that names nobody (no ``sub``, no ``client_id``) is
anonymous: it owns as the bearer of that one token (``anonymous``: a digest of the token,
never the token), so two anonymous callers never reach each other's things.

Without ``owner`` in the assigns (a plain FastAPI dependency, stdio ``--assigns``), the
``principal`` (or ``sub``) the dependency returned is the key as it is; no assigns at all
(a server without auth) is None: every caller of that open server is the same owner.

Pure: no asyncio, no web framework; imports nothing from genmcp.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final, Literal

__all__ = ["OWNER", "OwnerKind", "anonymous", "owner_key", "owner_of"]

OWNER: Final = "owner"
"""The assigns key holding the owner key (set by ``genmcp.auth``)."""

OwnerKind = Literal["user", "client", "anonymous"]
"""``user``: a ``sub``; ``client``: a client-credentials ``client_id``; ``anonymous``: a token."""


def owner_key(kind: OwnerKind, issuer: str | None, ident: str) -> str:
    """The owner key of ``ident`` in the namespace ``kind`` of ``issuer`` (canonical JSON)."""
    return json.dumps([kind, issuer or "", ident], separators=(",", ":"), ensure_ascii=True)


def anonymous(token: str, issuer: str | None = None) -> str:
    """The owner key of a verified token that names no one: the bearer of this very token."""
    return owner_key("anonymous", issuer, hashlib.sha256(token.encode()).hexdigest()[:32])


def owner_of(assigns: Mapping[str, Any]) -> str | None:
    """The caller's owner key: ``owner``, else ``principal`` or ``sub``; None when open."""
    for key in (OWNER, "principal", "sub"):
        value = assigns.get(key)
        if value is not None:
            return str(value)
    return None

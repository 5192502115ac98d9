"""SEP-2643 (Draft): structured authorization denials, added to the resource's 403 refusals.

An operation refused for want of scopes (403 ``insufficient_scope``) also carries, with
``OAuthResource(sep2643=True)``, the draft's transport-agnostic envelope in the JSON-RPC
error: ``data.authorization`` = ``{"reason": "insufficient_authorization",
"authorizationContextId": "authzctx_..."}``. The ``WWW-Authenticate`` challenge stays the
authority on HTTP; the envelope classifies the denial and gives a correlation handle the
client echoes on its retry in ``_meta`` under :data:`CONTEXT_META` (the Suite takes the key,
and a tool reads it in ``request.meta``). The handle is never authorization material: a
retry is judged by its token alone, with or without it. The error code the draft leaves
unassigned (``<AUTHORIZATION_DENIAL_TBD>``): genmcp keeps the refusal's own.

Pure: ``secrets`` only.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["CONTEXT_META", "REASON", "with_denial"]

CONTEXT_META: Final = "io.modelcontextprotocol/authorization-context-id"
"""The ``_meta`` key a client echoes the ``authorizationContextId`` under on its retry."""
REASON: Final = "insufficient_authorization"
"""The one ``reason`` the draft defines."""


def with_denial(body: Mapping[str, Any]) -> dict[str, Any]:
    """``body`` (a JSON-RPC error response) with the envelope in ``error.data``, a new
    ``authorizationContextId`` each time."""
    error = dict(body["error"])
    data = dict(error.get("data") or {})
    data["authorization"] = {
        "reason": REASON,
        "authorizationContextId": "authzctx_" + secrets.token_urlsafe(12),
    }
    error["data"] = data
    return {**body, "error": error}

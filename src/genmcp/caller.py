"""``Caller``: who asks, as a visibility decision reads it (``genmcp.visibility``).

The ``visible(caller, arg)`` hook of a tool, prompt or resource repository and a Suite's
``decide(caller, item)`` policy get one: the request's assigns (what auth put there), its
principal, its tenant and its ``_meta``.

Pure: imports nothing from genmcp.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, final

__all__ = ["TENANT", "Caller"]

TENANT: Final = "tenant"
"""The assigns key holding the caller's tenant (set by ``genmcp.fastapi.tenants``)."""


@final
@dataclass(frozen=True, slots=True)
class Caller:
    """Who asks: what a visibility decision reads.

    Attributes:
        assigns: what auth put in ``channel.assigns`` (``principal``, claims, scopes ...).
        principal: the owner key of the caller (``storage.owner.owner_of``), None when open.
        tenant: the caller's tenant (``assigns["tenant"]``), None without tenancy.
        meta: the request's ``_meta`` (empty when a stream decides on a notification).
    """

    assigns: Mapping[str, Any]
    principal: str | None
    tenant: str | None
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def scopes(self) -> frozenset[str]:
        """The scopes the caller holds (empty without OAuth)."""
        return frozenset(self.assigns.get("effective_scopes") or ())

    @property
    def roles(self) -> frozenset[str]:
        """``assigns["roles"]``, else the token's ``roles`` claim, as a set (empty when
        neither is there)."""
        roles = self.assigns.get("roles")
        if roles is None:
            claims = self.assigns.get("claims")
            roles = claims.get("roles") if isinstance(claims, Mapping) else None
        if isinstance(roles, str):
            return frozenset(roles.split())
        return frozenset(role for role in roles or () if isinstance(role, str))

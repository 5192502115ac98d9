"""Scope decisions: the hierarchy hook, the per-request check and list visibility.

A :data:`ScopeHierarchy` expands granted scopes into every scope they imply (a broad
``admin`` implying ``notes:write``); :func:`implications` builds one from a mapping.
:func:`scope_challenge` is the whole decision for one operation: given the caller's assigns
and the scopes the operation needs, None (allowed) or the 403 ``insufficient_scope``
challenge naming *every* needed scope at once (not only the missing ones, so the client can
ask for all of them in one go). :func:`may_use` is the same test for list filtering.

Pure: no asyncio, no web framework.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from genmcp.auth.challenges import Challenge

__all__ = [
    "ScopeHierarchy",
    "effective_scopes",
    "implications",
    "may_use",
    "merge_scopes",
    "scope_challenge",
]

ScopeHierarchy = Callable[[frozenset[str]], Iterable[str]]
"""Granted scopes -> every scope they imply (the granted ones included or not)."""


def implications(implies: Mapping[str, Iterable[str]]) -> ScopeHierarchy:
    """A hierarchy from ``{"admin": ["notes:write", ...], ...}``, applied transitively."""
    table = {broad: frozenset(narrow) for broad, narrow in implies.items()}

    def expand(granted: frozenset[str]) -> frozenset[str]:
        found, todo = set(granted), list(granted)
        while todo:
            for narrow in table.get(todo.pop(), ()):
                if narrow not in found:
                    found.add(narrow)
                    todo.append(narrow)
        return frozenset(found)

    return expand


def effective_scopes(granted: frozenset[str], hierarchy: ScopeHierarchy | None) -> frozenset[str]:
    """The granted scopes plus what the hierarchy says they imply."""
    return granted if hierarchy is None else granted | frozenset(hierarchy(granted))


def merge_scopes(*groups: Iterable[str]) -> tuple[str, ...]:
    """Every scope of the groups, in first-seen order, without duplicates."""
    return tuple(dict.fromkeys(scope for group in groups for scope in group))


def _held(assigns: Mapping[str, Any]) -> frozenset[str]:
    held = assigns.get("effective_scopes")
    if held is None:
        held = assigns.get("scopes", ())
    return frozenset(held)


def may_use(assigns: Mapping[str, Any], required: Iterable[str]) -> bool:
    """True when the caller holds every scope in ``required`` (after the hierarchy)."""
    return frozenset(required) <= _held(assigns)


def scope_challenge(
    assigns: Mapping[str, Any], required: Iterable[str], resource_metadata: str
) -> Challenge | None:
    """None when the caller may proceed, else the 403 naming every scope ``required`` has."""
    needed = merge_scopes(required)
    if may_use(assigns, needed):
        return None
    return Challenge(
        "insufficient_scope",
        needed,
        resource_metadata,
        "the access token lacks a scope this operation needs",
    )

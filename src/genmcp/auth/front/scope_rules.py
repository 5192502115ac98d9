"""The front's scope rules: which upstream scopes each MCP scope needs, and what is granted.

``AuthorizationFront(scope_map=...)`` maps every supported MCP scope to the upstream scopes
it needs (``[]``: anyone who signs in upstream). A supported scope without a rule is refused
when the front is built, never granted by omission. At sign-in the upstream is asked for the
union of the asked scopes' needs, and an MCP scope is granted only when the upstream granted
all its needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["check_rules", "granted", "upstream_scopes"]


def check_rules(
    supported: tuple[str, ...], defaults: tuple[str, ...], rules: Mapping[str, tuple[str, ...]]
) -> None:
    """Every supported scope has a grant rule, and every rule and default a supported scope."""
    unruled = [scope for scope in supported if scope not in rules]
    if unruled:
        raise ValueError(
            f"scope_map has no rule for {', '.join(unruled)}: map each supported scope to the "
            "upstream scopes it needs ([] grants it to anyone who signs in upstream)"
        )
    stray = [scope for scope in [*rules, *defaults] if scope not in supported]
    if stray:
        raise ValueError(f"not in scopes_supported: {', '.join(dict.fromkeys(stray))}")


def upstream_scopes(rules: Mapping[str, tuple[str, ...]], scope: Iterable[str]) -> list[str]:
    """The upstream scopes to ask for when the client asks for ``scope``."""
    return [up for mcp in scope for up in rules.get(mcp, ())]


def granted(
    rules: Mapping[str, tuple[str, ...]], scope: tuple[str, ...], tokens: Mapping[str, Any]
) -> tuple[str, ...]:
    """The MCP scopes whose upstream scopes the upstream granted (all asked for, when its
    answer names no ``scope``: RFC 6749 §5.1)."""
    answer = tokens.get("scope")
    if not isinstance(answer, str):
        return tuple(s for s in scope if s in rules)
    upstream = set(answer.split())
    return tuple(s for s in scope if s in rules and set(rules[s]) <= upstream)

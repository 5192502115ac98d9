"""auth.front.scope_rules: every supported scope has a grant rule, and a scope is granted
only when the upstream granted what it needs (end to end, with a real upstream, in
test_front.py::test_mapped_scopes_are_asked_upstream_and_granted_only_if_granted_there).
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.auth.front import AuthorizationFront, Upstream
from genmcp.auth.front.scope_rules import granted, upstream_scopes

from .conftest import FRONT, MCP


def test_a_scope_without_a_grant_rule_is_refused_at_construction() -> None:
    def front(**options: Any) -> AuthorizationFront:
        return AuthorizationFront(issuer=FRONT, upstream=Upstream("https://idp.example", "c", "s"),
                                  resource=MCP, **options)  # fmt: skip

    # before: "admin" (no rule) was granted to anyone who could sign in upstream
    with pytest.raises(ValueError, match="no rule for admin"):
        front(scopes_supported=["mcp:tools", "admin"], scope_map={"mcp:tools": []})
    with pytest.raises(ValueError, match="no rule for mcp:tools"):
        front(scopes_supported=["mcp:tools"])
    with pytest.raises(ValueError, match="not in scopes_supported: typo"):
        front(scopes_supported=["mcp:tools"], scope_map={"mcp:tools": [], "typo": []})
    ruled = front(scopes_supported=["mcp:tools", "admin"],
                  scope_map={"mcp:tools": [], "admin": ["admin"]})  # fmt: skip
    asked = ("mcp:tools", "admin")
    assert ruled.scope_map == {"mcp:tools": (), "admin": ("admin",)}
    assert granted(ruled.scope_map, asked, {"scope": "openid"}) == ("mcp:tools",)
    assert granted(ruled.scope_map, asked, {"scope": "openid admin"}) == asked
    assert granted(ruled.scope_map, asked, {}) == asked  # no scope in the answer: as asked
    assert upstream_scopes(ruled.scope_map, asked) == ["admin"]

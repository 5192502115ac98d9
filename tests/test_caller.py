"""``genmcp.caller.Caller``: the scopes and roles a visibility decision reads from the assigns."""

from __future__ import annotations

from genmcp import Caller


def test_scopes_are_the_effective_scopes_auth_put_in_the_assigns() -> None:
    caller = Caller({"effective_scopes": ["notes:read", "notes:write"]}, "u1", None)
    assert caller.scopes == frozenset({"notes:read", "notes:write"})
    assert Caller({}, None, None).scopes == frozenset()


def test_roles_come_from_the_assigns_else_the_tokens_claim_else_none() -> None:
    assert Caller({"roles": ["admin", 7]}, "a", None).roles == frozenset({"admin"})
    assert Caller({"roles": "admin member"}, "a", None).roles == frozenset({"admin", "member"})
    claimed = Caller({"claims": {"roles": ["member"]}}, "b", "acme")
    assert claimed.roles == frozenset({"member"}) and claimed.tenant == "acme"
    assert Caller({"claims": "not a mapping"}, None, None).roles == frozenset()
    assert Caller({}, None, None).meta == {}

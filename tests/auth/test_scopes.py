"""auth.scopes: the scope hierarchy, what a caller holds, and the 403 naming what it lacks."""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.auth import implications, may_use, scope_challenge
from genmcp.auth.scopes import effective_scopes, merge_scopes

METADATA = "https://h.example/.well-known/oauth-protected-resource"


def test_hierarchy_is_transitive() -> None:
    expand = implications({"admin": ["notes:write"], "notes:write": ["notes:read"]})
    assert expand(frozenset({"admin"})) == {"admin", "notes:write", "notes:read"}


def test_a_cyclic_hierarchy_ends_and_implies_nothing_upward() -> None:
    expand = implications({"a": ["b"], "b": ["a", "c"]})
    assert expand(frozenset({"b"})) == {"a", "b", "c"}
    assert expand(frozenset({"c"})) == {"c"}
    assert expand(frozenset()) == frozenset()


def test_effective_scopes_add_what_the_hierarchy_implies() -> None:
    granted = frozenset({"admin"})
    assert effective_scopes(granted, None) is granted
    assert effective_scopes(granted, lambda held: ["x"]) == {"admin", "x"}  # granted ones kept


def test_merge_scopes_keeps_first_seen_order_once() -> None:
    assert merge_scopes(["b", "a"], (), ["a", "c", "b"]) == ("b", "a", "c")
    assert merge_scopes() == ()


@pytest.mark.parametrize(
    ("assigns", "required", "allowed"),
    [
        ({"effective_scopes": frozenset({"a", "b"})}, ["a", "b"], True),
        ({"effective_scopes": frozenset({"a"})}, ["a", "b"], False),
        ({"effective_scopes": frozenset({"a"}), "scopes": ("a", "b")}, ["b"], False),  # effective
        ({"scopes": ("a", "b")}, ["b"], True),  # no hierarchy applied: the granted ones
        ({}, [], True),
        ({}, ["a"], False),
    ],
)
def test_may_use(assigns: dict[str, Any], required: list[str], allowed: bool) -> None:
    assert may_use(assigns, required) is allowed


def test_scope_challenge_is_none_when_the_caller_may_proceed() -> None:
    assert scope_challenge({"scopes": ("a",)}, ["a"], METADATA) is None


def test_scope_challenge_names_every_required_scope() -> None:
    challenge = scope_challenge({"scopes": ("a",)}, ["a", "b", "a"], METADATA)
    assert challenge is not None
    assert (challenge.error, challenge.status) == ("insufficient_scope", 403)
    assert challenge.scopes == ("a", "b")  # the held one too: what the operation needs
    assert challenge.resource_metadata == METADATA
    assert challenge.description == "the access token lacks a scope this operation needs"

"""auth.tokens: canonical resource URIs, audience matching, the verified token and its scopes."""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.auth import AccessToken, audience_matches
from genmcp.auth.tokens import canonical_uri, scopes_of


@pytest.mark.parametrize(
    ("uri", "canonical"),
    [
        ("HTTPS://MCP.Example.COM/mcp", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com:443/mcp/", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com/mcp#frag", "https://mcp.example.com/mcp"),
        ("http://127.0.0.1:8000/MCP", "http://127.0.0.1:8000/MCP"),  # the path keeps its case
    ],
)
def test_canonical_uri(uri: str, canonical: str) -> None:
    assert canonical_uri(uri) == canonical


@pytest.mark.parametrize(
    ("uri", "canonical"),
    [
        ("http://[::1]:80/mcp", "http://[::1]/mcp"),  # an IPv6 host keeps its brackets
        ("http://[::1]:8080/mcp", "http://[::1]:8080/mcp"),
        ("http://h.example:443/mcp", "http://h.example:443/mcp"),  # 443 is https's default only
        ("https://h.example/mcp?tenant=a", "https://h.example/mcp?tenant=a"),  # the query stays
        ("  https://h.example/  ", "https://h.example"),
        ("https://h.example:99999/mcp", "https://h.example/mcp"),  # an impossible port is dropped
    ],
)
def test_canonical_uri_edges(uri: str, canonical: str) -> None:
    assert canonical_uri(uri) == canonical


def test_parent_audience_only_on_opt_in() -> None:
    for parent in ("https://h.example/", "https://h.example"):
        assert not audience_matches([parent], "https://h.example/mcp", accept_parent=False)
        assert audience_matches([parent], "https://h.example/mcp", accept_parent=True)
    assert not audience_matches(
        ["https://h.example/m"], "https://h.example/mcp", accept_parent=True
    )
    assert not audience_matches(
        ["https://h.example.evil/"], "https://h.example/mcp", accept_parent=True
    )


@pytest.mark.parametrize(
    ("audience", "accept_parent", "matches"),
    [
        (["HTTPS://H.example:443/a/mcp/"], False, True),  # compared canonically
        (["https://other.example/mcp", "https://h.example/a/mcp"], False, True),  # any value
        ([], True, False),
        ([""], True, False),  # an empty aud is no parent of everything
        (["http://h.example/a"], True, False),  # another scheme
        (["https://h.example:8443/"], True, False),  # another port
        (["https://h.example/?x=1"], True, False),  # a parent with a query names no path
        (["https://h.example/a/"], True, True),  # a parent path, on opt-in
        (["https://h.example/a/mcp/tools"], True, False),  # a child is no parent
    ],
)
def test_audience_matches(audience: list[str], accept_parent: bool, matches: bool) -> None:
    resource = "https://h.example/a/mcp"
    assert audience_matches(audience, resource, accept_parent=accept_parent) is matches


@pytest.mark.parametrize(
    ("claims", "scopes"),
    [
        ({"scope": "a b  c"}, {"a", "b", "c"}),
        ({"scp": ["a", 7, "b", None]}, {"a", "b"}),
        ({"scp": "a b"}, {"a", "b"}),
        ({"scope": "x", "scp": ["y"]}, {"x"}),  # scope wins
        ({"scope": 5, "scp": ["y"]}, {"y"}),  # a scope that is no string is skipped
        ({}, set()),
    ],
)
def test_scopes_of(claims: dict[str, Any], scopes: set[str]) -> None:
    assert scopes_of(claims) == scopes


def test_the_principal_is_the_subject_else_the_client() -> None:
    assert AccessToken("alice", frozenset(), (), client_id="app").principal == "alice"
    assert AccessToken(None, frozenset(), (), client_id="app").principal == "app"
    assert AccessToken(None, frozenset(), ()).principal is None


def test_assigns_carry_what_the_token_says_never_the_token() -> None:
    claims = {"sub": "alice", "tenant": "t1"}
    token = AccessToken(
        "alice", frozenset({"b", "a"}), ("r",), client_id="app", issuer="https://as", claims=claims
    )
    assigns = token.assigns(["a", "b", "implied"])
    assert assigns == {
        "principal": "alice",
        "owner": '["user","https://as","alice"]',
        "sub": "alice",
        "client_id": "app",
        "issuer": "https://as",
        "scopes": ("a", "b"),
        "effective_scopes": frozenset({"a", "b", "implied"}),
        "claims": claims,
    }
    assigns["claims"]["tenant"] = "t2"  # a copy: the token's claims stay as verified
    assert token.claims["tenant"] == "t1"


@pytest.mark.parametrize("separator", ["\u3000", "\u00a0", "\x1f", "\t", "\n", "\u2003"])
def test_scopes_split_on_the_space_only(separator: str) -> None:
    granted = scopes_of({"scope": f"mcp:tools{separator}admin"})
    assert granted == {f"mcp:tools{separator}admin"} and "admin" not in granted
    assert scopes_of({"scope": "  a  b "}) == {"a", "b"}  # runs of spaces are one separator

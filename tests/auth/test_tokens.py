"""The pure parts of genmcp.auth, and the JWKS refetch limit against the real AS."""

from __future__ import annotations

import pytest

from genmcp.auth import InvalidToken, JWTVerifier, audience_matches, implications
from genmcp.auth.challenges import quote
from genmcp.auth.metadata import metadata_paths, metadata_url
from genmcp.auth.redact import redact_query
from genmcp.auth.tokens import canonical_uri
from support.authorization_server import AuthorizationServer
from support.oauth import RESOURCE
from support.www_authenticate import parse_bearer


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


@pytest.mark.parametrize("value", ['a"b', "a\\b", 'x", scope="admin', "a\r\nSet-Cookie: x=1", "é"])
def test_quote_round_trips_through_a_strict_parser(value: str) -> None:
    parsed = parse_bearer(f"Bearer scope={quote(value)}")
    assert parsed == {"scope": "".join(ch for ch in value if " " <= ch <= "~")}


def test_hierarchy_is_transitive() -> None:
    expand = implications({"admin": ["notes:write"], "notes:write": ["notes:read"]})
    assert expand(frozenset({"admin"})) == {"admin", "notes:write", "notes:read"}


def test_metadata_paths_and_url() -> None:
    assert metadata_paths("https://h.example/mcp") == (
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    )
    assert metadata_paths("https://h.example") == ("/.well-known/oauth-protected-resource",)
    assert metadata_url("https://h.example/a/mcp") == (
        "https://h.example/.well-known/oauth-protected-resource/a/mcp"
    )


def test_redact_query() -> None:
    line = "GET /mcp?x=1&access_token=abc.def&token=t HTTP/1.1"
    assert redact_query(line) == "GET /mcp?x=1&access_token=[redacted]&token=[redacted] HTTP/1.1"


async def test_unknown_kids_refetch_the_jwks_at_most_once_per_interval(
    authorization_server: AuthorizationServer,
) -> None:
    verifier = JWTVerifier(authorization_server.issuer)  # jwks_uri discovered
    good = authorization_server.token(RESOURCE)
    assert (await verifier.verify(good)).subject == "alice"
    assert verifier.jwks.fetches == 1
    claims = authorization_server.claims(RESOURCE)
    for index in range(25):
        forged = authorization_server.forge(claims, headers={"kid": f"made-up-{index}"})
        with pytest.raises(InvalidToken):
            await verifier.verify(forged)
    assert verifier.jwks.fetches == 1  # the last fetch was < 60 s ago
    verifier.jwks.min_refresh_s = 0
    with pytest.raises(InvalidToken):
        await verifier.verify(authorization_server.forge(claims, headers={"kid": "new"}))
    assert verifier.jwks.fetches == 2  # an unknown kid refetches once the interval passed

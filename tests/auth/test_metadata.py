"""auth.metadata: RFC 9728 protected resource metadata, its well-known paths and document."""

from __future__ import annotations

import json
from typing import Any

import pytest

from genmcp.auth.metadata import metadata_document, metadata_paths, metadata_url


def test_metadata_paths_and_url() -> None:
    assert metadata_paths("https://h.example/mcp") == (
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    )
    assert metadata_paths("https://h.example") == ("/.well-known/oauth-protected-resource",)
    assert metadata_url("https://h.example/a/mcp") == (
        "https://h.example/.well-known/oauth-protected-resource/a/mcp"
    )


def test_a_trailing_slash_and_the_query_do_not_reach_the_metadata_url() -> None:
    assert metadata_paths("https://h.example/") == ("/.well-known/oauth-protected-resource",)
    assert metadata_url("https://h.example:8443/mcp/?x=1") == (
        "https://h.example:8443/.well-known/oauth-protected-resource/mcp"
    )


def test_the_document_is_compact_sorted_json() -> None:
    encoded = metadata_document("https://h.example/mcp", ["https://as.example"])
    assert encoded == (
        b'{"authorization_servers":["https://as.example"],'
        b'"bearer_methods_supported":["header"],"resource":"https://h.example/mcp"}'
    )


def test_the_document_lists_scopes_once_without_offline_access_and_the_names() -> None:
    document = json.loads(
        metadata_document(
            "https://h.example/mcp",
            iter(["https://as1.example", "https://as2.example"]),
            scopes_supported=["b", "offline_access", "a", "b"],
            resource_name="Notes",
            resource_documentation="https://h.example/docs",
        )
    )
    assert document == {
        "resource": "https://h.example/mcp",
        "authorization_servers": ["https://as1.example", "https://as2.example"],
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["b", "a"],
        "resource_name": "Notes",
        "resource_documentation": "https://h.example/docs",
    }


def test_only_offline_access_means_no_scopes_listed() -> None:
    document = json.loads(
        metadata_document("https://h.example", ["https://as"], scopes_supported=["offline_access"])
    )
    assert "scopes_supported" not in document


@pytest.mark.parametrize(
    ("resource", "servers", "message"),
    [
        ("https://h.example/mcp", [], "at least one authorization server"),
        ("ftp://h.example/mcp", ["https://as"], "absolute http"),
        ("/mcp", ["https://as"], "absolute http"),
        ("https://h.example/mcp#top", ["https://as"], "without fragment"),
    ],
)
def test_a_bad_resource_or_no_server_is_refused(
    resource: str, servers: list[Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        metadata_document(resource, servers)

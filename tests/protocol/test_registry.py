"""`genmcp.protocol.registry`: server.json and the draft Server Card, against their schemas.

Every document built here is validated with the schemas the registry and the SEP-2127
working group publish (vendored in tests/support/registry and tests/support/server_card).
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.protocol.registry import (
    SERVER_CARD_SCHEMA,
    SERVER_JSON_SCHEMA,
    check_registry_name,
    package,
    server_card,
    server_json,
)
from support.registry import server_card_errors, server_json_errors

INFO: dict[str, Any] = {
    "name": "weather",
    "version": "1.2.0",
    "title": "Weather",
    "icons": [
        {"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]},
        {"src": "data:image/png;base64,AAAA"},  # not HTTPS: the registry refuses it
    ],
}


def test_a_full_server_json_validates_against_the_registry_schema() -> None:
    document = server_json(
        INFO,
        name="io.github.you/weather",
        description="Forecasts for any city",
        url="https://weather.example.com/mcp",
        packages=[package("pypi", "weather-mcp", "1.2.0", runtime_hint="uvx")],
        repository={"url": "https://github.com/you/weather", "source": "github"},
        website_url="https://weather.example.com",
    )
    assert server_json_errors(document) == []
    assert document["$schema"] == SERVER_JSON_SCHEMA
    assert document["version"] == "1.2.0" and document["title"] == "Weather"
    assert document["remotes"] == [
        {"type": "streamable-http", "url": "https://weather.example.com/mcp"}
    ]
    assert [icon["src"] for icon in document["icons"]] == ["https://example.com/icon.png"]


def test_a_minimal_server_json_validates() -> None:
    document = server_json(
        {"name": "x", "version": "0.1.0", "description": "From serverInfo"}, name="io.x/y"
    )
    assert server_json_errors(document) == []
    assert document["description"] == "From serverInfo" and "remotes" not in document


def test_the_schema_check_can_fail() -> None:
    assert server_json_errors({"name": "no-slash", "version": "1"}) != []


@pytest.mark.parametrize(
    ("options", "why"),
    [
        ({"name": "weather"}, "reverse-DNS"),
        ({"name": "io.x/y", "description": "x" * 101}, "1-100"),
        ({"name": "io.x/y", "description": ""}, "1-100"),
        ({"name": "io.x/y", "url": "ftp://h/mcp"}, "http"),
        ({"name": "io.x/y", "website_url": "not a url"}, "http"),
        ({"name": "io.x/y", "repository": {"url": "https://g"}}, "source"),
    ],
)
def test_what_the_schema_would_refuse_is_a_value_error(options: dict[str, Any], why: str) -> None:
    options.setdefault("description", "ok")
    with pytest.raises(ValueError, match=why):
        server_json(INFO, **options)


def test_a_misspelt_keyword_is_refused_as_python_refuses_one() -> None:
    with pytest.raises(TypeError, match=r"server_json\(\) got an unexpected .*'website'"):
        server_json(INFO, name="io.x/y", description="ok", website="https://h")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"server_card\(\) got an unexpected .*'repo'"):
        server_card(INFO, name="io.x/y", url="https://h/mcp", draft=True, repo={})  # type: ignore[call-arg]


def test_a_package_needs_a_fixed_version() -> None:
    with pytest.raises(ValueError, match="latest"):
        package("npm", "x", "latest")
    assert check_registry_name("io.github.a-b/c_d.e") == "io.github.a-b/c_d.e"


def test_a_server_card_needs_draft_and_validates_against_the_draft_schema() -> None:
    with pytest.raises(ValueError, match="draft"):
        server_card(INFO, name="io.x/y", url="https://h/mcp", description="d", draft=False)
    card = server_card(
        INFO,
        name="io.github.you/weather",
        url="https://weather.example.com/mcp",
        description="Forecasts for any city",
        protocol_versions=["2026-07-28", "2025-11-25"],
        draft=True,
    )
    assert server_card_errors(card) == []
    assert card["$schema"] == SERVER_CARD_SCHEMA
    assert card["remotes"][0]["supportedProtocolVersions"] == ["2026-07-28", "2025-11-25"]
    assert "packages" not in card  # a card describes remote connectivity only
    assert server_card_errors({**card, "$schema": "https://example.com/x"}) != []

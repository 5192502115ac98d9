"""protocol.apps: the MCP Apps extension's wire shapes (``_meta.ui``) and its negotiation.

The negotiation test moved here from test_apps.py (which keeps AppView and tool links as a
tool author writes them); then each ``_meta.ui`` builder and its refusals.
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.protocol.apps import (
    APP_MIME_TYPE,
    UI_EXTENSION,
    check_ui_uri,
    client_renders_apps,
    resource_ui_meta,
    server_settings,
    tool_ui_meta,
)

UI = UI_EXTENSION


def test_client_support_needs_the_extension_with_the_app_mime_type() -> None:
    key = "io.modelcontextprotocol/clientCapabilities"
    assert client_renders_apps(
        {key: {"extensions": {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}}}
    )
    assert not client_renders_apps({key: {"extensions": {UI: {"mimeTypes": ["text/html"]}}}})
    assert not client_renders_apps({key: {"extensions": {UI: {}}}})
    assert not client_renders_apps({key: {"extensions": []}})
    assert not client_renders_apps({})


def test_the_server_advertises_the_app_mime_type() -> None:
    assert server_settings() == {"mimeTypes": [APP_MIME_TYPE]}
    assert server_settings() is not server_settings()  # a fresh dict each time


@pytest.mark.parametrize("uri", ["ui://", "https://x/a", "ui://a b", "ui://a\x00", 5, None])
def test_a_ui_uri_starts_with_ui_and_has_no_space(uri: Any) -> None:
    with pytest.raises(ValueError, match=r"^V: "):
        check_ui_uri(uri, "V")


def test_tool_ui_meta() -> None:
    assert tool_ui_meta(None, None, "T") is None
    assert tool_ui_meta("ui://chart", None, "T") == {"resourceUri": "ui://chart"}
    assert tool_ui_meta("ui://c", ("app", "model"), "T") == {
        "resourceUri": "ui://c",
        "visibility": ["app", "model"],
    }
    assert tool_ui_meta(None, ["app"], "T") == {"visibility": ["app"]}


@pytest.mark.parametrize(
    ("visibility", "message"),
    [
        ("app", "visibility must be a list"),
        ([], "non-empty list of distinct"),
        (["app", "app"], "non-empty list of distinct"),
        (["user"], "non-empty list of distinct"),
    ],
)
def test_a_bad_visibility_is_refused(visibility: Any, message: str) -> None:
    with pytest.raises(ValueError, match=f"^T: .*{message}"):
        tool_ui_meta(None, visibility, "T")


def resource_meta(**options: Any) -> dict[str, Any]:
    given = {"csp": None, "permissions": None, "domain": None, "prefers_border": None}
    return resource_ui_meta(**{**given, **options}, owner="V")


def test_resource_ui_meta_in_wire_names() -> None:
    assert resource_meta() == {}
    assert resource_meta(
        csp={"connect_domains": ["https://api.example.com/"], "frameDomains": ["https://*.x.io"]},
        permissions=["camera", "clipboard_write"],
        domain="a.example.com",
        prefers_border=False,
    ) == {
        "csp": {
            "connectDomains": ["https://api.example.com"],
            "frameDomains": ["https://*.x.io"],
        },
        "permissions": {"camera": {}, "clipboardWrite": {}},
        "domain": "a.example.com",
        "prefersBorder": False,
    }
    assert resource_meta(permissions={"microphone": {}})["permissions"] == {"microphone": {}}
    assert resource_meta(csp={"base_uri_domains": ["wss://h.example:8443"]})["csp"] == {
        "baseUriDomains": ["wss://h.example:8443"]
    }


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"csp": ["https://x"]}, "csp must be a mapping"),
        ({"csp": {"script_domains": []}}, "unknown csp key 'script_domains'"),
        ({"csp": {"connectDomains": "https://x.example"}}, "csp connectDomains must be a list"),
        ({"csp": {"connectDomains": [5]}}, "5 is not an origin string"),
        ({"csp": {"connectDomains": ["ftp://x.example"]}}, "is not an origin such as"),
        ({"csp": {"connectDomains": ["https://x.example/path"]}}, "is not an origin"),
        ({"csp": {"connectDomains": ["https://x.example?q"]}}, "is not an origin"),
        ({"csp": {"connectDomains": ["https://x.example 'unsafe-inline'"]}}, "is not an origin"),
        ({"csp": {"connectDomains": ["https://*"]}}, "is not an origin"),
        ({"permissions": "camera"}, "permissions must be a list"),
        ({"permissions": ["usb"]}, "unknown permission 'usb'"),
        ({"domain": "localhost"}, "domain must be a host name"),
        ({"domain": "https://a.example"}, "domain must be a host name"),
        ({"prefers_border": 1}, "prefers_border must be True or False"),
    ],
)
def test_bad_resource_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^V: .*{message}"):
        resource_meta(**options)

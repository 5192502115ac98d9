"""examples/apps.py (MCP Apps) over a real server, in both eras, against the official schemas.

Every server message is checked by the clients against the MCP schema of its revision
(`support.schema`; legacy also strictly: no field the revision lacks). The extension's own
shapes (`_meta.ui` of the tool and of the view) are checked against the JSON Schema the
`@modelcontextprotocol/ext-apps` npm package publishes (`support.browser.check_ext_apps`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import httpx
import pytest

from support import examples
from support.browser import check_ext_apps
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServers

apps = examples.load("apps")

UI: Final = "io.modelcontextprotocol/ui"
MIME: Final = "text/html;profile=mcp-app"
VIEW: Final = "ui://sales/chart"
UI_CLIENT: Final = {"extensions": {UI: {"mimeTypes": [MIME]}}}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(apps.app)
    finally:
        live.stop_all()


@pytest.fixture
def client(base: str, modern_client: Any) -> ModernClient:
    made: ModernClient = modern_client(base, transport=httpx.AsyncHTTPTransport(verify=False))
    return made


async def request(client: ModernClient, method: str, params: Any = None) -> dict[str, Any]:
    reply = await client.request(method, params or {}, capabilities=UI_CLIENT)
    assert reply.status == 200, reply.body
    result: dict[str, Any] = reply.result
    return result


# -- 2026-07-28 --------------------------------------------------------------------------


async def test_discover_advertises_the_ui_extension_and_the_server_icon(
    client: ModernClient,
) -> None:
    result = await request(client, "server/discover")
    assert result["capabilities"]["extensions"] == {UI: {"mimeTypes": [MIME]}}
    server_info = result["_meta"]["io.modelcontextprotocol/serverInfo"]
    assert server_info["icons"] == [apps.ICON]


async def test_tools_link_to_the_view_and_the_app_only_tool_says_so(client: ModernClient) -> None:
    tools = {tool["name"]: tool for tool in (await request(client, "tools/list"))["tools"]}
    assert set(tools) == {"sales_chart", "record_sale"}
    assert tools["sales_chart"]["_meta"]["ui"] == {"resourceUri": VIEW}
    assert tools["record_sale"]["_meta"]["ui"] == {"resourceUri": VIEW, "visibility": ["app"]}
    assert tools["sales_chart"]["icons"] == [apps.ICON]
    for tool in tools.values():
        check_ext_apps("McpUiToolMeta", tool["_meta"]["ui"])


async def test_the_view_is_listed_once_and_read_as_an_mcp_app(client: ModernClient) -> None:
    listed = (await request(client, "resources/list"))["resources"]
    assert [item["uri"] for item in listed] == [VIEW]  # two tools link it: served once
    [item] = listed
    assert (item["name"], item["mimeType"], item["icons"]) == (
        "sales_chart_view",
        MIME,
        [apps.ICON],
    )
    assert item["_meta"]["ui"] == {"prefersBorder": True}
    read = await request(client, "resources/read", {"uri": VIEW})
    [contents] = read["contents"]
    assert (contents["uri"], contents["mimeType"]) == (VIEW, MIME)
    assert contents["text"].startswith("<!DOCTYPE html>") and contents["text"] == apps.VIEW_HTML
    check_ext_apps("McpUiResourceMeta", contents["_meta"]["ui"])
    assert contents["_meta"]["ui"] == {"prefersBorder": True}
    assert (read["cacheScope"], read["ttlMs"]) == ("public", 300_000)
    templates = await request(client, "resources/templates/list")
    assert templates["resourceTemplates"] == []


async def test_the_app_only_tool_records_a_sale_and_returns_what_the_view_draws(
    client: ModernClient,
) -> None:
    before = await request(
        client, "tools/call", {"name": "sales_chart", "arguments": {"region": "south"}}
    )
    total = before["structuredContent"]["total"]
    arguments = {"region": "south", "month": "may", "amount": 7}
    after = await request(client, "tools/call", {"name": "record_sale", "arguments": arguments})
    assert after["structuredContent"]["total"] == total + 7
    assert after["content"][0]["text"].startswith("Recorded 7 for may.")
    refused = {"region": "south", "month": "may", "amount": 0}
    bad = await request(client, "tools/call", {"name": "record_sale", "arguments": refused})
    assert bad["isError"] is True  # the input schema holds: minimum 1


# -- the 2025 revisions ------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18"])
async def test_legacy_sessions_get_the_extension_links_and_view_meta(
    base: str, version: str
) -> None:
    async with LegacyClient(base, version=version, capabilities=UI_CLIENT) as legacy:
        opened = await legacy.open()
        capabilities = opened.result["capabilities"]
        assert capabilities["extensions"] == {UI: {"mimeTypes": [MIME]}}
        icons = opened.result["serverInfo"].get("icons")
        assert icons == ([apps.ICON] if version == "2025-11-25" else None)
        tools = {t["name"]: t for t in (await legacy.request("tools/list")).result["tools"]}
        assert tools["record_sale"]["_meta"]["ui"] == {"resourceUri": VIEW, "visibility": ["app"]}
        assert ("icons" in tools["sales_chart"]) is (version == "2025-11-25")
        [item] = (await legacy.request("resources/list")).result["resources"]
        assert (item["uri"], item["mimeType"]) == (VIEW, MIME)
        read = await legacy.request("resources/read", {"uri": VIEW})
        [contents] = read.result["contents"]
        assert contents["mimeType"] == MIME and contents["text"] == apps.VIEW_HTML
        check_ext_apps("McpUiResourceMeta", contents["_meta"]["ui"])
        called = await legacy.request(
            "tools/call", {"name": "sales_chart", "arguments": {"region": "north"}}
        )
        assert called.result["structuredContent"]["region"] == "north"


async def test_a_2025_03_26_session_gets_no_extension_it_could_not_carry(base: str) -> None:
    # That revision has no _meta on Tool or ResourceContents: no link, no CSP, so no extension.
    async with LegacyClient(base, version="2025-03-26", capabilities=UI_CLIENT) as legacy:
        opened = await legacy.open()
        assert "extensions" not in opened.result["capabilities"]
        tools = (await legacy.request("tools/list")).result["tools"]
        assert all("_meta" not in tool and "icons" not in tool for tool in tools)
        read = await legacy.request("resources/read", {"uri": VIEW})
        [contents] = read.result["contents"]
        assert contents["mimeType"] == MIME and "_meta" not in contents

"""``catalogs.apps``: how a Suite serves MCP Apps views, and the extension it advertises.

A tool's ``view=`` brings its ``AppView`` along, served once however many tools link it and
whether or not ``resources=`` lists it again; another class under the same ``ui://`` URI is
refused; a Suite serving a view advertises ``io.modelcontextprotocol/ui``, one serving none
does not. (The views' own options and the tool links are tests/test_apps.py.)
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp import AppView, Result, StaticResource, Suite, Tool, call_tool_result
from genmcp.catalogs.apps import is_view
from genmcp.testing import MCPTestClient

UI = "io.modelcontextprotocol/ui"


class Plain(Tool, name="plain"):
    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(text="ok"))


def suite(**options: Any) -> Suite:
    return Suite(server_name="apps-test", server_version="0", secret_key="k" * 32, **options)


def view(**options: Any) -> type[AppView]:
    options = {"uri": "ui://t/view", "name": "view", "html": "<!DOCTYPE html><p>v", **options}
    return type("ViewUnderTest", (AppView,), {}, **options)


def test_a_view_is_an_appview_class_not_a_pair_or_another_resource() -> None:
    shown = view()
    assert is_view(shown)
    assert not is_view((shown, None))  # a (class, arg) pair is served as listed
    assert not is_view(StaticResource(uri="test://a", name="a", text="A"))
    assert not is_view(Plain)


async def test_a_view_two_tools_link_is_served_once_and_advertised() -> None:
    shown = view()
    chart = type("Chart", (Plain,), {}, name="chart", view=shown)
    refresh = type("Refresh", (Plain,), {}, name="refresh", view=shown, visibility=["app"])
    served = suite(tools=[chart, refresh], resources=[shown])  # listed again: fine
    assert served.capabilities["extensions"] == {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}
    async with MCPTestClient(served) as client:
        listed = (await client.request("resources/list")).result
        assert [item["uri"] for item in listed["resources"]] == ["ui://t/view"]
        tools = {tool["name"]: tool for tool in await client.list_tools()}
    assert tools["refresh"]["_meta"] == {
        "ui": {"resourceUri": "ui://t/view", "visibility": ["app"]}
    }


def test_another_class_under_the_same_ui_uri_is_refused() -> None:
    first, second = view(), view()
    with pytest.raises(ValueError, match="already served"):
        suite(resources=[first, second])


def test_no_view_no_extension() -> None:
    assert "extensions" not in suite(tools=[Plain]).capabilities

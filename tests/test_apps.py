"""AppView, tool links (`view=`, `visibility=`) and icons: checked when built, naming the class.

The served shapes are read through the in-process test client (`genmcp.testing`), which
drives the same relay as HTTP; the HTTP and browser runs are in test_examples_apps*.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp import (
    AppView,
    Prompt,
    ResourceRepo,
    Result,
    StaticResource,
    Suite,
    Tool,
    call_tool_result,
)
from genmcp.testing import MCPTestClient

UI = "io.modelcontextprotocol/ui"
PNG = {"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}


class Plain(Tool, name="plain"):
    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(text="ok"))


def suite(**options: Any) -> Suite:
    return Suite(server_name="apps-test", server_version="0", secret_key="k" * 32, **options)


def view(**options: Any) -> type[AppView]:
    options = {"uri": "ui://t/view", "name": "view", "html": "<!DOCTYPE html><p>v", **options}
    return type("ViewUnderTest", (AppView,), {}, **options)


# -- AppView options ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"uri": "https://t/view"}, "must start with ui://"),
        ({"uri": "ui://"}, "must start with ui://"),
        ({"uri": "ui://t/a b"}, "whitespace"),
        ({"csp": {"connect_domains": ["ftp://x.example"]}}, "is not an origin"),
        ({"csp": {"connect_domains": ["https://x.example/path"]}}, "is not an origin"),
        ({"csp": {"connect_domains": ["https://x.example; script-src *"]}}, "is not an origin"),
        ({"csp": {"connect_domains": "https://x.example"}}, "must be a list"),
        ({"csp": {"script_domains": []}}, "unknown csp key 'script_domains'"),
        ({"permissions": ["camera", "usb"]}, "unknown permission 'usb'"),
        ({"domain": "not a domain"}, "domain must be a host name"),
        ({"prefers_border": "yes"}, "prefers_border must be True or False"),
        ({"icons": [{"src": "http://x.example/i.png"}]}, "must use https:"),
        ({"html": b"<html>"}, "html= must be the HTML document as a str"),
        ({"colour": "red"}, "unknown AppView option(s) colour"),
    ],
)
def test_bad_view_options_fail_at_class_definition_naming_the_class(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises((ValueError, TypeError), match="ViewUnderTest") as raised:
        view(**options)
    assert message in str(raised.value)


def test_view_meta_uses_the_wire_names() -> None:
    made = view(
        csp={
            "connect_domains": ["https://api.example.com"],
            "resourceDomains": ["https://*.cdn.example"],
        },
        permissions=["camera", "clipboard_write"],
        domain="a1b2.apps.example.com",
        prefers_border=False,
    )
    assert made().ui(None) == {
        "csp": {
            "connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://*.cdn.example"],
        },
        "permissions": {"camera": {}, "clipboardWrite": {}},
        "domain": "a1b2.apps.example.com",
        "prefersBorder": False,
    }


# -- tools linking to views ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"visibility": []}, "non-empty list"),
        ({"visibility": ["model", "model"]}, "distinct"),
        ({"visibility": ["agent"]}, "'model' and 'app'"),
        ({"visibility": "app"}, "must be a list"),
        ({"view": "https://t/view"}, "must start with ui://"),
        ({"icons": [{"src": "https://x.example/i.png", "theme": "blue"}]}, "theme must be"),
    ],
)
def test_bad_tool_links_fail_when_the_suite_is_built(options: dict[str, Any], message: str) -> None:
    linked = type("LinkedTool", (Plain,), {}, name="linked", **options)
    with pytest.raises(ValueError, match="LinkedTool") as raised:
        suite(tools=[linked])
    assert message in str(raised.value)


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


async def test_an_unlisted_view_is_still_read_and_an_async_html_hook_serves_it() -> None:
    class Lazy(AppView, uri="ui://t/lazy", name="lazy", listed=False):
        async def html(self, arg: Any) -> str:
            return f"<!DOCTYPE html><p>{arg}"

    async with MCPTestClient(suite(resources=[(Lazy, "hello")])) as client:
        assert (await client.request("resources/list")).result["resources"] == []
        read = (await client.request("resources/read", {"uri": "ui://t/lazy"})).result
    assert read["contents"][0]["text"] == "<!DOCTYPE html><p>hello"
    assert read["contents"][0]["mimeType"] == "text/html;profile=mcp-app"


# -- icons everywhere ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("icon", "message"),
    [
        ({"src": "javascript:alert(1)"}, "must use https:"),
        ({"src": "https://"}, "must use https:"),
        ({"src": "data:text/html;base64,PGI+"}, "data:image/<type>;base64"),
        ({"src": "data:image/png;base64,@@@"}, "does not decode"),
        ({"src": "data:image/png;base64,AAAA", "mimeType": "image/jpeg"}, "contradicts"),
        ({"src": "https://x.example/i", "mimeType": "text/plain"}, "image/<subtype>"),
        ({"src": "https://x.example/i", "sizes": ["48"]}, "neither WxH nor 'any'"),
        ({"src": "https://x.example/i", "sizes": "48x48"}, "must be a list"),
        ({"src": "https://x.example/i", "mime_type": "image/png"}, "unknown key(s) mime_type"),
        ("https://x.example/i", "must be an object"),
    ],
)
def test_bad_icons_fail_naming_their_owner(icon: Any, message: str) -> None:
    class Greeting(Prompt, name="greeting", icons=[icon]):
        pass

    class Items(ResourceRepo, template="items://{id}", name="item", icons=[icon]):
        pass

    builds = {
        "Suite(server_icons=...)": lambda: suite(server_icons=[icon]),
        "PromptUnderTest": lambda: suite(prompts=[type("PromptUnderTest", (Greeting,), {})]),
        "Items": lambda: suite(resources=[Items]),
        "StaticResource 's://x'": lambda: StaticResource(
            uri="s://x", name="x", text="x", icons=[icon]
        ),
    }
    for owner, build in builds.items():
        with pytest.raises(ValueError) as raised:
            build()
        assert owner in str(raised.value) and message in str(raised.value), owner


async def test_good_icons_reach_every_listing() -> None:
    light = {**PNG, "theme": "light"}

    class Greeting(Prompt, name="greeting", icons=[light]):
        async def get(self, request: Any, channel: Any, arg: Any) -> Any:
            raise AssertionError("not called")

    class Items(ResourceRepo, template="items://{id}", name="item", icons=[PNG]):
        pass

    iconic = type("Iconic", (Plain,), {}, name="iconic", icons=[PNG])
    served = suite(
        tools=[iconic],
        prompts=[Greeting],
        resources=[Items],
        server_icons=[{"src": "data:image/png;base64,AAAA"}],
    )
    assert served.server_info["icons"] == [{"src": "data:image/png;base64,AAAA"}]
    async with MCPTestClient(served) as client:
        assert (await client.list_tools())[0]["icons"] == [PNG]
        assert (await client.request("prompts/list")).result["prompts"][0]["icons"] == [light]
        templates = (await client.request("resources/templates/list")).result["resourceTemplates"]
        assert templates[0]["icons"] == [PNG]

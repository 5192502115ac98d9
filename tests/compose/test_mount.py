"""Mount: another Suite's catalog served by an outer Suite, in-process.

Driven by ``MCPTestClient`` through the outer Suite: names under the namespace, URIs kept,
collisions refused when built, calls with progress, logs and input rounds, the outer's
scopes, the inner's runtime changes heard by the outer's listeners, errors as they are.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from genmcp import (
    Channel,
    Error,
    InputRequired,
    Mount,
    Prompt,
    PromptRequest,
    Result,
    StaticResource,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    get_prompt_result,
    user_message,
)
from genmcp.protocol.methods import TOOLS_CALL
from genmcp.testing import MCPTestClient, RPCError, accept

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


class Forecast(Tool, name="get_forecast", input_schema=SCHEMA, scopes=("weather:read",)):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        channel.send_progress(1, 2, "fetching")
        channel.send_log("info", {"city": request.arguments["city"]})
        channel.send_progress(2, 2)
        return Result(call_tool_result(text=f"sunny in {request.arguments['city']}"))


class Confirm(Tool, name="confirm", input_schema={"type": "object"}):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        answer = (request.input_responses or {}).get("ok")
        if answer is None:
            return InputRequired({"ok": elicit_request("Sure?", {"type": "object"})})
        return Result(call_tool_result(text=answer["action"]))


class Refuse(Tool, name="refuse", input_schema={"type": "object"}):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        return Error("no city given: pass city='Paris'", -32602, {"field": "city"})


class Brief(Prompt, name="brief", description="A weather brief."):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return Result(get_prompt_result([user_message("brief")]))


FILE = StaticResource(uri="weather://stations", name="stations", text="a,b")


def weather() -> Suite:
    return Suite(
        server_name="weather",
        server_version="1",
        tools=[Forecast, Confirm, Refuse],
        prompts=[Brief],
        resources=[FILE],
    )


def gateway(*mounts: Mount, **options: Any) -> Suite:
    return Suite(server_name="gateway", server_version="1", mounts=mounts, **options)


async def test_a_namespace_prefixes_tool_and_prompt_names_and_keeps_uris() -> None:
    async with MCPTestClient(gateway(Mount(weather(), namespace="weather"))) as client:
        tools = {tool["name"] for tool in await client.list_tools()}
        prompts = {prompt["name"] for prompt in await client.list_prompts()}
        resources = [resource["uri"] for resource in await client.list_resources()]
        contents = await client.read_resource("weather://stations")
    assert tools == {"weather_get_forecast", "weather_confirm", "weather_refuse"}
    assert prompts == {"weather_brief"}
    assert resources == ["weather://stations"]
    assert contents[0]["text"] == "a,b"


async def test_no_namespace_merges_the_catalog_as_it_is() -> None:
    async with MCPTestClient(gateway(Mount(weather()))) as client:
        tools = {tool["name"] for tool in await client.list_tools()}
        prompt = await client.get_prompt("brief")
    assert tools == {"get_forecast", "confirm", "refuse"}
    assert prompt["messages"][0]["content"]["text"] == "brief"


async def test_a_call_goes_through_with_progress_and_logs() -> None:
    async with MCPTestClient(gateway(Mount(weather(), namespace="weather"))) as client:
        call = await client.call_tool(
            "weather_get_forecast", {"city": "Oslo"}, progress=True, log_level="debug"
        )
        invalid = await client.call_tool("weather_get_forecast", {})
    assert call.text == "sunny in Oslo"
    assert [p["progress"] for p in call.progress] == [1, 2]
    assert call.logs[0]["data"] == {"city": "Oslo"}
    assert invalid.is_error and "weather_get_forecast" in invalid.text


async def test_input_rounds_and_errors_pass_through() -> None:
    async with MCPTestClient(gateway(Mount(weather(), namespace="w"))) as client:
        asked = await client.call_tool("w_confirm", {})
        answered = await client.call_tool("w_confirm", {}, answers={"ok": accept({})})
        with pytest.raises(RPCError) as refused:
            await client.call_tool("w_refuse", {})
    assert asked.result_type == "input_required"
    assert answered.text == "accept"
    assert refused.value.code == -32602
    assert refused.value.message == "no city given: pass city='Paris'"
    assert refused.value.data == {"field": "city"}


def test_the_outer_suite_checks_the_mounted_tools_scopes() -> None:
    outer = gateway(Mount(weather(), namespace="weather"))
    assert outer.required_scopes(TOOLS_CALL, "weather_get_forecast") == ("weather:read",)


def test_collisions_are_refused_when_built() -> None:
    with pytest.raises(ValueError, match=r"Mount\('weather', namespace=None\) collides"):
        gateway(Mount(weather()), Mount(weather()))
    with pytest.raises(ValueError, match="another namespace"):
        Suite(server_name="g", server_version="1", tools=[Confirm], mounts=[Mount(weather())])
    with pytest.raises(ValueError, match="URIs are not namespaced"):
        gateway(Mount(weather(), namespace="a"), Mount(weather(), namespace="b"))
    tools = Suite(server_name="tools", server_version="1", tools=[Confirm])
    two = gateway(Mount(weather(), namespace="a"), Mount(tools, namespace="b"))
    assert two.tool("a_confirm") is not None and two.tool("b_confirm") is not None
    with pytest.raises(ValueError, match="namespace is 1 to 64"):
        Mount(weather(), namespace="bad name")
    with pytest.raises(TypeError, match=r"takes a genmcp\.Suite"):
        Mount("http://example.com")  # type: ignore[arg-type]
    inner = weather()
    with pytest.raises(ValueError, match="cannot mount itself"):
        Mount(inner).attach(inner)


async def test_the_inner_suites_changes_reach_the_outer_listeners() -> None:
    inner = weather()
    outer = gateway(Mount(inner, namespace="weather"))
    async with MCPTestClient(outer) as client:
        async with client.listen(tools=True, resources=True, uris=["weather://stations"]) as seen:
            inner.remove_tool("confirm")
            changed = await seen.next()
            inner.resource_updated("weather://stations")
            updated = await seen.next()
        tools = {tool["name"] for tool in await client.list_tools()}
    assert changed["method"] == "notifications/tools/list_changed"
    assert updated["method"] == "notifications/resources/updated"
    assert updated["params"]["uri"] == "weather://stations"
    assert tools == {"weather_get_forecast", "weather_refuse"}
    inner.add_tool(Confirm)
    assert outer.tool("weather_confirm") is not None


def test_only_a_remote_mount_loads_the_client_and_httpx() -> None:
    code = (
        "import sys, genmcp\n"
        "heavy = ('httpx', 'genmcp.client', 'genmcp.compose.remote', 'genmcp.compose.upstream')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "genmcp.Mount(url='http://127.0.0.1:9/mcp')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    plain, remote = done.stdout.splitlines()
    assert plain == "[]", f"import genmcp loaded {plain}"
    assert remote == (
        "['genmcp.client', 'genmcp.compose.remote', 'genmcp.compose.upstream', 'httpx']"
    )


def test_share_cache_takes_only_a_remote_mount_s_default_cache() -> None:
    from genmcp.client.cache import MemoryCacheStore

    shared = MemoryCacheStore()
    url = "http://127.0.0.1:1/mcp"
    default, chosen = Mount(url=url), Mount(url=url, cache=True)
    off, local = Mount(url=url, cache=False), Mount(Suite(server_name="s", server_version="1"))
    assert [m.share_cache(shared) for m in (default, chosen, off, local)] == [True, False, False,
                                                                             False]  # fmt: skip
    assert default.upstream is not None and default.upstream.client.cache is not None
    assert default.upstream.client.cache.store is shared
    assert chosen.upstream is not None and chosen.upstream.client.cache is not None
    assert chosen.upstream.client.cache.store is not shared

"""ClientGroup: three servers behind one client (a 2026-07-28 HTTP server, a 2025 session
over HTTP, a stdio process), names namespaced, one listen across them, and one server stopped:
the group's list still answers, the stopped one's error reported, its calls typed errors.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, Final

import pytest

from genmcp import Suite, mcp_app, tool
from genmcp.client import Client, ClientError, ClientGroup, RPCError
from support.examples import load
from support.server import LiveServers

TESTS: Final = Path(__file__).resolve().parents[1]
STDIO: Final = [sys.executable, "-m", "genmcp", "run", "demo_tools:suite", "--transport", "stdio"]
ENV: Final = {"GENMCP_SECRET_KEY": "s" * 40}


def weather_app() -> Any:
    @tool
    def get_forecast(city: str) -> str:
        """The forecast for a city."""
        return f"sunny in {city}"

    return mcp_app(Suite(server_name="weather", server_version="1", tools=[get_forecast]))


async def test_three_servers_one_stopped(live_server: LiveServers) -> None:
    weather = live_server(weather_app()) + "/mcp"
    everything_suite = load("everything_server").build_suite()
    everything = live_server(mcp_app(everything_suite, path="/mcp")) + "/mcp"
    everything_server = live_server.last
    group = ClientGroup(
        {
            "weather": weather,
            "every": Client(everything, protocol="2025-11-25"),
            "demo": Client(STDIO, cwd=str(TESTS), env=ENV),
        }
    )
    async with group:
        tools = await group.list_tools()
        names = {t["name"] for t in tools}
        assert tools.errors == {}
        assert {"weather_get_forecast", "demo_add", "every_test_simple_text"} <= names
        assert not any(name.startswith(("get_forecast", "add")) for name in names)

        resources = await group.list_resources()
        assert resources.errors == {} and resources
        uri = next(r["uri"] for r in resources if r["uri"].startswith("test://static-text"))
        read = await group.read_resource(uri)  # routed to the member that listed it
        assert read["contents"][0]["uri"] == uri
        templates = await group.list_resource_templates()
        assert templates.errors == {} and templates

        forecast = await group.call_tool("weather_get_forecast", {"city": "Oslo"})
        assert forecast["content"][0]["text"] == "sunny in Oslo"
        added = await group.call_tool("demo_add", {"a": 2, "b": 3})
        assert added["content"][0]["text"] == "5"

        async with group.listen(prompts=False, resources=False) as changes:
            assert set(changes.acknowledged) == {"weather", "every", "demo"}
            await group.call_tool("every_test_trigger_tool_change", {})
            server, note = await asyncio.wait_for(anext(changes), 30)
        assert (server, note["method"]) == ("every", "notifications/tools/list_changed")

        everything_server.stop()
        tools = await group.list_tools()
        assert set(tools.errors) == {"every"}
        assert isinstance(tools.errors["every"], ClientError)
        names = {t["name"] for t in tools}
        assert "weather_get_forecast" in names and "demo_add" in names
        assert not any(name.startswith("every_") for name in names)
        with pytest.raises(ClientError) as caught:
            await group.call_tool("every_test_simple_text", {})
        assert not isinstance(caught.value, RPCError)  # down, not an answer
        assert (await group.call_tool("demo_add", {"a": 1, "b": 1}))["content"][0]["text"] == "2"

        with pytest.raises(RPCError) as unknown:
            await group.call_tool("weather_nope", {})  # the member's own error, typed
        assert unknown.value.code == -32602
        with pytest.raises(ClientError, match="names no member"):
            await group.call_tool("nowhere_add", {})


def test_names_must_not_hold_the_separator() -> None:
    with pytest.raises(ValueError, match="separator"):
        ClientGroup({"a_b": "http://127.0.0.1:1/mcp"})
    group = ClientGroup({"a": "http://127.0.0.1:1/mcp"}, separator=".")
    assert group.split("a.x_y") == ("a", "x_y")
    assert group.qualified("a", "t") == "a.t"

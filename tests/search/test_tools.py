"""The two search tools, driven over the protocol (``genmcp.testing``, in-process): prompts
are found too, bad arguments are refused by the input schema (a tool error, never -32603),
a scope-hidden tool is not found by a caller without the scope, and the index is built once
per catalog change."""

from __future__ import annotations

from typing import Any

import pytest

from genmcp import Channel, Prompt, Result, Suite, Tool, ToolRequest, call_tool_result
from genmcp.search import CatalogSearch
from genmcp.testing import MCPTestClient

CITY = {"type": "object", "properties": {"city": {"type": "string"}}}


class Forecast(Tool, name="weather_forecast", description="The forecast for a city.",
               input_schema=CITY):  # fmt: skip
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="sunny"))


class Secret(Tool, name="weather_secret", description="The forecast nobody may see.",
             scopes=["weather:secret"]):  # fmt: skip
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="hail"))


class Alert(Tool, name="storm_alert", description="Warn of a storm."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="warned"))


class Brief(Prompt, name="weather_brief", description="Write a weather brief.",
            arguments=[{"name": "city", "required": True}]):  # fmt: skip
    async def get(self, request: Any, channel: Channel, arg: Any) -> Any:
        return {"messages": []}


def suite() -> tuple[Suite, CatalogSearch]:
    search = CatalogSearch()
    built = Suite(server_name="s", server_version="1", tools=[Forecast, Secret],
                  prompts=[Brief], mounts=[search])  # fmt: skip
    return built, search


async def hits(client: MCPTestClient, **arguments: Any) -> list[tuple[str, str]]:
    result = await client.call_tool("search_tools", arguments)
    return [(hit["kind"], hit["name"]) for hit in result.structured["hits"]]


async def test_prompts_are_searched_and_kinds_select() -> None:
    served, _ = suite()
    async with MCPTestClient(served) as client:
        both = await hits(client, query="city forecast weather")
        prompts = await hits(client, query="weather", kinds=["prompt"])
        described = await client.call_tool(
            "describe_tools", {"names": ["weather_brief"], "kind": "prompt"}
        )
    assert ("tool", "weather_forecast") in both and ("prompt", "weather_brief") in both
    assert prompts == [("prompt", "weather_brief")]
    assert described.structured["prompts"][0]["name"] == "weather_brief"


async def test_a_tool_whose_scope_the_caller_lacks_is_never_found() -> None:
    served, _ = suite()
    lacking = {"principal": "p", "effective_scopes": frozenset()}
    holding = {"principal": "p", "effective_scopes": frozenset({"weather:secret"})}
    async with MCPTestClient(served, assigns=lacking) as client:
        without = await hits(client, query="forecast nobody")
        described = await client.call_tool("describe_tools", {"names": ["weather_secret"]})
    async with MCPTestClient(served, assigns=holding) as client:
        with_scope = await hits(client, query="forecast nobody")
    assert ("tool", "weather_secret") not in without
    assert described.structured == {"tools": [], "unknown": ["weather_secret"]}
    assert with_scope[0] == ("tool", "weather_secret")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("search_tools", {}),
        ("search_tools", {"query": ""}),
        ("search_tools", {"query": "x", "limit": 0}),
        ("search_tools", {"query": "x", "kinds": ["skill"]}),
        ("search_tools", {"query": "x" * 501}),
        ("describe_tools", {"names": []}),
        ("describe_tools", {"names": [f"t{i}" for i in range(51)]}),
        ("describe_tools", {"names": ["a"], "kind": "skill"}),
    ],
)
async def test_bad_arguments_are_a_tool_error_naming_them(
    tool: str, arguments: dict[str, Any]
) -> None:
    served, _ = suite()
    async with MCPTestClient(served) as client:
        called = await client.call_tool(tool, arguments)
    assert called.result["isError"] is True  # the schema refused them: nothing was searched
    assert called.result["content"][0]["text"].startswith(f"Invalid arguments for tool {tool!r}")


async def test_the_index_is_built_once_per_catalog_change() -> None:
    served, search = suite()
    async with MCPTestClient(served) as client:
        assert await hits(client, query="storm") == []
        assert await hits(client, query="weather city") != []
        assert search.builds == 1
        served.add_tool(Alert)
        assert await hits(client, query="storm") == [("tool", "storm_alert")]
        served.remove_tool("storm_alert")
        assert await hits(client, query="storm") == []
    assert search.builds == 3


def test_one_search_serves_one_suite() -> None:
    served, search = suite()
    with pytest.raises(ValueError, match="one Suite"):
        search.attach(served)
    with pytest.raises(ValueError, match="limit"):
        CatalogSearch(limit=0)

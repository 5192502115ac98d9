"""``Transform`` on local, mounted and imported tools alike, served over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI, Request

from genmcp import Hidden, Mount, OpenAPI, Result, Suite, Tool, Transform, tool
from genmcp.fastapi.router import mcp_app, mcp_router
from genmcp.protocol.v2607 import call_tool_result
from genmcp.transforms import shaped
from support import inventory
from support.client import ModernClient
from support.server import LiveServers


class Report(
    Tool,
    name="report",
    description="Sums a tenant's sales.",
    input_schema={
        "type": "object",
        "properties": {"region": {"type": "string"}, "tenant": {"type": "string"},
                       "currency": {"type": "string"}},
        "required": ["region", "tenant", "currency"],
        "additionalProperties": False,
    },
):
    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(structured=dict(request.arguments)))


@tool
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@tool
def mul(a: int, b: int) -> int:
    """Multiplies two numbers."""
    return a * b


def caller_assigns(request: Request) -> dict[str, Any]:
    return {"principal": "someone", "tenant": request.headers.get("x-tenant", "none")}


TRANSFORMS = [
    Transform(tools="report", hide={"tenant": Hidden(from_caller=lambda c: c.tenant),
                                    "currency": Hidden(default="EUR")},
              description="Sums your sales in a region."),
    Transform(tools="math_*", namespace="calc"),
    Transform(tools="inv_getItem", name="read_item", title="Read one item"),
    Transform(tools="inv_listItems", hide={"limit": Hidden(default=1)}),
    Transform(tools="remote_mul", hide={"b": Hidden(default=3)}, name="triple"),
]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    live = LiveServers()
    try:
        api_url = live(inventory.make_app()[0])
        inner = Suite(server_name="inner", server_version="1", tools=[add])
        remote = live(mcp_app(Suite(server_name="remote", server_version="1", tools=[mul])))
        suite = Suite(server_name="shaped", server_version="1", tools=[Report],
                      transforms=TRANSFORMS, mounts=[
                          Mount(inner, namespace="math"),
                          Mount(url=remote + "/mcp", namespace="remote"),
                          OpenAPI(inventory.SPEC, base_url=api_url, namespace="inv",
                                  tags=["items"]),
                      ])
        app = FastAPI()
        app.include_router(mcp_router(suite=suite, auth=caller_assigns), prefix="/mcp")
        yield live(app)
    finally:
        live.stop_all()


async def listed(base: str) -> dict[str, Any]:
    async with ModernClient(base) as mcp:
        return {t["name"]: t for t in (await mcp.request("tools/list", {})).result["tools"]}


async def call(base: str, name: str, arguments: dict[str, Any], tenant: str = "acme") -> Any:
    async with ModernClient(base, headers={"X-Tenant": tenant}) as mcp:
        return await mcp.request("tools/call", {"name": name, "arguments": arguments})


async def test_the_listing_shows_the_shaped_tools(base: str) -> None:
    tools = await listed(base)
    assert sorted(tools) == ["calc_math_add", "inv_createItem", "inv_listItems", "read_item",
                             "report", "triple"]
    assert list(tools["triple"]["inputSchema"]["properties"]) == ["a"]
    report = tools["report"]
    assert report["description"] == "Sums your sales in a region."
    assert set(report["inputSchema"]["properties"]) == {"region"}
    assert report["inputSchema"]["required"] == ["region"]
    assert tools["read_item"]["title"] == "Read one item"
    assert tools["read_item"]["description"] == "Returns one item by its id."  # kept
    assert "limit" not in tools["inv_listItems"]["inputSchema"]["properties"]
    assert tools["calc_math_add"]["description"] == "Adds two numbers."


async def test_hidden_arguments_come_from_the_caller_and_the_default(base: str) -> None:
    acme = await call(base, "report", {"region": "north"}, tenant="acme")
    globex = await call(base, "report", {"region": "north"}, tenant="globex")
    assert acme.result["structuredContent"] == {"region": "north", "tenant": "acme",
                                                "currency": "EUR"}
    assert globex.result["structuredContent"]["tenant"] == "globex"


async def test_a_client_cannot_set_a_hidden_argument(base: str) -> None:
    reply = await call(base, "report", {"region": "north", "tenant": "globex"}, tenant="acme")
    assert reply.result["isError"] is True
    assert "tenant" in reply.result["content"][0]["text"]


async def test_mounted_remote_and_imported_tools_run_under_their_new_names(base: str) -> None:
    summed = await call(base, "calc_math_add", {"a": 2, "b": 3})
    assert summed.result["structuredContent"] == {"result": 5}
    item = await call(base, "read_item", {"item_id": 1})
    assert item.result["structuredContent"]["name"] == "lamp"
    gone = await call(base, "inv_getItem", {"item_id": 1})
    assert gone.error["code"] == -32602  # the old name is unknown
    tripled = await call(base, "triple", {"a": 7})  # a remote mount's tool, b injected
    assert tripled.result["structuredContent"] == {"result": 21}
    listed_items = await call(base, "inv_listItems", {})
    assert len(listed_items.result["structuredContent"]["result"]) == 1  # limit=1 injected


def test_a_transform_that_selects_nothing_leaves_the_class_as_it_is() -> None:
    assert shaped(Report, None, [Transform(tools="other_*", namespace="x")]) is Report


def test_hiding_an_argument_the_tool_lacks_is_refused_when_built() -> None:
    with pytest.raises(ValueError, match=r"cannot hide \['nope'\]"):
        Suite(server_name="s", server_version="1", tools=[Report],
              transforms=[Transform(hide={"nope": Hidden(default=1)})])


def test_hidden_takes_one_source_and_transform_one_naming() -> None:
    with pytest.raises(TypeError, match="one of default= or from_caller="):
        Hidden()
    with pytest.raises(TypeError, match="name= or namespace="):
        Transform(name="a", namespace="b")


def test_transforms_apply_in_order_each_to_the_name_it_sees() -> None:
    suite = Suite(server_name="s", server_version="1", tools=[Report], transforms=[
        Transform(tools="report", name="sales"),
        Transform(tools="sales", namespace="crm"),
    ])
    entry = suite.tool("crm_sales")
    assert entry is not None and json.dumps(entry.descriptor).count("crm_sales") == 1




async def test_a_function_tool_gets_its_model_with_the_hidden_value() -> None:
    from genmcp.testing import MCPTestClient

    suite = Suite(server_name="s", server_version="1", tools=[add],
                  transforms=[Transform(tools="add", hide={"b": Hidden(default=10)})])
    async with MCPTestClient(suite) as client:
        [listed] = await client.list_tools()
        assert list(listed["inputSchema"]["properties"]) == ["a"]
        assert (await client.call_tool("add", {"a": 5})).structured == {"result": 15}


def test_a_mounted_tool_renamed_by_a_transform_leaves_when_its_suite_drops_it() -> None:
    inner = Suite(server_name="inner", server_version="1", tools=[add])
    outer = Suite(server_name="outer", server_version="1", mounts=[Mount(inner, namespace="m")],
                  transforms=[Transform(tools="m_add", name="plus")])
    assert outer.tool("plus") is not None
    inner.remove_tool("add")
    assert outer.tool("plus") is None

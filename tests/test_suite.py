"""genmcp.suite: capabilities and ``server/discover`` derived from what is served, the lists.

Each request goes through the real ``Suite.handle`` and the real relay (``support.answers``);
the method table's dispatch is in tests/test_dispatch.py.
"""

from __future__ import annotations

from typing import Any

from genmcp import (
    Channel,
    Prompt,
    PromptRequest,
    ResourceRepo,
    ResourceRequest,
    Result,
    StaticResource,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    get_prompt_result,
    read_resource_result,
    text_contents,
)
from genmcp.protocol import methods
from genmcp.protocol.jsonrpc import Request
from support.answers import answer_of

KEY = "s" * 48
TASKS = "io.modelcontextprotocol/tasks"


def meta(tasks: bool = False) -> dict[str, Any]:
    capabilities: dict[str, Any] = {"extensions": {TASKS: {}}} if tasks else {}
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }


async def ask(
    suite: Suite, method: str, params: dict[str, Any] | None = None, **options: Any
) -> dict[str, Any]:
    tasks = options.pop("tasks", False)
    request = Request(1, method, {**(params or {}), "_meta": meta(tasks)})
    response, _ = await answer_of(suite, request, options.get("assigns"))
    return response


class Echo(
    Tool,
    name="echo",
    scopes=["echo:use"],
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=str(request.arguments.get("text"))))


class Hello(Prompt, name="hello", scopes=["prompt:use"]):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return Result(get_prompt_result("hello"))


class Files(ResourceRepo, prefix="file://", scopes=["files:read"]):
    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
        return Result(read_resource_result(text_contents(request.uri, "content")))


def tools_only() -> Suite:
    return Suite(server_name="s", server_version="1", secret_key=KEY, tools=[Echo])


def everything() -> Suite:
    return Suite(
        server_name="s",
        server_version="1",
        secret_key=KEY,
        tools=[Echo],
        prompts=[Hello],
        resources=[Files, StaticResource(uri="x://a", name="a", text="a")],
    )


# -- server/discover and capabilities ----------------------------------------------------


async def test_discover_derives_the_capabilities_from_what_is_served() -> None:
    only = (await ask(tools_only(), methods.SERVER_DISCOVER))["result"]
    full = (await ask(everything(), methods.SERVER_DISCOVER))["result"]
    assert only["capabilities"] == {"tools": {"listChanged": True}}
    assert full["capabilities"] == {
        "tools": {"listChanged": True},
        "prompts": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
    }
    assert full["supportedVersions"] == ["2026-07-28"]
    assert (full["cacheScope"], full["ttlMs"]) == ("public", 60_000)
    assert full["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "s", "version": "1"}
    assert "instructions" not in full


async def test_discover_follows_a_change_of_the_served_set() -> None:
    suite = tools_only()
    suite.add_prompt(Hello)
    result = (await ask(suite, methods.SERVER_DISCOVER))["result"]
    assert "prompts" in result["capabilities"]


# -- auth seams (the scopes of a target: tests/catalogs/test_served.py) -------------------


async def test_the_lists_show_only_what_the_caller_may_use() -> None:
    suite = everything()
    held = {"effective_scopes": {"prompt:use"}}
    tools = await ask(suite, methods.TOOLS_LIST, assigns=held)
    prompts = await ask(suite, methods.PROMPTS_LIST, assigns=held)
    everyone = await ask(suite, methods.TOOLS_LIST)
    assert tools["result"]["tools"] == []
    assert [p["name"] for p in prompts["result"]["prompts"]] == ["hello"]
    assert [t["name"] for t in everyone["result"]["tools"]] == ["echo"]

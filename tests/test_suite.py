"""genmcp.suite: dispatch through the method table (``wiring`` builds it), capabilities.

Each request goes through the real ``Suite.handle`` and the real relay (``support.answers``);
what the tools themselves do is in tests/test_suite_tools.py.
"""

from __future__ import annotations

from typing import Any

import pytest

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
from tests.test_wiring import SERVED

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


# -- the method table --------------------------------------------------------------------

@pytest.mark.parametrize(
    "method",
    sorted(
        (methods.REQUESTS - set(SERVED)) | {"tools/unknown", "nope", ""},
    ),
)
async def test_any_other_method_is_method_not_found(method: str) -> None:
    response = await ask(everything(), method)
    assert response["error"]["code"] == -32601
    assert response["error"]["message"] == f"Method not found: {method}"


@pytest.mark.parametrize(
    ("method", "params"),
    [
        (methods.PROMPTS_LIST, {}),
        (methods.PROMPTS_GET, {"name": "hello"}),
        (methods.RESOURCES_LIST, {}),
        (methods.RESOURCES_TEMPLATES_LIST, {}),
        (methods.RESOURCES_READ, {"uri": "x://a"}),
        (
            methods.COMPLETION_COMPLETE,
            {
                "ref": {"type": "ref/prompt", "name": "hello"},
                "argument": {"name": "a", "value": ""},
            },
        ),
        (methods.TASKS_GET, {"taskId": "t"}),
        (methods.SKILLS_LIST, {}),
        (methods.SKILLS_GET, {"uri": "skill://a/SKILL.md"}),
        (methods.RESOURCES_DIRECTORY_READ, {"uri": "skill://a"}),
    ],
)
async def test_a_method_of_a_capability_not_served_is_method_not_found(
    method: str, params: dict[str, Any]
) -> None:
    response = await ask(tools_only(), method, params, tasks=True)
    assert response["error"]["code"] == -32601


async def test_tools_list_is_served_even_without_tools() -> None:
    suite = Suite(server_name="s", server_version="1", secret_key=KEY)
    response = await ask(suite, methods.TOOLS_LIST)
    assert response["result"]["tools"] == []


async def test_each_catalogs_methods_answer_through_the_table() -> None:
    suite = everything()
    called = await ask(suite, methods.TOOLS_CALL, {"name": "echo", "arguments": {"text": "hi"}})
    got = await ask(suite, methods.PROMPTS_GET, {"name": "hello"})
    read = await ask(suite, methods.RESOURCES_READ, {"uri": "file://x"})
    listed = await ask(suite, methods.RESOURCES_LIST)
    assert called["result"]["content"][0]["text"] == "hi"
    assert got["result"]["messages"][0]["content"]["text"] == "hello"
    assert read["result"]["contents"][0]["text"] == "content"
    assert [r["uri"] for r in listed["result"]["resources"]] == ["x://a"]
    assert suite.live_workers == 0


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

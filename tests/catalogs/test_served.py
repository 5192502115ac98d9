"""catalogs.served through a real Suite: the capabilities the catalogs derive, the scopes a
method's target declares, the repository a resource URI routes to, the lists seen moving."""

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


class Echo(Tool, name="echo", scopes=["echo:use"]):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="echo"))


class Later(Tool, name="later", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="later"))


class Hello(Prompt, name="hello", scopes=["prompt:use"]):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return Result(get_prompt_result("hello"))


class Files(ResourceRepo, prefix="file://", scopes=["files:read"]):
    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
        return Result(read_resource_result(text_contents(request.uri, "content")))


def served(*tools: type[Tool]) -> Suite:
    return Suite(
        server_name="s",
        server_version="1",
        secret_key="s" * 48,
        tools=[Echo, *tools],
        prompts=[Hello],
        resources=[(Files, "files-arg"), StaticResource(uri="x://a", name="a", text="a")],
    )


@pytest.mark.parametrize(
    ("method", "target", "scopes"),
    [
        (methods.TOOLS_CALL, "echo", ("echo:use",)),
        (methods.PROMPTS_GET, "hello", ("prompt:use",)),
        (methods.RESOURCES_READ, "file://x", ("files:read",)),
        (methods.RESOURCES_READ, "x://a", ()),
        (methods.TOOLS_CALL, "missing", ()),
        (methods.TOOLS_LIST, "echo", ()),
    ],
)
def test_required_scopes_are_those_the_target_declares(
    method: str, target: str, scopes: tuple[str, ...]
) -> None:
    assert served().required_scopes(method, target) == scopes


def test_a_resource_uri_routes_to_its_repository_or_to_none() -> None:
    suite = served()
    found = suite.resource_repo("file://notes")
    assert found is not None and isinstance(found[0], Files) and found[1] == "files-arg"
    assert suite.resource_repo("x://a") is None  # static: no repository
    assert suite.resource_repo("nope://b") is None
    assert suite.routes_resource("file://notes") and suite.routes_resource("x://a")
    assert not suite.routes_resource("nope://b")


def test_the_capabilities_follow_the_catalogs_and_a_task_tool_adds_the_extension() -> None:
    assert served().capabilities == {
        "tools": {"listChanged": True},
        "prompts": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
    }
    with_tasks = served(Later).capabilities
    assert with_tasks["extensions"] == {"io.modelcontextprotocol/tasks": {}}
    assert set(served().seen_lists) == {
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
    }

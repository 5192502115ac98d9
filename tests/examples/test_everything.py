"""examples/everything_server.py beyond what the conformance suite checks: exact semantics.

The official suite (`make conformance`) checks shapes and is lenient on content; these
tests pin what the example's resources, prompts, completions, trigger tools and the
cancellable tool actually do. Each test drives a fresh Suite (`build_suite()`) in-process
with `genmcp.testing.MCPTestClient`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from genmcp import Suite
from genmcp.testing import MCPTestClient, accept
from support import examples

everything = examples.load("everything_server")


@pytest.fixture
async def client() -> AsyncIterator[MCPTestClient]:
    async with MCPTestClient(everything.build_suite()) as client:
        yield client


def suite_of(client: MCPTestClient) -> Suite:
    assert client.suite is not None
    return client.suite


async def result(client: MCPTestClient, method: str, params: dict[str, Any]) -> Any:
    return (await client.request(method, params)).unwrap()


async def test_static_and_template_resources(client: MCPTestClient) -> None:
    listed = await result(client, "resources/list", {})
    assert sorted((r["uri"], r["mimeType"]) for r in listed["resources"]) == [
        ("test://static-binary", "image/png"),
        ("test://static-text", "text/plain"),
        ("test://watched-resource", "text/plain"),
    ]
    assert all(r["name"] and r["description"] for r in listed["resources"])
    templates = await result(client, "resources/templates/list", {})
    assert [t["uriTemplate"] for t in templates["resourceTemplates"]] == [
        "test://template/{id}/data"
    ]
    binary = await result(client, "resources/read", {"uri": "test://static-binary"})
    assert binary["contents"][0]["blob"].startswith("iVBORw0KGgo")  # a PNG signature
    read = await result(client, "resources/read", {"uri": "test://template/123/data"})
    [contents] = read["contents"]
    assert contents["uri"] == "test://template/123/data"
    assert contents["mimeType"] == "application/json"
    assert json.loads(contents["text"]) == {
        "id": "123",
        "templateTest": True,
        "data": "Data for ID: 123",
    }


async def test_an_unknown_resource_is_not_found(client: MCPTestClient) -> None:
    error = (await client.request("resources/read", {"uri": "test://nope"})).error
    assert error is not None and error["code"] == -32602
    assert error["data"]["uri"] == "test://nope"


async def test_prompts(client: MCPTestClient) -> None:
    simple = await result(client, "prompts/get", {"name": "test_simple_prompt"})
    assert simple["messages"] == [
        {
            "role": "user",
            "content": {"type": "text", "text": "This is a simple prompt for testing."},
        }
    ]
    args = {"arg1": "hello", "arg2": "world"}
    with_args = await result(
        client, "prompts/get", {"name": "test_prompt_with_arguments", "arguments": args}
    )
    assert with_args["messages"][0]["content"]["text"] == (
        "Prompt with arguments: arg1='hello', arg2='world'"
    )
    embedded = await result(
        client,
        "prompts/get",
        {
            "name": "test_prompt_with_embedded_resource",
            "arguments": {"resourceUri": "test://static-text"},
        },
    )
    first, second = (m["content"] for m in embedded["messages"])
    assert first["type"] == "resource" and first["resource"]["uri"] == "test://static-text"
    assert first["resource"]["mimeType"] == "text/plain" and second["type"] == "text"
    image = await result(client, "prompts/get", {"name": "test_prompt_with_image"})
    first, second = (m["content"] for m in image["messages"])
    assert (first["type"], first["mimeType"], second["type"]) == ("image", "image/png", "text")


async def test_completion_of_arg1(client: MCPTestClient) -> None:
    params = {
        "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
        "argument": {"name": "arg1", "value": "pa"},
    }
    completion = (await result(client, "completion/complete", params))["completion"]
    assert completion["values"] == ["paris", "park"]


async def test_the_input_required_prompt_asks_then_answers(client: MCPTestClient) -> None:
    params: dict[str, Any] = {"name": "test_input_required_result_prompt"}
    first = await result(client, "prompts/get", params)
    assert first["resultType"] == "input_required"
    [(key, request)] = first["inputRequests"].items()
    assert request["method"] == "elicitation/create"
    retry = {
        **params,
        "inputResponses": {key: accept({"context": "owls"})},
        "requestState": first.get("requestState"),
    }
    done = await result(client, "prompts/get", {k: v for k, v in retry.items() if v is not None})
    assert done["resultType"] == "complete"
    assert done["messages"][0]["content"]["text"] == "Write about owls."


async def test_trigger_tools_toggle_the_dynamic_tool_and_prompt(client: MCPTestClient) -> None:
    async def tool_names() -> set[str]:
        return {tool["name"] for tool in await client.list_tools()}

    async def prompt_names() -> set[str]:
        return {p["name"] for p in (await result(client, "prompts/list", {}))["prompts"]}

    assert "test_dynamic_tool" not in await tool_names()
    added = await client.call_tool("test_trigger_tool_change", {})
    assert added.text == "Added test_dynamic_tool."
    assert "test_dynamic_tool" in await tool_names()
    assert (await client.call_tool("test_dynamic_tool", {})).text == "The dynamic tool is here."
    await client.call_tool("test_trigger_tool_change", {})
    assert "test_dynamic_tool" not in await tool_names()

    assert "test_dynamic_prompt" not in await prompt_names()
    await client.call_tool("test_trigger_prompt_change", {})
    assert "test_dynamic_prompt" in await prompt_names()
    await client.call_tool("test_trigger_prompt_change", {})
    assert "test_dynamic_prompt" not in await prompt_names()


async def test_the_long_running_tool_reports_progress_and_finishes(client: MCPTestClient) -> None:
    call = await client.call_tool("test_long_running_operation", {"seconds": 0.3}, progress=True)
    assert call.text == "Finished after 0.3 s."
    assert [(p["progress"], p["total"]) for p in call.progress] == [(0, 3), (1, 3), (2, 3)]


async def test_disconnecting_cancels_the_long_running_tool(client: MCPTestClient) -> None:
    async with client.open_call(
        "test_long_running_operation", {"seconds": 30}, progress=True
    ) as call:
        await call.next_notification()
        assert suite_of(client).live_workers == 1
        await call.disconnect()
    assert suite_of(client).live_workers == 0

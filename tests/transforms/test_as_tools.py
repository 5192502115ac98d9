"""Prompts and resources as tools, run as the caller (its visibility), over real HTTP."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI, Request

from genmcp import (
    Prompt,
    Result,
    StaticResource,
    Suite,
    get_prompt_result,
    prompts_as_tools,
    resources_as_tools,
    user_message,
)
from genmcp.caller import Caller
from genmcp.fastapi.router import mcp_router
from genmcp.testing import MCPTestClient
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServers


class Review(Prompt, name="review", description="Reviews code.",
             arguments=[{"name": "language", "required": True}]):
    async def get(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(get_prompt_result(
            [user_message(f"Review this {request.arguments['language']} code.")],
            description="A review"))


class Secret(Prompt, name="secret", description="Staff only."):
    def visible(self, caller: Caller, arg: Any) -> bool:
        return caller.tenant == "staff"

    async def get(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(get_prompt_result([user_message("the secret")]))


RESOURCES = [
    StaticResource(uri="docs://readme", name="readme", text="Read me.", mime_type="text/plain"),
    StaticResource(uri="docs://data", name="data", text='{"a": 1}',
                   mime_type="application/json"),
    StaticResource(uri="docs://logo", name="logo", blob=b"\x89PNG", mime_type="image/png"),
]


def assigns(request: Request) -> dict[str, Any]:
    return {"principal": "p", "tenant": request.headers.get("x-tenant", "main")}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    suite = Suite(server_name="t", server_version="1", prompts=[Review, Secret],
                  resources=RESOURCES, page_size=1)  # several pages to follow
    prompts_as_tools(suite)
    resources_as_tools(suite)
    app = FastAPI()
    app.include_router(mcp_router(suite=suite, auth=assigns), prefix="/mcp")
    live = LiveServers()
    try:
        yield live(app)
    finally:
        live.stop_all()


async def call(base: str, name: str, arguments: dict[str, Any], tenant: str = "main") -> Any:
    async with ModernClient(base, headers={"X-Tenant": tenant}) as mcp:
        return (await mcp.request("tools/call", {"name": name, "arguments": arguments})).result


async def test_the_four_tools_are_listed(base: str) -> None:
    async with ModernClient(base) as mcp:
        tools = []
        params: dict[str, Any] = {}
        while True:
            page = (await mcp.request("tools/list", params)).result
            tools += [t["name"] for t in page["tools"]]
            if not page.get("nextCursor"):
                break
            params = {"cursor": page["nextCursor"]}
    assert sorted(tools) == ["get_prompt", "list_prompts", "list_resources", "read_resource"]


async def test_list_prompts_shows_what_the_caller_may_see(base: str) -> None:
    main = await call(base, "list_prompts", {})
    staff = await call(base, "list_prompts", {}, tenant="staff")
    assert [p["name"] for p in main["structuredContent"]["prompts"]] == ["review"]
    assert [p["name"] for p in staff["structuredContent"]["prompts"]] == ["review", "secret"]


async def test_get_prompt_renders_it_and_a_hidden_one_is_unknown(base: str) -> None:
    got = await call(base, "get_prompt", {"name": "review", "arguments": {"language": "Go"}})
    assert got["structuredContent"]["messages"][0]["content"]["text"] == "Review this Go code."
    hidden = await call(base, "get_prompt", {"name": "secret"})
    assert hidden["isError"] is True and "secret" in hidden["content"][0]["text"]
    shown = await call(base, "get_prompt", {"name": "secret"}, tenant="staff")
    assert shown["structuredContent"]["messages"][0]["content"]["text"] == "the secret"
    missing = await call(base, "get_prompt", {"name": "review"})  # its argument is required
    assert missing["isError"] is True


async def test_resources_are_listed_and_read_as_blocks(base: str) -> None:
    listed = await call(base, "list_resources", {})
    assert sorted(r["uri"] for r in listed["structuredContent"]["resources"]) == [
        "docs://data", "docs://logo", "docs://readme"]
    assert listed["structuredContent"]["resourceTemplates"] == []
    readme = await call(base, "read_resource", {"uri": "docs://readme"})
    assert readme["content"] == [{"type": "text", "text": "Read me."}]
    data = await call(base, "read_resource", {"uri": "docs://data"})
    assert data["content"][0]["resource"]["text"] == '{"a": 1}'
    logo = await call(base, "read_resource", {"uri": "docs://logo"})
    assert base64.b64decode(logo["content"][0]["resource"]["blob"]) == b"\x89PNG"
    absent = await call(base, "read_resource", {"uri": "docs://nothing"})
    assert absent["isError"] is True


async def test_a_2025_session_uses_them_too(base: str) -> None:
    async with LegacyClient(base, version="2025-06-18") as legacy:
        await legacy.open()
        reply = await legacy.request("tools/call", {"name": "list_prompts", "arguments": {}})
    assert json.loads(reply.result["content"][0]["text"])["prompts"][0]["name"] == "review"


async def test_a_listing_the_suite_refuses_is_an_error_result_naming_why() -> None:
    suite = Suite(server_name="t", server_version="1")  # no prompts, no resources
    prompts_as_tools(suite)
    resources_as_tools(suite)
    async with MCPTestClient(suite) as client:
        prompts = (await client.call_tool("list_prompts", {})).result
        resources = (await client.call_tool("list_resources", {})).result
    assert prompts["isError"] is True and "prompts/list" in prompts["content"][0]["text"]
    assert resources["isError"] is True and "resources/list" in resources["content"][0]["text"]
    assert "structuredContent" not in resources

"""``versioned``: one name, several versions, pinned per call by ``_meta``; visibility per
version; served over real HTTP in both eras."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI, Request

from genmcp import Result, Suite, Tool, versioned
from genmcp.caller import Caller
from genmcp.fastapi.router import mcp_router
from genmcp.protocol.v2607 import call_tool_result
from genmcp.transforms import PIN, VERSIONS
from genmcp.transforms.versions import version_key
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServers


class SearchV1(Tool, name="search", description="Searches by keyword.",
               input_schema={"type": "object", "properties": {"q": {"type": "string"}},
                             "required": ["q"], "additionalProperties": False}):
    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(text=f"v1:{request.arguments['q']}"))


class SearchV2(Tool, name="search", description="Searches with filters.",
               input_schema={"type": "object",
                             "properties": {"query": {"type": "string"},
                                            "limit": {"type": "integer", "maximum": 10}},
                             "required": ["query"], "additionalProperties": False}):
    def call(self, request: Any, channel: Any, arg: Any) -> Result:  # a plain def: a thread
        return Result(call_tool_result(text=f"v2:{request.arguments['query']}"))


class SearchV10(Tool, name="search", description="Beta: semantic search."):
    """Only the beta tenant sees it."""

    def visible(self, caller: Caller, arg: Any) -> bool:
        return caller.tenant == "beta"

    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(text="v10"))


def assigns(request: Request) -> dict[str, Any]:
    return {"principal": "p", "tenant": request.headers.get("x-tenant", "main")}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    suite = Suite(server_name="v", server_version="1", tools=[
        versioned("search", {"1": SearchV1, "2.0": SearchV2, "10.0-beta": SearchV10})])
    app = FastAPI()
    app.include_router(mcp_router(suite=suite, auth=assigns), prefix="/mcp")
    live = LiveServers()
    try:
        yield live(app)
    finally:
        live.stop_all()


async def call(base: str, arguments: dict[str, Any], pin: str | None = None,
               tenant: str = "main") -> Any:
    async with ModernClient(base, headers={"X-Tenant": tenant}) as mcp:
        meta = None if pin is None else {PIN: pin}
        return await mcp.request("tools/call", {"name": "search", "arguments": arguments},
                                 meta=meta)


def test_versions_order_by_their_numeric_parts() -> None:
    assert sorted(["1.10", "1.9", "2.0", "10.0-beta", "1"], key=version_key) == [
        "1", "1.9", "1.10", "2.0", "10.0-beta"]


async def listing(base: str, tenant: str) -> dict[str, Any]:
    async with ModernClient(base, headers={"X-Tenant": tenant}) as mcp:
        (search,) = (await mcp.request("tools/list", {})).result["tools"]
    return dict(search)


async def test_the_listing_names_the_versions_the_caller_may_run(base: str) -> None:
    main = await listing(base, "main")
    assert main["_meta"][VERSIONS] == ["1", "2.0"]
    assert main["_meta"][PIN] == "2.0"
    assert main["description"] == "Searches with filters."
    assert "Beta" not in str(main) and "10.0" not in str(main)
    beta = await listing(base, "beta")  # the beta tenant's own listing names its version
    assert beta["_meta"][VERSIONS] == ["1", "2.0", "10.0-beta"]
    assert beta["_meta"][PIN] == "10.0-beta"
    assert beta["description"] == "Beta: semantic search."
    assert await listing(base, "main") == main  # each caller's pages, built once, kept apart


async def test_a_2025_session_gets_its_callers_listing_too(base: str) -> None:
    seen = {}
    for tenant in ("main", "beta"):
        async with LegacyClient(base, version="2025-11-25") as old:
            await old.open()
            reply = await old.request("tools/list", {}, headers={"X-Tenant": tenant})
            (search,) = reply.result["tools"]
        seen[tenant] = search["_meta"][VERSIONS]
    assert seen == {"main": ["1", "2.0"], "beta": ["1", "2.0", "10.0-beta"]}


async def test_unpinned_calls_run_the_newest_the_caller_may_see(base: str) -> None:
    main = await call(base, {"query": "cats"})
    beta = await call(base, {}, tenant="beta")
    assert main.result["content"][0]["text"] == "v2:cats"
    assert beta.result["content"][0]["text"] == "v10"


async def test_a_pin_runs_that_version_with_its_own_schema(base: str) -> None:
    old = await call(base, {"q": "dogs"}, pin="1")
    assert old.result["content"][0]["text"] == "v1:dogs"
    wrong = await call(base, {"query": "dogs"}, pin="1")  # v2's argument, v1 pinned
    assert wrong.result["isError"] is True and "q" in wrong.result["content"][0]["text"]
    over = await call(base, {"query": "x", "limit": 50}, pin="2.0")
    assert over.result["isError"] is True


async def test_an_unknown_or_hidden_version_is_the_same_invalid_params(base: str) -> None:
    unknown = await call(base, {"q": "x"}, pin="7")
    hidden = await call(base, {}, pin="10.0-beta", tenant="main")
    for reply, pinned in ((unknown, "7"), (hidden, "10.0-beta")):
        assert reply.error["code"] == -32602
        assert reply.error["data"] == {"name": "search", "version": pinned,
                                       "versions": ["1", "2.0"]}


async def test_a_2025_session_pins_a_version_too(base: str) -> None:
    async with LegacyClient(base, version="2025-11-25") as legacy:
        await legacy.open()
        pinned = await legacy.request("tools/call", {"name": "search", "arguments": {"q": "a"},
                                                     "_meta": {PIN: "1"}})
        newest = await legacy.request("tools/call", {"name": "search",
                                                     "arguments": {"query": "b"}})
    assert pinned.result["content"][0]["text"] == "v1:a"
    assert newest.result["content"][0]["text"] == "v2:b"


def test_a_version_must_be_a_tool_class() -> None:
    with pytest.raises(TypeError, match="version '1' is not a Tool class"):
        versioned("x", {"1": object})
    with pytest.raises(ValueError, match="at least one version"):
        versioned("x", {})


class Filler(Tool, description="A tool that is listed around the versioned one. " * 12):
    def info(self, key: str, arg: Any) -> Any:
        return arg if key == "name" else super().info(key, arg)

    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(text=str(arg)))


@pytest.fixture(scope="module")
def paged() -> Iterator[str]:
    fillers = [(Filler, f"z_{i}") for i in range(4)]
    suite = Suite(server_name="v", server_version="1", page_size=3, tools=[
        versioned("search", {"1": SearchV1, "2.0": SearchV2, "10.0-beta": SearchV10}),
        *fillers])
    app = FastAPI()
    app.include_router(mcp_router(suite=suite, auth=assigns), prefix="/mcp")
    live = LiveServers()
    try:
        yield live(app)
    finally:
        live.stop_all()


async def pages(base: str, tenant: str) -> tuple[list[dict[str, Any]], list[str]]:
    tools, cursors = [], []
    async with ModernClient(base, headers={"X-Tenant": tenant}) as mcp:
        params: dict[str, Any] = {}
        while True:
            result = (await mcp.request("tools/list", params)).result
            tools.extend(result["tools"])
            if "nextCursor" not in result:
                return tools, cursors
            cursors.append(result["nextCursor"])
            params = {"cursor": result["nextCursor"]}


async def test_each_callers_listing_pages_and_its_cursors_stay_its_own(paged: str) -> None:
    main, main_cursors = await pages(paged, "main")
    beta, _ = await pages(paged, "beta")
    assert [t["name"] for t in main] == [t["name"] for t in beta] == [
        "search", "z_0", "z_1", "z_2", "z_3"]
    assert main[0]["_meta"][VERSIONS] == ["1", "2.0"]
    assert beta[0]["_meta"][VERSIONS] == ["1", "2.0", "10.0-beta"]
    async with ModernClient(paged, headers={"X-Tenant": "beta"}) as mcp:
        crossed = await mcp.request("tools/list", {"cursor": main_cursors[0]})
    assert crossed.error["code"] == -32602  # another caller's list: start again


async def test_each_callers_first_page_is_sent_gzip_compressed(paged: str) -> None:
    seen = {}
    for tenant in ("main", "beta"):
        async with ModernClient(paged, headers={"X-Tenant": tenant}) as mcp:
            reply = await mcp.request("tools/list", {}, headers={"Accept-Encoding": "gzip"})
        assert reply.headers["content-encoding"] == "gzip"
        seen[tenant] = reply.result["tools"][0]["_meta"][PIN]
    assert seen == {"main": "2.0", "beta": "10.0-beta"}


async def test_a_renamed_versioned_tool_lists_each_callers_versions_under_its_new_name() -> None:
    from genmcp import Transform
    from genmcp.testing import MCPTestClient

    suite = Suite(server_name="v", server_version="1", transforms=[
        Transform(tools="search", name="find", title="Find")], tools=[
        versioned("search", {"1": SearchV1, "10.0-beta": SearchV10})])
    seen = {}
    for tenant in ("main", "beta"):
        async with MCPTestClient(suite, assigns={"principal": "p", "tenant": tenant}) as client:
            (found,) = await client.list_tools()
            ran = await client.call_tool("find", {} if tenant == "beta" else {"q": "x"})
        seen[tenant] = (found["name"], found["title"], found["_meta"][VERSIONS],
                        found["description"], ran.content[0]["text"])
    assert seen == {
        "main": ("find", "Find", ["1"], "Searches by keyword.", "v1:x"),
        "beta": ("find", "Find", ["1", "10.0-beta"], "Beta: semantic search.", "v10"),
    }

"""``Suite.disable`` / ``enable``: an item turned off on one process is off on every one,
including a process that starts later (the catalog log replays the switch); what
``catalog_synced`` promises on the other processes (docs/guides/shaping.md): a search there
never finds the tool, a listen stream there hears of it once its process applied it; with
``strict_catalog=True`` a call there is refused even when the event never arrives. Real
uvicorn servers on one Redis (a key prefix of the test's own)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from fastapi import FastAPI

from genmcp import Prompt, Result, Suite, Tool, get_prompt_result, user_message
from genmcp.fastapi.router import mcp_router
from genmcp.protocol.v2607 import call_tool_result
from genmcp.search import CatalogSearch
from support.client import ModernClient
from support.server import LiveServers

SECRET = "switch-test-secret-" + "x" * 40


class Echo(Tool, name="echo", input_schema={"type": "object", "properties": {}}):
    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(text="echo"))


class Other(Tool, name="other"):
    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(text="other"))


class Greeting(Prompt, name="greeting"):
    async def get(self, request: Any, channel: Any, arg: Any) -> Any:
        return Result(get_prompt_result([user_message("hello")]))


def build(redis_url: str, prefix: str, strict: bool = False) -> FastAPI:
    from genmcp.storage.redis import RedisBroker

    broker = RedisBroker.from_url(redis_url, prefix=prefix)
    suite = Suite(server_name="switch", server_version="1", tools=[Echo, Other],
                  prompts=[Greeting], secret_key=SECRET, broker=broker,
                  mounts=[CatalogSearch()], strict_catalog=strict)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        await broker.aclose()

    app = FastAPI(lifespan=lifespan)
    app.include_router(mcp_router(suite=suite, legacy=False), prefix="/mcp")

    @app.post("/admin/{op}/{kind}/{name}")
    async def switch(op: str, kind: str, name: str) -> dict[str, Any]:
        changed = (suite.enable if op == "enable" else suite.disable)(name, kind=kind)
        await suite.catalog_synced()
        return {"changed": changed}

    return app


async def names(base: str, method: str = "tools/list", key: str = "tools") -> set[str]:
    async with ModernClient(base) as mcp:
        return {item["name"] for item in (await mcp.request(method, {})).result[key]}


async def eventually(check: Callable[[], Any], within: float = 10.0) -> None:
    """Wait for another process to apply a broker event (a hang guard, not a budget)."""
    deadline = asyncio.get_running_loop().time() + within
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, "the change did not arrive"
        await asyncio.sleep(0.02)


async def admin(base: str, op: str, name: str, kind: str = "tool") -> bool:
    async with ModernClient(base) as mcp:
        reply = await mcp.http.post(f"{base}/admin/{op}/{kind}/{name}")
    assert reply.status_code == 200, reply.text
    return bool(reply.json()["changed"])


@pytest.fixture
def servers(redis_url: str, redis_prefix: str, live_server: LiveServers) -> Callable[[], str]:
    return lambda: live_server(build(redis_url, redis_prefix))


async def test_a_switch_reaches_every_process_and_a_late_one(
    servers: Callable[[], str],
) -> None:
    a, b = servers(), servers()
    assert await names(b) == {"echo", "other", "search_tools", "describe_tools"}
    assert await admin(a, "disable", "echo") is True
    assert await admin(a, "disable", "echo") is False  # already off: nothing changed
    assert "echo" not in await names(a)
    await eventually(lambda: _lacks(b, "echo"))
    async with ModernClient(b) as mcp:
        refused = await mcp.request("tools/call", {"name": "echo", "arguments": {}})
    assert refused.error["code"] == -32602  # as unknown
    c = servers()  # starts after the switch: replays it from the log
    assert "echo" not in await names(c)
    assert await admin(b, "enable", "echo") is True
    await eventually(lambda: _has(a, "echo"))
    await eventually(lambda: _has(c, "echo"))


async def test_prompts_switch_too_and_other_kinds_are_refused(
    servers: Callable[[], str],
) -> None:
    a, b = servers(), servers()
    assert await admin(a, "disable", "greeting", kind="prompt") is True
    await eventually(lambda: _lacks(b, "greeting", "prompts/list", "prompts"))
    with pytest.raises(ValueError, match="only tools and prompts"):
        Suite(server_name="s", server_version="1", secret_key=SECRET).disable("x", kind="skill")


async def _lacks(base: str, name: str, method: str = "tools/list", key: str = "tools") -> bool:
    return name not in await names(base, method, key)


async def _has(base: str, name: str) -> bool:
    return name in await names(base)


async def found(base: str, query: str) -> list[str]:
    async with ModernClient(base) as mcp:
        reply = await mcp.request("tools/call", {"name": "search_tools",
                                                 "arguments": {"query": query}})
    return [hit["name"] for hit in reply.result["structuredContent"]["hits"]]


async def test_once_synced_a_search_elsewhere_never_finds_it_and_listeners_hear_it(
    servers: Callable[[], str],
) -> None:
    a, b = servers(), servers()
    assert await found(b, "echo") == ["echo"]
    async with ModernClient(b) as listener:
        tools_only = {"notifications": {"toolsListChanged": True}}
        async with listener.stream("subscriptions/listen", tools_only, id="l") as stream:
            ack = await asyncio.wait_for(anext(stream), 10)
            assert ack["method"] == "notifications/subscriptions/acknowledged"
            assert await admin(a, "disable", "echo") is True
            assert await found(b, "echo") == []  # at once: the search read the log
            changed = await asyncio.wait_for(anext(stream), 10)  # a hang guard
            assert changed["method"] == "notifications/tools/list_changed"
            # told by its own process: that process applied it first
            refused = await listener.request("tools/call", {"name": "echo", "arguments": {}})
    assert refused.error["code"] == -32602


async def test_a_strict_catalog_refuses_a_call_whose_switch_was_logged_but_never_published(
    redis_url: str, redis_prefix: str, live_server: LiveServers
) -> None:
    """The origin logged the switch and died before publishing it: no event ever comes."""
    from genmcp.storage.redis import RedisBroker

    strict = live_server(build(redis_url, redis_prefix, strict=True))
    plain = live_server(build(redis_url, redis_prefix))
    assert "echo" in await names(strict) and "echo" in await names(plain)
    broker = RedisBroker.from_url(redis_url, prefix=redis_prefix)
    try:
        await broker.record_change("switch:tool:echo", {
            "format": 1, "origin": "a-dead-process", "op": "disable", "kind": "switch",
            "key": "tool:echo", "provider": None})  # fmt: skip
    finally:
        await broker.aclose()
    replies = {}
    for base in (strict, plain):
        async with ModernClient(base) as mcp:
            replies[base] = await mcp.request("tools/call", {"name": "echo", "arguments": {}})
    assert replies[strict].error["code"] == -32602  # read the log first: off
    assert replies[plain].result["content"][0]["text"] == "echo"  # follows events only
    assert "echo" not in await names(strict)

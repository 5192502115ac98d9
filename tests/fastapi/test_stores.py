"""``mcp_router(stores=...)`` (``fastapi/stores.py``): any backend's bundle, wired in whole,
closed by its maker.

A bundle of our own (``Counting``: the memory stores behind a wrapper that counts every
call, as another backend would be) goes to ``mcp_router(stores=...)``; a 2025 session, a
task and a rate-limited call run through ``MCPTestClient`` and each reaches the bundle's
store (the counts), the limit given no store takes from the bundle's buckets, and the
router's lifespan ends without closing a bundle it was given. The refusals of a mixed setup
say the fix.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, Final

import pytest
from fastapi import FastAPI

from genmcp import (
    Limit,
    RateLimit,
    Result,
    Stores,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    mcp_router,
)
from genmcp.channel import Channel
from genmcp.errors import RATE_LIMITED
from genmcp.fastapi.redis_url import ENV_REDIS_URL
from genmcp.sessions import LegacyServer
from genmcp.storage.memory import MemoryStores
from genmcp.testing import MCPTestClient

TASKS: Final = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


class Counted:
    """One store of a bundle: delegates every attribute, counts every method called."""

    def __init__(self, inner: Any, part: str, counts: Counter[str]) -> None:
        self._inner, self._part, self._counts = inner, part, counts
        for name in dir(inner):  # its methods as attributes of its own: a Protocol check
            value = getattr(inner, name)  # (getattr_static on Python 3.12+) sees them
            if not name.startswith("_") and callable(value):
                setattr(self, name, self._counted(name, value))

    def _counted(self, name: str, method: Any) -> Any:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self._counts[f"{self._part}.{name}"] += 1
            return method(*args, **kwargs)

        return counted

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)  # what is not a method


class Counting:
    """A custom ``Stores``: the memory stores, each behind ``Counted``."""

    def __init__(self) -> None:
        self.inner = MemoryStores()
        self.counts: Counter[str] = Counter()
        self.closed = 0
        self.broker = Counted(self.inner.broker, "broker", self.counts)
        self.registry = Counted(self.inner.registry, "registry", self.counts)
        self.tasks = Counted(self.inner.tasks, "tasks", self.counts)
        self.buckets = Counted(self.inner.buckets, "buckets", self.counts)

    async def aclose(self) -> None:
        self.closed += 1
        await self.inner.aclose()

    def used(self, part: str) -> int:
        return sum(n for name, n in self.counts.items() if name.startswith(part + "."))


class Hello(Tool, name="hello", description="Says hello.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        return Result(call_tool_result(text="hello"))


def app_of(stores: Stores, **options: Any) -> tuple[FastAPI, Any]:
    router = mcp_router(server_name="s", server_version="1", tools=[Hello], stores=stores,
                        **options)  # fmt: skip
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return app, router


async def test_a_session_a_task_and_a_limited_call_go_through_the_bundle() -> None:
    stores = Counting()
    limit = RateLimit(None, tools={"hello": Limit(0.001, 1)})  # no store: the bundle's
    app, router = app_of(stores, middleware=[limit])
    assert isinstance(stores, Stores) and router.stores is stores and router.redis is None
    assert router.suite.broker is stores.broker
    assert router.endpoint.legacy.registry is stores.registry
    assert limit.store is stores.buckets
    async with MCPTestClient(app, capabilities=TASKS) as modern:
        async with MCPTestClient(app, protocol_version="2025-11-25", lifespan=False) as legacy:
            assert (await legacy.request("logging/setLevel", {"level": "debug"})).error is None
        assert stores.used("registry") > 0  # the session's epoch, its lookups, its log level

        created = await modern.request("tools/call", {"name": "hello", "arguments": {}})
        assert created.result is not None and created.result["resultType"] == "task", created
        task_id = created.result["taskId"]
        for _ in range(100):
            got = await modern.request("tasks/get", {"taskId": task_id})
            if got.result["status"] != "working":
                break
            await asyncio.sleep(0.01)
        assert got.result["status"] == "completed", got
        assert stores.counts["tasks.create"] == 1 and stores.counts["tasks.get"] >= 1

        limited = await modern.request("tools/call", {"name": "hello", "arguments": {}})
        assert limited.error is not None and limited.error["code"] == RATE_LIMITED, limited
        assert stores.counts["buckets.take"] == 2
    assert stores.used("broker") > 0  # the Suite's worker mail and catalog
    assert stores.closed == 0  # the lifespan ended; a bundle given is its maker's to close
    await stores.aclose()
    assert stores.inner.broker.topics == 0


async def test_the_memory_bundle_serves_as_the_defaults_do() -> None:
    stores = MemoryStores()
    app, router = app_of(stores)
    assert router.suite.broker is stores.broker and router.suite.tasks.store is stores.tasks
    async with MCPTestClient(app, protocol_version="2025-11-25") as legacy:
        listed = await legacy.request("tools/list")
    assert [tool["name"] for tool in listed.result["tools"]] == ["hello"]
    await stores.aclose()


def test_stores_given_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_REDIS_URL, "redis://127.0.0.1:1/0")
    stores = MemoryStores()
    _, router = app_of(stores)
    assert router.stores is stores and router.redis is None
    assert router.suite.broker is stores.broker


def test_stores_refuse_what_else_gives_storage() -> None:
    stores = MemoryStores()
    with pytest.raises(TypeError, match="stores= or redis_url=, not both"):
        mcp_router(server_name="s", server_version="1", stores=stores,
                   redis_url="redis://127.0.0.1:1/0")  # fmt: skip
    suite = Suite(server_name="s", server_version="1")
    with pytest.raises(TypeError, match=r"without suite=.*Suite\(broker=stores.broker"):
        mcp_router(suite=suite, stores=stores)
    with pytest.raises(TypeError, match="drop broker, or drop stores="):
        mcp_router(server_name="s", server_version="1", stores=stores, broker=stores.broker)
    with pytest.raises(TypeError, match="drop task_store, legacy=LegacyServer"):
        mcp_router(server_name="s", server_version="1", stores=stores,
                   task_store=stores.tasks, legacy=LegacyServer(suite))  # fmt: skip

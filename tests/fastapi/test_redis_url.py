"""Scale-out in one option: ``mcp_router(redis_url=...)`` / ``GENMCP_REDIS_URL`` across real
uvicorn processes on one real Redis.

Two processes of ``support/redis_url_app.py``, one given ``redis_url=``, the other only the
environment variable, act as one server: a 2025 session opened on one is served by the
other (the registry), an elicitation answer posted to the other reaches the waiting call
(the broker), a task made on one is read on the other (the task store). Each process
stops cleanly (its lifespan closes what the option built). The refusals of a mixed setup
are checked in-process.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from genmcp import Suite, mcp_router
from genmcp.fastapi.redis_url import ENV_REDIS_URL, redis_url_of
from genmcp.fastapi.startup import mcp_paths
from genmcp.sessions import LegacyServer
from genmcp.storage.redis import RedisStores
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServers
from support.topology import Processes

pytestmark = pytest.mark.long  # two processes on one Redis, about 7 s (make test-long)

SUPPORT: Final = Path(__file__).resolve().parents[1] / "support"
SCALING_OUT: Final = Path(__file__).resolve().parents[2] / "docs" / "guides" / "scaling-out.md"
SECRET: Final = "redis-url-test-secret-key-0123456789abcdef"
TASKS: Final = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


@pytest.fixture
def pair(redis_url: str, redis_prefix: str) -> Iterator[tuple[Processes, Processes]]:
    common = {"GENMCP_SECRET_KEY": SECRET, "TEST_PREFIX": redis_prefix}
    by_argument = Processes(
        1, {**common, "TEST_REDIS_URL": redis_url}, app="redis_url_app:app", app_dir=SUPPORT
    )
    by_env = Processes(
        1, {**common, ENV_REDIS_URL: redis_url}, app="redis_url_app:app", app_dir=SUPPORT
    )
    started: list[Processes] = []
    try:
        for processes in (by_argument, by_env):
            started.append(processes)  # stopped even when it fails to start halfway
            processes.start()
        yield by_argument, by_env
    finally:
        for processes in started:
            processes.stop()


async def text_of(base: str, name: str) -> str:
    async with ModernClient(base) as mcp:
        reply = await mcp.request("tools/call", {"name": name, "arguments": {}})
    assert reply.status == 200, reply
    text: str = reply.result["content"][0]["text"]
    return text


async def test_two_processes_share_sessions_answers_and_tasks(
    pair: tuple[Processes, Processes],
) -> None:
    a, b = (processes.urls()[0] for processes in pair)
    pid_a, pid_b = await text_of(a, "pid"), await text_of(b, "pid")
    assert pid_a != pid_b

    async with LegacyClient(a, capabilities={"elicitation": {}}) as on_a:
        await on_a.open()
        async with LegacyClient(b) as on_b:
            on_b.session_id, on_b.version = on_a.session_id, on_a.version
            listed = await on_b.request("tools/list")
            assert listed.status == 200, listed  # the session lives in Redis
            async with on_a.stream("tools/call", {"name": "ask"}) as exchange:
                asked = await asyncio.wait_for(anext(aiter(exchange)), 5)
                assert asked["method"] == "elicitation/create"
                answer = {"action": "accept", "content": {"name": "Bo"}}
                assert (await on_b.respond(asked["id"], answer)).status == 202
                reply = await asyncio.wait_for(exchange.drain(), 5)
    assert reply.result["content"][0]["text"] == "Hello Bo"

    async with LegacyClient(a) as on_a, LegacyClient(b) as on_b:  # a route, as a tool, on b
        on_a.http.headers["Authorization"] = on_b.http.headers["Authorization"] = "Bearer t1"
        await on_a.open()
        on_b.session_id, on_b.version = on_a.session_id, on_a.version
        args = {"name": "get_customer", "arguments": {"customer_id": 7}}
        customer = await on_b.request("tools/call", args)
    assert customer.status == 200 and not customer.result.get("isError"), customer
    assert json.loads(customer.result["content"][0]["text"]) == {"name": "Ada", "pid": int(pid_b)}

    async with ModernClient(a) as mcp_a, ModernClient(b) as mcp_b:
        created = await mcp_a.request(
            "tools/call", {"name": "report", "arguments": {}}, capabilities=TASKS
        )
        assert created.result["resultType"] == "task", created
        task_id = created.result["taskId"]
        for _ in range(200):
            task = await mcp_b.request("tasks/get", {"taskId": task_id}, capabilities=TASKS)
            if task.result["status"] != "working":
                break
            await asyncio.sleep(0.02)
    assert task.result["status"] == "completed", task
    assert task.result["result"]["content"][0]["text"] == f"report by {pid_a}"


def test_each_process_stops_cleanly(pair: tuple[Processes, Processes]) -> None:
    for processes in pair:
        process = processes.processes[0]
        assert process is not None
        processes.terminate(0)
        # uvicorn re-raises the SIGTERM it handled once shut down (-15); a crash is not that
        assert process.returncode in (0, -15), processes.log(0)
        log = processes.log(0)
        for trouble in ("Traceback", "Unclosed", "was destroyed", "Task exception"):
            assert trouble not in log, log


def test_the_url_comes_from_the_argument_else_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV_REDIS_URL, "redis://from-env:6379/0")
    assert redis_url_of(None, own_suite=True) == "redis://from-env:6379/0"
    assert redis_url_of("redis://given:6379/1", own_suite=True) == "redis://given:6379/1"
    assert redis_url_of(None, own_suite=False) is None  # a given Suite was configured already
    monkeypatch.setenv(ENV_REDIS_URL, "  ")
    assert redis_url_of(None, own_suite=True) is None
    with pytest.raises(ValueError, match="redis_url= is empty"):
        redis_url_of(" ", own_suite=True)


async def test_the_option_refuses_the_parts_it_builds() -> None:
    url = "redis://127.0.0.1:1/0"  # never connected: the refusals come first
    suite = Suite(server_name="s", server_version="1")
    with pytest.raises(TypeError, match="without suite="):
        mcp_router(suite=suite, redis_url=url)
    with pytest.raises(TypeError, match="drop legacy=LegacyServer"):
        mcp_router(server_name="s", server_version="1", legacy=LegacyServer(suite), redis_url=url)
    stores = RedisStores.from_url(url, prefix="x:")
    try:
        with pytest.raises(TypeError, match="drop broker"):
            mcp_router(server_name="s", server_version="1", broker=stores.broker, redis_url=url)
    finally:
        await stores.aclose()


async def test_the_router_serves_on_what_the_option_built(redis_url: str) -> None:
    router = mcp_router(
        server_name="s", server_version="1", redis_url=redis_url, redis_prefix="genmcp-test-one:"
    )
    suite: Any = router.suite
    legacy: Any = router.endpoint.legacy
    assert type(suite.broker).__name__ == "RedisBroker"
    assert type(legacy.registry).__name__ == "RedisSessionRegistry"
    assert legacy.broker is suite.broker
    assert type(suite.tasks.store).__name__ == "RedisTaskStore"
    assert router.redis is not None and router.redis.broker is suite.broker
    await router.redis.aclose()
    assert mcp_router(server_name="s", server_version="1").redis is None


async def test_the_docs_example_serves_and_shuts_down_cleanly(
    redis_url: str, live_server: LiveServers, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", SCALING_OUT.read_text(encoding="utf-8"), re.S)
    code = next((block for block in blocks if "redis_url=" in block), None)
    assert code, "no redis_url= block in docs/guides/scaling-out.md"
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("GENMCP_SECRET_KEY", SECRET)
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/guides/scaling-out.md", "exec"), namespace)
    [(_, endpoint), *_] = mcp_paths(namespace["app"].routes)
    broker = endpoint.suite.broker
    base = live_server(namespace["app"])
    async with ModernClient(base) as mcp:
        reply = await mcp.request("tools/list")
    assert [tool["name"] for tool in reply.result["tools"]] == ["greet"]
    live_server.last.stop()  # the router's lifespan closes what redis_url= built
    assert not live_server.last.running
    assert type(broker).__name__ == "RedisBroker" and broker.topics == 0
    assert broker._closed  # its pub/sub task, inbox reader and heartbeat ended

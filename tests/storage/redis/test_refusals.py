"""storage.redis.refusals: a Redis that refuses writes is unavailable, on every task path.

Each test runs a real uvicorn server whose tasks live in a redis-server of the test's own,
then makes that Redis refuse writes as it does in production: ``maxmemory`` under
``noeviction`` (``OOM``), ``min-replicas-to-write`` with no replica (``NOREPLICAS``, as
during a failover), demoted to a replica (``READONLY``). Task creations are then each a 503
with ``Retry-After`` (``storage_unavailable``), never a 200 with -32603; tasks that end
while it refuses are retried and read ``completed`` with their results once it accepts
again, never "failed" nor "the process stopped".
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, Final

import httpx
import pytest
import redis
from fastapi import FastAPI

from genmcp import Channel, Result, TaskOptions, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.storage.guard import Breaker, StorageUnavailable, StoreFailure
from genmcp.storage.redis.refusals import WritesRefused, refusal, refusing
from support.redis_server import OwnRedis, free_port
from support.server import LiveServers

EXT: Final = "io.modelcontextprotocol/tasks"
META: Final = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXT: {}}},
    "io.modelcontextprotocol/clientInfo": {"name": "refusals", "version": "0"},
}
HEADERS: Final = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
}
REFUSE: Final = {
    "OOM": [("maxmemory", "1")],  # every write is over the limit: noeviction refuses it
    "NOREPLICAS": [("min-replicas-to-write", "1")],  # no replica: a master refuses writes
}
ACCEPT: Final = {"OOM": [("maxmemory", "0")], "NOREPLICAS": [("min-replicas-to-write", "0")]}


NAP: Final = {"type": "object", "properties": {"s": {"type": "number"}, "i": {"type": "integer"}}}


class Nap(Tool, name="nap", description="Sleeps s seconds.", task_support="optional",
          input_schema=NAP):  # fmt: skip
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        await asyncio.sleep(request.arguments.get("s", 0.5))
        return Result(call_tool_result(text=f"rested {request.arguments.get('i')}"))


def refuse(server: OwnRedis, how: str) -> None:
    with server.admin() as client:
        if how == "READONLY":
            client.replicaof("127.0.0.1", free_port())  # a master that is not there
        for name, value in REFUSE.get(how, []):
            client.config_set(name, value)


def accept(server: OwnRedis, how: str) -> None:
    with server.admin() as client:
        if how == "READONLY":
            client.replicaof("NO", "ONE")
        for name, value in ACCEPT.get(how, []):
            client.config_set(name, value)


def serve(live_server: LiveServers, server: OwnRedis) -> str:
    router = mcp_router(
        server_name="refusals",
        server_version="1",
        tools=[Nap],
        redis_url=server.url,
        task_options=TaskOptions(poll_interval_ms=100),  # a 6 s lease: longer than the refusal
    )
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return live_server(app) + "/mcp"


def body(i: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "method": method, "params": {**params, "_meta": META}}


async def create(http: httpx.AsyncClient, url: str, i: int, s: float = 0.05) -> httpx.Response:
    params = {"name": "nap", "arguments": {"s": s, "i": i}}
    headers = {**HEADERS, "mcp-method": "tools/call", "mcp-name": "nap"}
    return await http.post(url, json=body(i, "tools/call", params), headers=headers)


async def status(http: httpx.AsyncClient, url: str, task_id: str) -> httpx.Response:
    headers = {**HEADERS, "mcp-method": "tasks/get", "mcp-name": task_id}
    return await http.post(url, json=body(0, "tasks/get", {"taskId": task_id}), headers=headers)


@pytest.mark.parametrize("how", ["OOM", "NOREPLICAS", "READONLY"])
async def test_task_creation_while_redis_refuses_writes_is_a_503_with_retry_after(
    own_redis: OwnRedis, live_server: LiveServers, how: str
) -> None:
    url = serve(live_server, own_redis)
    async with httpx.AsyncClient(timeout=30) as http:
        assert (await create(http, url, 0)).json()["result"]["resultType"] == "task"
        refuse(own_redis, how)
        replies = [await create(http, url, i) for i in range(1, 31)]
        accept(own_redis, how)
        await asyncio.sleep(0.6)  # the breaker's cooldown
        after = await create(http, url, 31)
    outcomes = Counter(
        (r.status_code, r.headers.get("retry-after"), r.json()["error"]["data"]["reason"])
        for r in replies
    )
    assert outcomes == {(503, "1", "storage_unavailable"): 30}, [r.text for r in replies[:3]]
    assert after.status_code == 200 and after.json()["result"]["resultType"] == "task"


@pytest.mark.parametrize("how", ["OOM", "NOREPLICAS"])
async def test_tasks_ending_while_redis_refuses_writes_complete_once_it_accepts(
    own_redis: OwnRedis, live_server: LiveServers, how: str
) -> None:
    url = serve(live_server, own_redis)
    async with httpx.AsyncClient(timeout=30) as http:
        created = await asyncio.gather(*(create(http, url, i, s=0.3) for i in range(14)))
        ids = [reply.json()["result"]["taskId"] for reply in created]
        refuse(own_redis, how)  # every task ends while its end is refused
        await asyncio.sleep(1.0)
        during = [(await status(http, url, task_id)).status_code for task_id in ids]
        accept(own_redis, how)
        records: list[dict[str, Any]] = []
        for task_id in ids:  # the ends are retried at most 1 s apart: all stored by now
            for _ in range(30):
                record = (await status(http, url, task_id)).json().get("result")
                if record is not None and record["status"] != "working":
                    break
                await asyncio.sleep(0.1)
            records.append(record or {})
    assert set(during) <= {200, 503}
    assert [r.get("status") for r in records] == ["completed"] * 14, records
    texts = sorted(r["result"]["content"][0]["text"] for r in records)
    assert texts == sorted(f"rested {i}" for i in range(14))


def test_the_refusal_codes_are_read_from_redis_errors_a_script_met_too() -> None:
    oom = "command not allowed when used memory > 'maxmemory'. script: 1f0, on @user_script:3."
    assert refusal(redis.exceptions.OutOfMemoryError(oom)) == "OOM"  # redis-py drops the code
    assert refusal(redis.exceptions.ReadOnlyError("You can't write against a replica.")) == (
        "READONLY"
    )
    assert refusal(redis.ResponseError("NOREPLICAS Not enough good replicas to write.")) == (
        "NOREPLICAS"
    )
    wrapped = "Error running script (call to f_1): @user_script:3: -MISCONF Redis is configured"
    assert refusal(redis.ResponseError(wrapped)) == "MISCONF"
    assert refusal(redis.ResponseError("ERR wrong number of arguments")) is None
    assert refusal(redis.ResponseError("WRONGTYPE Operation against a key")) is None
    assert refusal(ValueError("OOM")) is None


async def test_a_refusal_is_a_store_failure_the_breaker_names_by_its_code() -> None:
    breaker = Breaker("redis", (redis.RedisError,))

    async def full() -> None:
        raise redis.ResponseError("OOM command not allowed when used memory > 'maxmemory'.")

    with pytest.raises(StorageUnavailable) as failed:
        await breaker.run(lambda: refusing(full))
    assert "redis is unreachable (refusing: OOM)" in str(failed.value)
    assert issubclass(WritesRefused, StoreFailure) and issubclass(WritesRefused, redis.RedisError)

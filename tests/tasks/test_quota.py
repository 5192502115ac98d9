"""tasks.quota, with the store's TaskQuota: one hostile owner floods a real server with tasks.

The default quota holds: of 300 creations of long tasks by one owner (c=16, real HTTP),
``live_per_owner`` are taken, every other one is a 429 ``task_quota`` (-32029, ``Retry-After``,
``data.limit``), the server's live asyncio tasks stay bounded, and another owner's task is
created and keeps running. bench/task_flood.py measures 10,000 (RSS, asyncio tasks).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI, Request

from genmcp import (
    Channel,
    Result,
    Suite,
    TaskOptions,
    TaskQuota,
    Tool,
    ToolRequest,
    call_tool_result,
    mcp_router,
)
from support.server import LiveServer, LiveServers

EXT: Final = "io.modelcontextprotocol/tasks"
META: Final = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXT: {}}},
    "io.modelcontextprotocol/clientInfo": {"name": "flood", "version": "0"},
}
HEADERS: Final = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "nap",
}


class Nap(Tool, name="nap", description="Sleeps two minutes.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        await asyncio.sleep(120)
        return Result(call_tool_result(text="rested"))


def user(request: Request) -> dict[str, Any]:
    return {"principal": request.headers.get("x-user", "mallory")}


def body(i: int) -> dict[str, Any]:
    params = {"name": "nap", "arguments": {}, "_meta": META}
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}


async def test_a_flood_of_creations_by_one_owner_is_held_to_its_quota(
    live_server: LiveServers,
) -> None:
    suite = Suite(server_name="flood", server_version="1", tools=[Nap])
    app = FastAPI()
    app.include_router(mcp_router(suite=suite, auth=user), prefix="/mcp")
    server: LiveServer = live_server.start(app)
    url = server.url + "/mcp"

    async def loop_tasks() -> int:
        return len(asyncio.all_tasks())

    before = await server.run_in_loop(loop_tasks())
    outcomes: Counter[Any] = Counter()
    retry_after: set[str] = set()
    slots = asyncio.Semaphore(16)
    async with httpx.AsyncClient(timeout=30) as http:

        async def create(i: int) -> None:
            async with slots:
                reply = await http.post(url, json=body(i), headers=HEADERS)
            answer = reply.json()
            if "result" in answer:
                outcomes[answer["result"]["resultType"]] += 1
            else:
                error = answer["error"]
                outcomes[(reply.status_code, error["code"], error["data"]["limit"])] += 1
                retry_after.add(reply.headers.get("retry-after", ""))

        await asyncio.gather(*(create(i) for i in range(300)))
        quota = TaskQuota()
        assert outcomes == {
            "task": quota.live_per_owner,
            (429, -32029, "live_per_owner"): 300 - quota.live_per_owner,
        }
        assert retry_after == {"1"}
        during = await server.run_in_loop(loop_tasks())
        # a runner and a lease keeper per live task, plus the server's own few
        assert during - before <= 3 * quota.live_per_owner + 8, (before, during)
        other = await http.post(url, json=body(0), headers={**HEADERS, "x-user": "bob"})
        assert other.json()["result"]["resultType"] == "task", other.text
        assert suite.tasks.running == quota.live_per_owner + 1


@pytest.mark.timeout(300)  # a hang guard: its 200 clients in turn took over 60 s under load
async def test_anonymous_clients_are_not_one_owner_only_the_global_cap_holds(
    live_server: LiveServers,
) -> None:
    """Issue 47 item 6: without auth every caller's principal is None; 100 distinct clients
    each creating one task are all served (32 were before: one owner's live_per_owner), and
    ``max_live`` still bounds them all."""
    outcomes: Counter[Any] = Counter()
    for cap in (0, 40):
        quota = TaskQuota(max_live=cap)
        suite = Suite(server_name="anon", server_version="1", tools=[Nap],
                      task_options=TaskOptions(quota=quota))  # fmt: skip
        app = FastAPI()
        app.include_router(mcp_router(suite=suite), prefix="/mcp")  # no auth
        url = live_server.start(app).url + "/mcp"

        async def create(i: int, url: str = url) -> Any:
            async with httpx.AsyncClient(timeout=30) as http:  # a client of its own
                answer = (await http.post(url, json=body(i), headers=HEADERS)).json()
            return answer["result"]["resultType"] if "result" in answer else answer["error"]

        for i in range(100):
            reply = await create(i)
            outcomes[cap, reply if isinstance(reply, str) else reply["data"]["limit"]] += 1
    assert outcomes == {(0, "task"): 100, (40, "task"): 40, (40, "max_live"): 60}


async def test_sep3304_refusals_of_the_quota_only_when_asked(live_server: LiveServers) -> None:
    """``TaskOptions(sep3304=True)``: a creation over the quota is SEP-3304's (Draft) 429
    ``-32023`` (``retryAfterMs``, ``limit`` the count reached, ``remaining`` 0, the
    ``Retry-After`` and ``RateLimit-*`` headers), the shape ``RateLimit(sep3304=True)``
    answers; without it, the same refusal keeps ``task_quota``'s -32029. Over HTTP: a
    2026-07-28 request, and a 2025-11-25 session whose client declared the extension."""
    answers = {}
    for sep3304 in (True, False):
        options = TaskOptions(quota=TaskQuota(live_per_owner=1), sep3304=sep3304)
        suite = Suite(server_name="q", server_version="1", tools=[Nap], task_options=options)
        app = FastAPI()
        app.include_router(mcp_router(suite=suite, auth=user), prefix="/mcp")
        url = live_server.start(app).url + "/mcp"
        async with httpx.AsyncClient(timeout=30) as http:
            first = await http.post(url, json=body(1), headers=HEADERS)
            assert first.json()["result"]["resultType"] == "task", first.text
            answers[sep3304] = await http.post(url, json=body(2), headers=HEADERS)
    refused, plain = answers[True], answers[False]
    assert refused.status_code == 429, refused.text
    error = refused.json()["error"]
    assert error["code"] == -32023 and error["message"].startswith("Too many tasks")
    assert error["data"] == {"retryAfterMs": 1000, "limit": 1, "remaining": 0}
    assert refused.headers["retry-after"] == "1"
    assert refused.headers["ratelimit-limit"] == "1"
    assert refused.headers["ratelimit-remaining"] == "0"
    assert plain.status_code == 429 and plain.json()["error"]["code"] == -32029
    assert plain.json()["error"]["data"] == {"retryAfter": 1.0, "limit": "live_per_owner"}
    assert "ratelimit-limit" not in plain.headers

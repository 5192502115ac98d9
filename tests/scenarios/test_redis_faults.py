"""Real faults of a Redis of the test's own, under real uvicorn processes (issue 29).

Each test starts its own ``redis-server`` (``support.redis_server.OwnRedis``, with an
append-only file when it restarts on its data) and one or two uvicorn processes of
tests/storage/redis/tasks_app.py on it, then stops (SIGKILL), hangs (SIGSTOP) or restarts
that Redis while requests are in flight:

- tasks finishing while Redis restarts on its data are all ``completed`` with their results
  (their ends are retried, their leases kept), never "the process stopped";
- while Redis is down or hung, every storage-backed request (``tasks/get``, a task-mode
  ``tools/call``, ``subscriptions/listen``) answers 503 with ``Retry-After`` and a JSON-RPC
  error that says the store is unavailable and why: the refusal, the breaker's deadline or the
  open breaker, never a socket timeout (the cause is asserted, no duration: issue 45), while a
  plain 2026 ``tools/call`` (no store) keeps answering 200.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from support.client import ModernClient
from support.redis_server import OwnRedis, require_redis_server
from support.tasks_process import TasksProcess

TASKS: Final = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
SECRET: Final = "redis-faults-test-secret-0123456789abcdefghij"
TERMINAL: Final = {"completed", "failed", "cancelled"}


pytestmark = pytest.mark.long  # each test runs uvicorn processes on a Redis it faults

def start(redis: OwnRedis, **settings: str) -> TasksProcess:
    """One uvicorn process of tasks_app.py on ``redis``, serving."""
    app = TasksProcess(redis.url, prefix="faults:", root=Path(redis.dir), secret=SECRET, **settings)
    app.wait_ready()
    return app


@pytest.fixture
def redis() -> Iterator[OwnRedis]:
    server = OwnRedis(require_redis_server(), persist=True)
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def apps(redis: OwnRedis) -> Iterator[list[TasksProcess]]:
    started: list[TasksProcess] = []
    yield started
    for app in started:
        app.stop()


def client(app: TasksProcess) -> ModernClient:
    return ModernClient(app.url, validate=False, timeout=30)


async def start_task(on: ModernClient, **arguments: Any) -> str:
    reply = await on.request(
        "tools/call", {"name": "work", "arguments": arguments}, capabilities=TASKS
    )
    assert reply.result["resultType"] == "task", reply.body
    task_id: str = reply.result["taskId"]
    return task_id


async def final(on: ModernClient, task_id: str, within: float) -> dict[str, Any]:
    """The task once terminal (503s while Redis is away are retried, as a client would)."""
    deadline = time.monotonic() + within
    while True:
        reply = await on.request("tasks/get", {"taskId": task_id}, capabilities=TASKS)
        if reply.status == 200 and reply.result["status"] in TERMINAL:
            result: dict[str, Any] = reply.result
            return result
        assert reply.status in (200, 503), reply.body
        assert time.monotonic() < deadline, f"{task_id} not terminal: {reply.body!r}"
        await asyncio.sleep(0.1)


@pytest.mark.exclusive  # a 4 s outage timed against 1.5 s tasks and a 6 s lease
async def test_tasks_finishing_while_redis_restarts_on_its_data_all_complete(
    redis: OwnRedis, apps: list[TasksProcess]
) -> None:
    apps.append(start(redis))
    async with client(apps[0]) as on:
        ids = await asyncio.gather(*(start_task(on, s=1.5, label=str(i)) for i in range(20)))
        redis.stop()  # every task ends during the outage
        await asyncio.sleep(4)
        redis.start()  # on its data: the records (and their leases) are back
        tasks = await asyncio.gather(*(final(on, task_id, within=20) for task_id in ids))
    statuses = [task["status"] for task in tasks]
    assert statuses == ["completed"] * 20, [task.get("statusMessage") for task in tasks]
    texts = sorted(task["result"]["content"][0]["text"] for task in tasks)
    assert texts == sorted(f"worked {i}" for i in range(20))


async def timed(on: ModernClient, method: str, params: dict[str, Any], **options: Any) -> Any:
    started = time.monotonic()  # a hang guard (a listen that acknowledges would stream on)
    reply = await asyncio.wait_for(on.request(method, params, capabilities=TASKS, **options), 10)
    return reply, time.monotonic() - started


CAUSES: Final = {"down": "ConnectionError", "hung": "no answer in time"}
OPEN: Final = "failing; not retried yet"


def assert_unavailable(reply: Any, fault: str) -> None:
    """A 503 answered by the breaker: the fault's own cause (the refusal, or the breaker's
    0.8 s deadline: a socket timeout would say TimeoutError after 5 s), or the open breaker."""
    assert reply.status == 503, reply.body
    assert reply.headers.get("retry-after") == "1"
    error = reply.error
    assert error["data"]["reason"] == "storage_unavailable"
    assert "unreachable" in error["message"] and "retry" in error["message"]
    cause = error["message"].split("(", 1)[1].rsplit(")", 1)[0]
    assert cause in (CAUSES[fault], OPEN), error["message"]


@pytest.mark.parametrize("fault", ["down", "hung"])
async def test_storage_backed_requests_fail_fast_with_503_while_plain_calls_go_on(
    redis: OwnRedis, apps: list[TasksProcess], fault: str
) -> None:
    apps.append(start(redis))
    async with client(apps[0]) as on:
        task_id = await start_task(on, s=30)
        listen = {"notifications": {"toolsListChanged": True}}
        async with on.stream("subscriptions/listen", listen, id="warm") as warm:
            await asyncio.wait_for(anext(aiter(warm)), 5)  # the bus is subscribed once
        if fault == "down":
            redis.stop()
        else:
            redis.hang()
        try:
            figures: dict[str, float] = {}
            for attempt in range(2):  # the first detects the fault, the second meets it open
                reply, took = await timed(on, "tasks/get", {"taskId": task_id})
                assert_unavailable(reply, fault)
                figures[f"tasks/get {attempt}"] = took
                reply, took = await timed(
                    on, "tools/call", {"name": "work", "arguments": {"s": 0}}
                )
                assert_unavailable(reply, fault)
                figures[f"task-mode tools/call {attempt}"] = took
                reply, took = await timed(on, "subscriptions/listen", listen)
                assert_unavailable(reply, fault)
                figures[f"subscriptions/listen {attempt}"] = took
                started = time.monotonic()
                plain = await on.request("tools/call", {"name": "work", "arguments": {"s": 0}})
                assert plain.status == 200 and plain.result["content"][0]["text"] == "worked "
                figures[f"plain tools/call {attempt}"] = time.monotonic() - started
            print(fault, {name: f"{took * 1000:.0f} ms" for name, took in figures.items()})
        finally:
            if fault == "hung":
                redis.resume()


BACKGROUND: Final = ("info", "ping", "hello", "client|setinfo", "blpop", "subscribe")
"""Commands no single call makes: admin, connection set-up, the inbox's re-issued read."""


async def test_a_plain_2026_tools_call_costs_no_redis_command_and_a_miss_one(
    redis: OwnRedis, apps: list[TasksProcess]
) -> None:
    apps.append(start(redis))
    async with client(apps[0]) as on:
        warm = await on.request("tools/call", {"name": "work", "arguments": {"s": 0}})
        assert warm.status == 200  # the Suite started: catalog replayed, mail relay up
        before, started = redis.command_counts(), time.monotonic()
        for _ in range(50):
            reply = await on.request("tools/call", {"name": "work", "arguments": {"s": 0}})
            assert reply.status == 200 and reply.error is None
        after, took = redis.command_counts(), time.monotonic() - started
        missed = await on.request("tools/call", {"name": "nope", "arguments": {}})
        assert missed.error is not None and missed.error["code"] == -32602
        last = redis.command_counts()

    def spent(since: dict[str, int], now: dict[str, int]) -> dict[str, int]:
        return {name: count - since.get(name, 0) for name, count in now.items()
                if count != since.get(name, 0) and name not in BACKGROUND}  # fmt: skip

    calls = spent(before, after)
    beats = calls.pop("set", 0)  # the inbox heartbeat: SET alive + PEXPIRE inbox every 3 s
    assert calls.pop("pexpire", 0) == beats <= took / 3 + 1
    assert calls == {}  # 50 calls, 0 commands
    missing = spent(after, last)
    missing.pop("set", None), missing.pop("pexpire", None)
    assert missing == {"hgetall": 1}  # the miss re-read the catalog log once

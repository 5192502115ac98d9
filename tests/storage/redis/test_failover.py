"""Sentinel fails over under a real server process creating tasks: nothing accepted is lost.

A master, a replica and 3 Sentinels of the test's own (support.redis_topology), one uvicorn
process of tasks_app.py on the ``redis+sentinel://`` URL, and a client creating short tasks in
a loop while the master goes: a planned ``SENTINEL FAILOVER`` (the old master keeps accepting
writes until Sentinel demotes it, then flushes them: issue 47), or a ``kill -9``. What must
hold: every task the server accepted reads back ``completed`` with its result (0 lost, 0
"the process stopped"); every other answer is 503 with ``Retry-After``. On main 111 of 233
were lost. Marked long (make test-long); also in make test-cluster.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any, Final

import pytest

from support.client import ModernClient
from support.redis_topology import OwnSentinel
from support.tasks_process import TasksProcess

TASKS: Final = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
SECRET: Final = "redis-failover-test-secret-0123456789abcdefgh"
TERMINAL: Final = {"completed", "failed", "cancelled"}

pytestmark = [pytest.mark.long, pytest.mark.timeout(240)]  # a Sentinel switch under load


@pytest.fixture
def sentinel() -> Iterator[OwnSentinel]:
    started = OwnSentinel(sentinels=3).start()
    try:
        yield started
    finally:
        started.close()


@pytest.fixture
def app(sentinel: OwnSentinel) -> Iterator[TasksProcess]:
    started = TasksProcess(sentinel.url, prefix="failover:", root=sentinel.root, secret=SECRET)
    started.wait_ready()
    try:
        yield started
    finally:
        started.stop()


class Load:
    """Clients creating 0.2 s tasks back to back: what was accepted, what was refused."""

    def __init__(self) -> None:
        self.accepted: list[str] = []
        self.refused: list[tuple[int, str | None]] = []
        self.running = True

    async def create(self, on: ModernClient, worker: int) -> None:
        n = 0
        while self.running:
            n += 1
            arguments = {"s": 0.2, "label": f"{worker}-{n}"}
            reply = await on.request(
                "tools/call", {"name": "work", "arguments": arguments}, capabilities=TASKS
            )
            if reply.status == 200 and reply.error is None:
                assert reply.result["resultType"] == "task", reply.body
                self.accepted.append(reply.result["taskId"])
                await asyncio.sleep(0.02)  # a steady load, not thousands of tasks to read back
            else:
                self.refused.append((reply.status, reply.headers.get("retry-after")))
                await asyncio.sleep(0.05)


async def read_back(on: ModernClient, task_id: str) -> dict[str, Any]:
    """The task once terminal (503s retried, as a client would); its record or the error."""
    deadline = time.monotonic() + 30
    while True:
        reply = await on.request("tasks/get", {"taskId": task_id}, capabilities=TASKS)
        if reply.status == 200 and reply.error is not None:
            return {"status": "lost", "error": reply.error}
        if reply.status == 200 and reply.result["status"] in TERMINAL:
            result: dict[str, Any] = reply.result
            return result
        assert reply.status in (200, 503), reply.body
        assert time.monotonic() < deadline, f"{task_id} not terminal: {reply.body!r}"
        await asyncio.sleep(0.1)


async def under_load(
    app: TasksProcess, fault: Any, settle: Any
) -> tuple[Load, list[dict[str, Any]]]:
    """Create tasks from 4 clients; ``fault()`` after 1 s; ``settle()`` (blocking) until the
    topology is whole again; 1 s more of load; every accepted task read back."""
    load = Load()
    async with ModernClient(app.url, validate=False, timeout=30) as on:
        workers = [asyncio.create_task(load.create(on, n)) for n in range(4)]
        await asyncio.sleep(1.0)
        before = len(load.accepted)
        await asyncio.to_thread(fault)
        await asyncio.to_thread(settle)
        await asyncio.sleep(1.0)
        load.running = False
        await asyncio.gather(*workers)
        assert before > 0 and len(load.accepted) > before, "no load on both sides"
        tasks = await asyncio.gather(*(read_back(on, task_id) for task_id in load.accepted))
    return load, tasks


def outcome(load: Load, tasks: list[dict[str, Any]]) -> None:
    bad = [task for task in tasks if task["status"] != "completed"]
    print(f"{len(tasks)} accepted, {len(load.refused)} refused, {len(bad)} lost or failed")
    assert bad == [], bad[:3]
    assert all(status == 503 and after == "1" for status, after in load.refused), load.refused


async def test_a_planned_sentinel_failover_under_load_loses_no_accepted_task(
    sentinel: OwnSentinel, app: TasksProcess
) -> None:
    old = sentinel.master_port()
    assert old is not None

    def demoted() -> None:  # Sentinel turned the old master into a replica: it flushed
        sentinel.wait_failover(old)
        deadline = time.monotonic() + 30
        while "role:slave" not in sentinel.info(old) or "master_link_status:up" not in (
            sentinel.info(old)
        ):
            assert time.monotonic() < deadline, "the old master was never demoted"
            time.sleep(0.1)

    load, tasks = await under_load(app, sentinel.failover, demoted)
    outcome(load, tasks)


async def test_a_sentinel_master_killed_under_load_loses_no_accepted_task(
    sentinel: OwnSentinel, app: TasksProcess
) -> None:
    old = sentinel.master_port()
    assert old is not None
    load, tasks = await under_load(app, sentinel.kill_master, lambda: sentinel.wait_failover(old))
    outcome(load, tasks)

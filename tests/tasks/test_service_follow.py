"""``TaskService.follow``: a task whose work runs elsewhere (a remote mount's upstream task).

Driven directly on a memory store: the record is stored at once, the work asks for input
through the task's asker (``input_required``, answered by ``tasks/update``), its end is
stored; ``tasks/cancel`` cancels the work; a server that stops fails the task, even one
stopped before its runner's first step; ``asker.note`` sets the status message while it
runs (kept for the end by a store without ``note``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from genmcp.storage import TaskEnd, TaskOptions
from genmcp.storage.memory import MemoryBroker, MemoryTaskStore
from genmcp.tasks.service import TaskAsker, TaskService

ASSIGNS: dict[str, Any] = {}
ELICIT = {"method": "elicitation/create", "params": {"message": "Sure?", "requestedSchema": {}}}


def service() -> TaskService:
    return TaskService(None, TaskOptions(lease_ms=300), MemoryBroker(), {})


async def status(tasks: TaskService, task_id: str, want: str) -> dict[str, Any]:
    for _ in range(200):
        record = await tasks.get({"taskId": task_id}, ASSIGNS)
        if record["status"] == want:
            return record
        await asyncio.sleep(0.01)
    raise AssertionError(f"task {task_id} never became {want}: {record}")


async def test_a_followed_task_asks_through_its_asker_and_stores_its_end() -> None:
    tasks = service()

    async def work(asker: TaskAsker) -> TaskEnd:
        answers = await asker.ask({"sure": ELICIT}, lambda message: False)
        return TaskEnd("completed", result={"content": [], "answer": answers["sure"]})

    created = await tasks.follow(ASSIGNS, work)
    task_id = created["taskId"]
    asked = await status(tasks, task_id, "input_required")
    await tasks.update({"taskId": task_id, "inputResponses": {"sure": {"action": "accept"}}},
                       ASSIGNS)  # fmt: skip
    done = await status(tasks, task_id, "completed")
    await tasks.close()
    assert created["resultType"] == "task" and created["status"] == "working"
    assert asked["inputRequests"] == {"sure": ELICIT}
    assert done["result"]["answer"] == {"action": "accept"}
    assert tasks.running == 0


async def test_cancelling_a_followed_task_cancels_its_work() -> None:
    tasks = service()
    began, stopped = asyncio.Event(), asyncio.Event()

    async def work(asker: TaskAsker) -> TaskEnd:
        began.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            stopped.set()
            raise
        return TaskEnd("completed", result={"content": []})

    task_id = (await tasks.follow(ASSIGNS, work))["taskId"]
    await asyncio.wait_for(began.wait(), 5)
    await tasks.cancel({"taskId": task_id}, ASSIGNS)
    await asyncio.wait_for(stopped.wait(), 5)
    record = await status(tasks, task_id, "cancelled")
    await tasks.close()
    assert record["status"] == "cancelled"


async def test_a_server_that_stops_fails_its_followed_tasks() -> None:
    tasks = service()

    async def work(asker: TaskAsker) -> TaskEnd:
        await asyncio.sleep(30)
        return TaskEnd("completed", result={"content": []})

    task_id = (await tasks.follow(ASSIGNS, work))["taskId"]
    await tasks.close()  # at once: before the runner's first step
    record = await tasks.get({"taskId": task_id}, ASSIGNS)
    assert record["status"] == "failed"
    assert "Server shutting down" in record["error"]["message"]
    assert tasks.running == 0


async def test_a_followed_task_notes_what_it_does() -> None:
    # every TaskStore has note (issue 46: a Protocol member, no longer probed)
    for store in (MemoryTaskStore(),):
        tasks = TaskService(store, TaskOptions(lease_ms=300), MemoryBroker(), {})
        go_on = asyncio.Event()

        async def work(asker: TaskAsker, go_on: asyncio.Event = go_on) -> TaskEnd:
            await asker.note("half way")
            await go_on.wait()
            return TaskEnd("completed", result={"content": []}, message="done")

        task_id = (await tasks.follow(ASSIGNS, work))["taskId"]
        await asyncio.sleep(0.05)
        working = await tasks.get({"taskId": task_id}, ASSIGNS)
        go_on.set()
        done = await status(tasks, task_id, "completed")
        await tasks.close()
        noted = working.get("statusMessage")
        assert noted == "half way"
        assert done["statusMessage"] == "done"

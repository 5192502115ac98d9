"""Tasks through a remote mount: an upstream task followed by a task of the outer Suite.

Both servers are real uvicorn servers on loopback ports, the outer one mounting the other
by URL; the outer client is ``genmcp.Client`` over HTTP (2026-07-28, the Tasks extension
declared). The upstream decides what runs as a task; the outer client sees only the outer
task's id (the upstream knows no such id); results, input rounds (``tasks/update``),
``notifications/tasks``, the upstream task's ``statusMessage`` while it works, and
cancellation reach across the hop.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from genmcp import (
    Channel,
    InputRequired,
    Mount,
    Result,
    Suite,
    TaskOptions,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_app,
)
from genmcp.client import Client, RPCError
from genmcp.protocol.tasks import iso_now
from genmcp.storage import Lease, TaskQuota
from genmcp.storage.memory import MemoryTaskStore
from genmcp.testing import accept
from support.server import LiveServer, LiveServers

CANCELLED = threading.Event()
STARTED = threading.Event()


class Sync(Tool, name="sync"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="at once"))


class Job(Tool, name="job", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        await asyncio.sleep(0.1)
        return Result(call_tool_result(text="job done"))


class Ask(Tool, name="ask", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        answer = (request.input_responses or {}).get("sure")
        if answer is None:
            return InputRequired({"sure": elicit_request("Sure?", {"type": "object"})})
        return Result(call_tool_result(text=f"answered {answer['content']}"))


class Forever(Tool, name="forever", task_support="required"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        STARTED.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            CANCELLED.set()
            raise
        return Result(call_tool_result(text="never"))


GO_ON = threading.Event()


class Narrated(Tool, name="narrated", task_support="required"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        await asyncio.to_thread(GO_ON.wait, 10)
        return Result(call_tool_result(text="told"))


class Recording(MemoryTaskStore):
    """The upstream's task store, which keeps the ids of the tasks it made (the test then
    writes their ``statusMessage`` as a narrating upstream would)."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    async def create(self, record: Any, lease: Lease, quota: TaskQuota | None = None) -> None:
        await super().create(record, lease, quota)
        self.ids.append(record["taskId"])


STORE = Recording()
UPSTREAM = Suite(
    server_name="jobs",
    server_version="1",
    tools=[Sync, Job, Ask, Forever, Narrated],
    task_options=TaskOptions(poll_interval_ms=50),
    task_store=STORE,
)


@pytest.fixture(scope="module")
def urls(live: LiveServers) -> tuple[str, str]:
    upstream = live(mcp_app(UPSTREAM)) + "/mcp"
    mount = Mount(url=upstream, namespace="up", timeout_s=5)
    outer = Suite(server_name="gateway", server_version="1", mounts=[mount])
    return upstream, live(mcp_app(outer)) + "/mcp"


async def test_the_upstream_decides_and_the_outer_task_has_its_own_id(
    urls: tuple[str, str],
) -> None:
    upstream, outer = urls
    async with Client(outer) as client, Client(upstream) as direct:
        sync = await client.call_tool("up_sync", {}, task=True)
        extensions = (await client.connect()).get("capabilities", {}).get("extensions") or {}
        created = await client.call_tool("up_job", {}, task=True)
        async with client.listen(task_ids=[created["taskId"]]) as notes:
            record = await client.wait_task(created["taskId"], poll=0.05)
            seen = [note async for note in _until_terminal(notes)]
        with pytest.raises(RPCError) as unknown:
            await direct.get_task(created["taskId"])
    assert "io.modelcontextprotocol/tasks" in extensions
    assert sync["content"][0]["text"] == "at once" and "taskId" not in sync
    assert created["resultType"] == "task" and created["status"] == "working"
    assert record["status"] == "completed"
    assert record["result"]["content"][0]["text"] == "job done"
    assert seen[-1]["params"]["status"] == "completed"
    assert unknown.value.code == -32602  # the upstream's id is another one


async def _until_terminal(notes: Any) -> Any:
    async for note in notes:
        yield note
        if (note.get("params") or {}).get("status") in ("completed", "failed", "cancelled"):
            return


async def test_an_upstream_task_asking_for_input_is_answered_with_tasks_update(
    urls: tuple[str, str],
) -> None:
    _, outer = urls
    async with Client(outer, capabilities={"elicitation": {}}) as client:
        created = await client.call_tool("up_ask", {}, task=True)
        task_id = created["taskId"]
        record = await client.get_task(task_id)
        for _ in range(100):
            if record["status"] == "input_required":
                break
            await asyncio.sleep(0.05)
            record = await client.get_task(task_id)
        (key, asked), *_ = record["inputRequests"].items()
        await client.update_task(task_id, {key: accept({"ok": True})})
        done = await client.wait_task(task_id, poll=0.05)
    assert asked["method"] == "elicitation/create"
    assert asked["params"]["message"] == "Sure?"
    assert done["status"] == "completed"
    assert done["result"]["content"][0]["text"] == "answered {'ok': True}"


async def test_cancelling_the_outer_task_cancels_the_upstream_one(urls: tuple[str, str]) -> None:
    _, outer = urls
    STARTED.clear()
    CANCELLED.clear()
    async with Client(outer) as client:
        with pytest.raises(RPCError) as refused:
            await client.call_tool("up_forever", {})  # task-only upstream: its -32021
        created = await client.call_tool("up_forever", {}, task=True)
        assert await asyncio.to_thread(STARTED.wait, 10)
        await client.cancel_task(created["taskId"])
        record = await client.get_task(created["taskId"])
        assert await asyncio.to_thread(CANCELLED.wait, 10)
    assert refused.value.code == -32021
    assert record["status"] == "cancelled"


async def test_the_upstream_tasks_status_message_reaches_the_outer_task_as_it_works(
    urls: tuple[str, str], live: LiveServers
) -> None:
    _, outer = urls
    upstream: LiveServer = live.started[0]
    GO_ON.clear()
    seen: list[str] = []
    async with Client(outer) as client:
        created = await client.call_tool("up_narrated", {}, task=True)
        task_id, upstream_id = created["taskId"], STORE.ids[-1]
        async with client.listen(task_ids=[task_id]) as notes:
            for step in ("step 1 of 2", "step 2 of 2"):
                await upstream.run_in_loop(STORE.note(upstream_id, step, iso_now()))
                record = await _told(client, task_id, step)
                assert record["status"] == "working"
                seen.append(record["statusMessage"])
            GO_ON.set()
            done = await client.wait_task(task_id, poll=0.05)
            told = [note["params"] async for note in _until_terminal(notes)]
    assert seen == ["step 1 of 2", "step 2 of 2"]
    assert done["status"] == "completed" and done["statusMessage"] == "step 2 of 2"
    working = [n.get("statusMessage") for n in told if n["status"] == "working"]
    assert "step 1 of 2" in working and "step 2 of 2" in working  # notifications/tasks too


async def _told(client: Client, task_id: str, message: str) -> dict[str, Any]:
    for _ in range(100):
        record = await client.get_task(task_id)
        if record.get("statusMessage") == message:
            return record
        await asyncio.sleep(0.05)
    raise AssertionError(f"the outer task never said {message!r}: {record}")

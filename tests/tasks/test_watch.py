"""``notifications/tasks`` on a ``subscriptions/listen`` stream, over real HTTP and real SSE.

A uvicorn server with the memory task store; the tests listen with ``taskIds`` through an
httpx SSE stream and drive the tasks through ``tools/call`` and ``tasks/update|cancel``. Each
notification is checked against the ext-tasks schema (``TaskStatusNotification``), tagged
with the stream's subscription id, and equal to what ``tasks/get`` answers at that moment.
A principal sees only its own tasks: another's id is left out of the acknowledgement like an
unknown one, and its changes never reach the stream. The multi-process case (a task running
in process A, the listener in B, on Redis) is in tests/storage/redis/test_tasks.py.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import pytest
from fastapi import FastAPI, Request

from genmcp import (
    Channel,
    Error,
    InputRequired,
    MCPRouter,
    Result,
    Suite,
    TaskOptions,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_router,
)
from genmcp.protocol.tasks import new_record
from genmcp.storage import Lease
from support import schema
from support.client import Exchange, ModernClient

EXT: Final = "io.modelcontextprotocol/tasks"
TASKS: Final = {"extensions": {EXT: {}}, "elicitation": {}}
SUBSCRIPTION: Final = "io.modelcontextprotocol/subscriptionId"
FORM: Final = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
WITHIN: Final = 3.0


class Gates:
    """Events the test opens to let a tool go on (the tools run in the server's thread)."""

    def __init__(self) -> None:
        self._events: dict[str, threading.Event] = {}

    def __getitem__(self, name: str) -> threading.Event:
        return self._events.setdefault(name, threading.Event())

    async def wait(self, name: str) -> None:
        if not await asyncio.to_thread(self[name].wait, 10):
            raise AssertionError(f"gate {name} never opened")

    def open_all(self) -> None:
        for event in self._events.values():
            event.set()


class Gated(Tool, name="gated", description="Asks, then answers.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, gates: Gates) -> Any:
        if request.input_responses is None:
            await gates.wait("ask")
            return InputRequired({"go": elicit_request("Go on?", FORM)})
        await gates.wait("finish")
        return Result(call_tool_result(text=f"done {request.input_responses['go']['content']}"))


class Sleep(Tool, name="sleep", description="Sleeps.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, gates: Gates) -> Any:
        await asyncio.sleep(30)
        raise AssertionError("never cancelled")


class Broken(Tool, name="broken", description="Protocol error.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, gates: Gates) -> Any:
        return Error("it broke", code=-32603, data={"why": "test"})


def user(request: Request) -> dict[str, Any]:
    return {"principal": request.headers.get("x-user", "alice")}


@pytest.fixture
def gates() -> Iterator[Gates]:
    made = Gates()
    yield made
    made.open_all()  # no tool thread left waiting


def serve(live_server: Any, gates: Gates, lease_ms: int) -> tuple[str, MCPRouter]:
    tools = [(tool, gates) for tool in (Gated, Sleep, Broken)]
    options = TaskOptions(lease_ms=lease_ms)  # listeners re-read every half lease
    suite = Suite(server_name="t", server_version="1", tools=tools, task_options=options)
    router = mcp_router(suite=suite, auth=user)
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return live_server(app), router


@pytest.fixture
def served(live_server: Any, gates: Gates) -> tuple[str, MCPRouter]:
    # re-reads every 30 s: what a test sees within WITHIN was announced by the change itself
    return serve(live_server, gates, lease_ms=60_000)


@pytest.fixture
def client(served: tuple[str, MCPRouter], modern_client: Any) -> ModernClient:
    made: ModernClient = modern_client(served[0])
    return made


async def call(client: ModernClient, name: str, **options: Any) -> str:
    reply = await client.request("tools/call", {"name": name}, capabilities=TASKS, **options)
    assert reply.result["resultType"] == "task", reply.body
    task_id: str = reply.result["taskId"]
    return task_id


async def get(client: ModernClient, task_id: str) -> dict[str, Any]:
    reply = await client.request("tasks/get", {"taskId": task_id}, capabilities=TASKS)
    shown = {k: v for k, v in reply.result.items() if k not in ("resultType", "_meta")}
    return shown


async def listen(
    client: ModernClient, *task_ids: str, **flags: Any
) -> AsyncIterator[tuple[Exchange, dict[str, Any]]]:
    headers = flags.pop("headers", None)
    notifications = {"taskIds": list(task_ids), **flags}
    async with client.stream(
        "subscriptions/listen", {"notifications": notifications}, id="L1", capabilities=TASKS,
        headers=headers,
    ) as exchange:  # fmt: skip
        assert exchange.status == 200 and exchange.reply.is_sse
        ack = await next_message(exchange)
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        yield exchange, ack["params"]["notifications"]


async def next_message(exchange: Exchange, within: float = WITHIN) -> dict[str, Any]:
    message: dict[str, Any] = await asyncio.wait_for(anext(aiter(exchange)), within)
    return message


async def next_task(exchange: Exchange) -> dict[str, Any]:
    """The next notifications/tasks: schema-checked, tagged; its params without _meta."""
    message = await next_message(exchange)
    assert message["method"] == "notifications/tasks", message
    schema.validate(message, "TaskStatusNotification", schema.TASKS)
    params = dict(message["params"])
    assert params.pop("_meta") == {SUBSCRIPTION: "L1"}
    return params


async def test_a_listener_gets_every_status_change_of_its_task_as_tasks_get_shows_it(
    client: ModernClient, gates: Gates
) -> None:
    task_id = await call(client, "gated")
    stream = listen(client, task_id, "no-such-task")
    exchange, honored = await anext(stream)
    assert honored == {"taskIds": [task_id]}  # the unknown id is not acknowledged
    first = await next_task(exchange)  # the state at subscription time
    assert first == await get(client, task_id) and first["status"] == "working"

    gates["ask"].set()
    asking = await next_task(exchange)
    assert asking["status"] == "input_required" and list(asking["inputRequests"]) == ["go"]
    assert asking == await get(client, task_id)
    answer = {"go": {"action": "accept", "content": {"ok": True}}}
    update = {"taskId": task_id, "inputResponses": answer}
    await client.request("tasks/update", update, capabilities=TASKS)
    working = await next_task(exchange)
    assert working["status"] == "working" and "inputRequests" not in working

    gates["finish"].set()
    done = await next_task(exchange)
    assert done["status"] == "completed"
    assert done["result"]["content"][0]["text"] == "done {'ok': True}"
    assert done == await get(client, task_id)
    assert done["lastUpdatedAt"] >= working["lastUpdatedAt"] >= asking["lastUpdatedAt"]
    await stream.aclose()


async def test_failed_and_cancelled_tasks_are_notified_once_with_their_error(
    client: ModernClient, served: tuple[str, MCPRouter]
) -> None:
    broken, sleeping = await call(client, "broken"), await call(client, "sleep")
    stream = listen(client, broken, sleeping, toolsListChanged=True)
    exchange, honored = await anext(stream)
    assert honored == {"taskIds": sorted([broken, sleeping]), "toolsListChanged": True}
    seen = {}
    for _ in range(2):  # the state of each at subscription time
        task = await next_task(exchange)
        seen[task["taskId"]] = task
    assert seen[broken]["status"] == "failed"
    assert seen[broken]["error"] == {"code": -32603, "message": "it broke", "data": {"why": "test"}}
    assert seen[sleeping]["status"] == "working"

    await client.request("tasks/cancel", {"taskId": sleeping}, capabilities=TASKS)
    cancelled = await next_task(exchange)
    assert cancelled["taskId"] == sleeping and cancelled["status"] == "cancelled"
    assert cancelled == await get(client, sleeping)
    await client.request("tasks/cancel", {"taskId": sleeping}, capabilities=TASKS)  # no change
    await asyncio.sleep(0.2)  # nothing more is sent for terminal tasks
    served[1].suite.remove_tool("gated")  # a marker: the next thing the stream carries
    marker = await next_message(exchange)
    assert marker["method"] == "notifications/tools/list_changed"
    assert len(exchange.reply.messages) == 5  # the ack, three notifications, the marker
    await stream.aclose()


async def test_another_principals_task_is_treated_like_an_unknown_id(
    client: ModernClient, served: tuple[str, MCPRouter], gates: Gates
) -> None:
    alices = await call(client, "gated")
    stream = listen(client, alices, toolsListChanged=True, headers={"x-user": "bob"})
    exchange, honored = await anext(stream)
    assert honored == {"toolsListChanged": True}  # no taskIds: bob may not see it
    gates["ask"].set()  # alice's task changes: bob's stream must stay silent
    async with client.stream(
        "subscriptions/listen", {"notifications": {"taskIds": [alices]}}, id="L2",
        capabilities=TASKS,
    ) as alice:  # fmt: skip
        await next_message(alice)  # her ack
        assert (await next_message(alice))["params"]["status"] in {"working", "input_required"}
    served[1].suite.remove_tool("broken")  # a marker: the next thing bob's stream carries
    marker = await next_message(exchange)
    assert marker["method"] == "notifications/tools/list_changed"
    assert [m["method"] for m in exchange.reply.messages] == [
        "notifications/subscriptions/acknowledged",
        "notifications/tools/list_changed",
    ]
    await stream.aclose()


async def test_a_task_whose_lease_lapsed_is_notified_as_failed(
    live_server: Any, modern_client: Any, gates: Gates
) -> None:
    base, router = serve(live_server, gates, lease_ms=300)  # listeners re-read every 0.15 s
    client: ModernClient = modern_client(base)
    store = router.suite.tasks.store  # a task whose process died: nobody renews it
    await store.create(new_record("orphan", "alice", 60_000, None), Lease("dead", 200))
    stream = listen(client, "orphan")
    exchange, honored = await anext(stream)
    assert honored == {"taskIds": ["orphan"]}
    assert (await next_task(exchange))["status"] == "working"
    failed = await next_task(exchange)  # found by the listener's re-read (every 0.15 s)
    assert failed["status"] == "failed" and "stopped" in failed["error"]["message"]
    await stream.aclose()


@pytest.mark.parametrize(
    ("task_ids", "why"),
    [
        ("x", "must be an array of strings"),
        ([1], "must be an array of strings"),
        ([f"t{i}" for i in range(101)], "at most 100"),
        (["x" * 257], "over 256 characters"),
    ],
)
async def test_bad_task_ids_are_invalid_params(
    client: ModernClient, task_ids: Any, why: str
) -> None:
    reply = await client.request(
        "subscriptions/listen", {"notifications": {"taskIds": task_ids}}, capabilities=TASKS
    )
    assert reply.error["code"] == -32602 and why in reply.error["message"], reply.body

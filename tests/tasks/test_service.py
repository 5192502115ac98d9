"""The Tasks extension over real HTTP: a uvicorn server, an httpx client, the memory store.

Each test drives a task the way a client does (``tools/call`` with the extension declared,
then ``tasks/get|update|cancel``) and checks the wire: the CreateTaskResult, each status,
the errors (-32021, -32602, -32601, -32020), per-principal isolation, and that the task runs
as the same worker (``InputRequired`` rounds, ``Stream`` + ``handle_message``, cancellation).
The multi-process and Redis cases are in tests/storage/redis/test_tasks.py.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Final

import pytest
from fastapi import FastAPI, Request

from genmcp import (
    Channel,
    Error,
    InputRequired,
    MCPRouter,
    Result,
    Stream,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_router,
)
from genmcp.events import Answer
from genmcp.protocol.jsonrpc import Request as RPC
from genmcp.protocol.tasks import new_record
from genmcp.storage import Lease
from support.client import ModernClient

EXT: Final = "io.modelcontextprotocol/tasks"
TASKS: Final = {"extensions": {EXT: {}}, "elicitation": {}}
FORM: Final = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


class Seen:
    """What the tools saw (they run in the server thread)."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self.closed = threading.Event()
        self.mailboxes: list[str] = []
        self.streaming = threading.Event()


class Sleep(
    Tool,
    name="sleep",
    description="Sleeps.",
    task_support="optional",
    input_schema={"type": "object", "properties": {"s": {"type": "number"}}},
):
    async def call(self, request: ToolRequest, channel: Channel, seen: Seen) -> Any:
        channel.send_progress(1, total=2)  # dropped: tasks send no progress
        channel.send_log("error", "dropped too")
        try:
            await asyncio.sleep(request.arguments.get("s", 0.05))
        except asyncio.CancelledError:
            seen.cancelled.set()
            raise
        return Result(call_tool_result(text="slept"))


class Oops(Tool, name="oops", description="Tool error.", task_support="required"):
    async def call(self, request: ToolRequest, channel: Channel, seen: Seen) -> Any:
        return Result(call_tool_result(error="no luck"))


class Broken(Tool, name="broken", description="Protocol error.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, seen: Seen) -> Any:
        return Error("it broke", code=-32603, data={"why": "test"})


class Crash(Tool, name="crash", description="Raises.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, seen: Seen) -> Any:
        raise RuntimeError("boom")


class Ask(Tool, name="ask", description="Asks twice, two keys then one.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, seen: Seen) -> Any:
        got = request.input_responses or {}
        state = request.request_state or {}
        if not state:
            if {"a", "b"} <= got.keys():
                return InputRequired({"a": elicit_request("again?", FORM)}, state={"round": 2})
            return InputRequired({"a": elicit_request("a?", FORM), "b": elicit_request("b?", FORM)})
        if "a" not in got:
            return InputRequired({"a": elicit_request("again?", FORM)}, state=state)
        return Result(call_tool_result(text=f"round {state['round']} ok={got['a']['content']}"))


class Streamer(Tool, name="streamer", description="Streams.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, seen: Seen) -> Any:
        assert channel.mailbox is not None
        seen.mailboxes.append(channel.mailbox.id)
        seen.streaming.set()
        return Stream(0)

    async def handle_message(self, message: Any, channel: Channel, state: int, seen: Seen) -> Any:
        if message == "done":
            return Result(call_tool_result(text=f"got {state} messages"))
        return Stream(state + 1)

    async def handle_close(self, channel: Channel, state: Any, seen: Seen) -> None:
        seen.closed.set()


class Plain(Tool, name="plain", description="Never a task."):
    async def call(self, request: ToolRequest, channel: Channel, seen: Seen) -> Any:
        return Result(call_tool_result(text="plain"))


def user(request: Request) -> dict[str, Any]:
    return {"principal": request.headers.get("x-user", "anonymous")}


def serve(live_server: Any, seen: Seen, *tools: type[Tool]) -> tuple[str, MCPRouter]:
    tools = tools or (Sleep, Oops, Broken, Crash, Ask, Streamer, Plain)
    suite = Suite(server_name="t", server_version="1", tools=[(t, seen) for t in tools])
    router = mcp_router(suite=suite, auth=user)
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return live_server(app), router


@pytest.fixture
def seen() -> Seen:
    return Seen()


@pytest.fixture
def client(live_server: Any, modern_client: Any, seen: Seen) -> ModernClient:
    base, _ = serve(live_server, seen)
    made: ModernClient = modern_client(base, validate=False)
    return made


async def call(client: ModernClient, name: str, **arguments: Any) -> dict[str, Any]:
    reply = await client.request(
        "tools/call", {"name": name, "arguments": arguments}, capabilities=TASKS
    )
    assert reply.status == 200 and not reply.is_sse, reply.body
    result: dict[str, Any] = reply.result
    return result


async def get(client: ModernClient, task_id: str, **options: Any) -> dict[str, Any]:
    reply = await client.request("tasks/get", {"taskId": task_id}, capabilities=TASKS, **options)
    assert reply.status == 200, reply.body
    result: dict[str, Any] = reply.result
    return result


async def settled(client: ModernClient, task_id: str, want: str = "", within: float = 5) -> Any:
    deadline = asyncio.get_running_loop().time() + within
    while True:
        task = await get(client, task_id)
        if task["status"] in {"completed", "failed", "cancelled", want}:
            return task
        assert asyncio.get_running_loop().time() < deadline, f"task stuck: {task}"
        await asyncio.sleep(0.02)


async def test_a_task_is_created_at_once_and_completes_with_the_tool_result(
    client: ModernClient,
) -> None:
    created = await call(client, "sleep", s=0.2)
    assert created["resultType"] == "task" and created["status"] == "working"
    assert {"taskId", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"} <= created.keys()
    assert not {"result", "error", "inputRequests", "requestState"} & created.keys()
    assert len(created["taskId"]) >= 22  # 128 random bits
    working = await get(client, created["taskId"])  # durable before the answer
    assert working["resultType"] == "complete" and working["status"] == "working"
    done = await settled(client, created["taskId"])
    assert done["status"] == "completed"
    assert done["result"]["content"] == [{"type": "text", "text": "slept"}]
    assert done["lastUpdatedAt"] >= done["createdAt"]


async def test_tool_errors_complete_protocol_errors_and_crashes_fail(
    client: ModernClient,
) -> None:
    oops = await settled(client, (await call(client, "oops"))["taskId"])
    assert oops["status"] == "completed" and oops["result"]["isError"] is True
    broken = await settled(client, (await call(client, "broken"))["taskId"])
    assert broken["status"] == "failed" and "result" not in broken
    assert broken["error"] == {"code": -32603, "message": "it broke", "data": {"why": "test"}}
    crash = await settled(client, (await call(client, "crash"))["taskId"])
    assert crash["status"] == "failed" and crash["error"]["code"] == -32603


async def test_cancel_stops_the_worker_and_is_idempotent(client: ModernClient, seen: Seen) -> None:
    task_id = (await call(client, "sleep", s=30))["taskId"]
    ack = await client.request("tasks/cancel", {"taskId": task_id}, capabilities=TASKS)
    assert ack.result == {"resultType": "complete", "_meta": ack.result["_meta"]}
    assert (await get(client, task_id))["status"] == "cancelled"
    assert await asyncio.to_thread(seen.cancelled.wait, 5)
    again = await client.request("tasks/cancel", {"taskId": task_id}, capabilities=TASKS)
    assert again.result["resultType"] == "complete"
    assert (await get(client, task_id))["status"] == "cancelled"


async def test_input_rounds_park_the_task_and_partial_updates_keep_it_waiting(
    client: ModernClient,
) -> None:
    task_id = (await call(client, "ask"))["taskId"]
    task = await settled(client, task_id, "input_required")
    assert task["status"] == "input_required" and set(task["inputRequests"]) == {"a", "b"}
    assert task["inputRequests"]["a"]["method"] == "elicitation/create"
    accept = {"action": "accept", "content": {"ok": True}}
    ack = await client.request(
        "tasks/update",
        {"taskId": task_id, "inputResponses": {"a": accept, "zzz": accept}},
        capabilities=TASKS,
    )
    assert ack.result["resultType"] == "complete" and "status" not in ack.result
    task = await get(client, task_id)
    assert task["status"] == "input_required" and list(task["inputRequests"]) == ["b"]
    await client.request(
        "tasks/update", {"taskId": task_id, "inputResponses": {"b": accept}}, capabilities=TASKS
    )
    # the same call runs again and asks once more: the key "a" is never reused in a task
    task = await settled(client, task_id, "input_required")
    assert task["status"] == "input_required" and list(task["inputRequests"]) == ["a.2"]
    await client.request(
        "tasks/update", {"taskId": task_id, "inputResponses": {"a.2": accept}}, capabilities=TASKS
    )
    done = await settled(client, task_id)
    assert done["status"] == "completed"
    assert done["result"]["content"][0]["text"] == "round 2 ok={'ok': True}"


async def test_a_streaming_task_takes_mailbox_messages(
    live_server: Any, modern_client: Any, seen: Seen
) -> None:
    base, router = serve(live_server, seen, Streamer)
    client: ModernClient = modern_client(base, validate=False)
    task_id = (await call(client, "streamer"))["taskId"]
    assert await asyncio.to_thread(seen.streaming.wait, 5)
    for message in ("one", "two", "done"):
        assert router.suite.send(seen.mailboxes[0], message)
    done = await settled(client, task_id)
    assert done["result"]["content"][0]["text"] == "got 2 messages"
    # cancelling a streaming task runs handle_close
    task_id = (await call(client, "streamer"))["taskId"]
    await client.request("tasks/cancel", {"taskId": task_id}, capabilities=TASKS)
    assert await asyncio.to_thread(seen.closed.wait, 5)
    assert await router.suite.wait_idle(5)


async def test_without_the_extension_no_task_is_made(client: ModernClient) -> None:
    plain = await client.request("tools/call", {"name": "sleep", "arguments": {}})
    assert plain.result["resultType"] == "complete" and "taskId" not in plain.result
    required = await client.request("tools/call", {"name": "oops", "arguments": {}})
    assert required.status == 400 and required.error["code"] == -32021
    assert required.error["data"] == {"requiredCapabilities": {"extensions": {EXT: {}}}}
    for method, params in (
        ("tasks/get", {"taskId": "x"}),
        ("tasks/update", {"taskId": "x", "inputResponses": {}}),
        ("tasks/cancel", {"taskId": "x"}),
        ("subscriptions/listen", {"notifications": {"taskIds": ["x"]}}),
    ):
        reply = await client.request(method, params)
        assert reply.status == 400 and reply.error["code"] == -32021, method
    never = await call(client, "plain")  # a tool without task support, extension declared
    assert never["resultType"] == "complete"
    legacy_hint = await client.request(
        "tools/call", {"name": "plain", "task": {"ttl": 1000}}, capabilities=TASKS
    )
    assert legacy_hint.result["resultType"] == "complete"


async def test_unknown_ids_other_principals_and_bad_params_are_invalid_params(
    client: ModernClient,
) -> None:
    created = await client.request(
        "tools/call",
        {"name": "sleep", "arguments": {"s": 30}},
        capabilities=TASKS,
        headers={"x-user": "alice"},
    )
    task_id = created.result["taskId"]
    for headers in ({"x-user": "mallory"}, {}):
        for method in ("tasks/get", "tasks/cancel"):
            reply = await client.request(
                method, {"taskId": task_id}, capabilities=TASKS, headers=headers
            )
            assert reply.error["code"] == -32602, (method, headers)
    alice = await get(client, task_id, headers={"x-user": "alice"})
    assert alice["status"] == "working"
    gone = await client.request("tasks/get", {"taskId": "nope"}, capabilities=TASKS)
    assert gone.status == 200 and gone.error["code"] == -32602
    for params in ({}, {"taskId": 7}, {"taskId": ""}):
        reply = await client.request("tasks/get", params, capabilities=TASKS, validate=False)
        assert reply.error["code"] in (-32602, -32020), params
    bad = await client.request(
        "tasks/update",
        {"taskId": task_id, "inputResponses": [1]},
        capabilities=TASKS,
        headers={"x-user": "alice"},
    )
    assert bad.error["code"] == -32602
    for removed in ("tasks/result", "tasks/list"):
        reply = await client.request(removed, {"taskId": task_id}, capabilities=TASKS)
        assert reply.status == 404 and reply.error["code"] == -32601


async def test_mcp_name_must_be_the_task_id(client: ModernClient) -> None:
    task_id = (await call(client, "sleep", s=30))["taskId"]
    wrong = await client.request(
        "tasks/get", {"taskId": task_id}, capabilities=TASKS, headers={"Mcp-Name": "other"}
    )
    assert wrong.status == 400 and wrong.error["code"] == -32020
    missing = await client.request(
        "tasks/cancel", {"taskId": task_id}, capabilities=TASKS, headers={"Mcp-Name": None}
    )
    assert missing.status == 400 and missing.error["code"] == -32020


async def test_discover_advertises_the_extension_only_with_task_tools(
    live_server: Any, modern_client: Any, seen: Seen
) -> None:
    with_tasks: ModernClient = modern_client(serve(live_server, seen)[0])
    caps = (await with_tasks.request("server/discover")).result["capabilities"]
    assert caps["extensions"] == {EXT: {}} and "tasks" not in caps
    without: ModernClient = modern_client(serve(live_server, seen, Plain)[0], validate=False)
    assert "extensions" not in (await without.request("server/discover")).result["capabilities"]
    reply = await without.request("tasks/get", {"taskId": "x"}, capabilities=TASKS)
    assert reply.status == 404 and reply.error["code"] == -32601


def test_a_bad_task_support_fails_when_the_suite_is_built() -> None:
    class Bad(Tool, name="bad", task_support="always"):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
            raise AssertionError

    with pytest.raises(ValueError, match="task_support must be one of"):
        Suite(server_name="t", server_version="1", tools=[Bad])


async def test_a_listen_naming_unknown_task_ids_is_acknowledged_without_them(
    client: ModernClient,
) -> None:
    # the acknowledgement lists the task ids honored: none of an unknown one
    # (tests/tasks/test_watch.py has the notifications themselves)
    async with client.stream(
        "subscriptions/listen",
        {"notifications": {"taskIds": ["x"], "toolsListChanged": True}},
        capabilities=TASKS,
    ) as exchange:
        assert exchange.status == 200
        ack = await anext(aiter(exchange))
    assert ack["method"] == "notifications/subscriptions/acknowledged"
    assert ack["params"]["notifications"] == {"toolsListChanged": True}


async def test_a_server_without_task_tools_honors_no_task_ids(
    live_server: Any, modern_client: Any, seen: Seen
) -> None:
    base, router = serve(live_server, seen, Plain)
    client: ModernClient = modern_client(base, validate=False)
    record = new_record("x", "anonymous", 60_000, None)  # a task of the caller's, in the store
    await router.suite.tasks.store.create(record, Lease("elsewhere", 60_000))
    wanted = {"notifications": {"taskIds": ["x"], "toolsListChanged": True}}
    async with client.stream("subscriptions/listen", wanted, capabilities=TASKS) as exchange:
        ack = await anext(aiter(exchange))
    assert ack["params"]["notifications"] == {"toolsListChanged": True}


async def test_a_server_that_stops_fails_its_running_tasks() -> None:
    suite = Suite(server_name="t", server_version="1", tools=[(Sleep, Seen())])
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": TASKS,
    }
    params = {"name": "sleep", "arguments": {"s": 30}, "_meta": meta}
    created = await suite.handle(RPC(1, "tools/call", params), {})
    answer = await created.outbox.get()
    assert isinstance(answer, Answer)
    task_id = answer.response["result"]["taskId"]
    await suite.aclose()
    record = await suite.tasks.store.get(task_id, lost={})
    assert record is not None and record["status"] == "failed"
    assert record["error"]["message"].startswith("Server shutting down")

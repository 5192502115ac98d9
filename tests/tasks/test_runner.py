"""tasks.runner over real HTTP: an outcome the store refuses ends the task as a storage failure.

The retries through a store outage and the lease kept meanwhile run against a real Redis
that stops, hangs and restarts in tests/scenarios/test_redis_faults.py.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

from fastapi import FastAPI

from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.storage import TaskEnd
from genmcp.storage.memory import MemoryTaskStore
from support.client import ModernClient

TASKS: Final = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


async def settled(client: ModernClient, task_id: str) -> Any:
    """The task once it ended (``tasks/get`` polled; a hang guard of 5 s)."""
    async with asyncio.timeout(5):
        while True:
            reply = await client.request("tasks/get", {"taskId": task_id}, capabilities=TASKS)
            assert reply.status == 200, reply.body
            if reply.result["status"] in {"completed", "failed", "cancelled"}:
                return reply.result
            await asyncio.sleep(0.02)


class SmallValues(MemoryTaskStore):
    """A store that keeps no value over 200 bytes (as a store with a value cap would)."""

    async def finish(self, task_id: str, end: TaskEnd, updated_at: str) -> dict[str, Any] | None:
        if end.result is not None and len(json.dumps(end.result)) > 200:
            raise ValueError("value too large for this store")
        return await super().finish(task_id, end, updated_at)


class Big(Tool, name="big", description="Answers 1 kB.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, arg: None) -> Any:
        return Result(call_tool_result(text="x" * 1000))


async def test_an_outcome_the_store_refuses_fails_the_task_as_a_storage_failure(
    live_server: Any, modern_client: Any
) -> None:
    store = SmallValues()
    suite = Suite(server_name="t", server_version="1", tools=[Big], task_store=store)
    app = FastAPI()
    app.include_router(mcp_router(suite=suite), prefix="/mcp")
    client = modern_client(live_server(app), validate=False)
    reply = await client.request("tools/call", {"name": "big", "arguments": {}}, capabilities=TASKS)
    assert reply.status == 200 and not reply.is_sse, reply.body
    task = await settled(client, reply.result["taskId"])
    assert task["status"] == "failed" and "result" not in task
    assert task["error"]["data"] == {"reason": "storage_failure"}
    message = task["error"]["message"]
    assert "could not be stored" in message and "value too large" in message
    assert "stopped" not in message and task["statusMessage"] == message

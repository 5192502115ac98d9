"""A genmcp app whose tasks live in Redis: one process of a multi-process deployment.

tests/storage/redis/test_tasks.py starts two or more of these with uvicorn, as separate
processes on one Redis (one key prefix per test), and kills one of them mid-task
(test_failover.py also sends ``touch`` calls: each updates one ``note://n/<k>`` resource and
answers once the notification is published). Settings come from the environment:
``TASKS_REDIS_URL``, ``TASKS_PREFIX``, ``TASKS_LEASE_MS``, ``TASKS_TTL_MS``,
``TASKS_MARKERS`` (a folder where a cancelled ``work`` call leaves a file) and
``GENMCP_SECRET_KEY`` (shared, so the sealed input rounds verify in every process).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from genmcp import (
    Channel,
    InputRequired,
    ResourceRepo,
    Result,
    Suite,
    TaskOptions,
    TaskQuota,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_router,
    read_resource_result,
    text_contents,
)
from genmcp.storage.redis import RedisBroker
from genmcp.storage.redis.tasks import RedisTaskStore

URL = os.environ.get("TASKS_REDIS_URL", "redis://127.0.0.1:6379/0")
PREFIX = os.environ.get("TASKS_PREFIX", "genmcp-tasks-app:")
MARKERS = Path(os.environ.get("TASKS_MARKERS", "."))
SECONDS = {"type": "object", "properties": {"s": {"type": "number"}, "label": {"type": "string"}}}


class Work(Tool, name="work", description="Sleeps s seconds.", task_support="optional",
           input_schema=SECONDS):  # fmt: skip
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        try:
            await asyncio.sleep(request.arguments.get("s", 1))
        except asyncio.CancelledError:
            (MARKERS / f"cancelled-{request.arguments.get('label', 'work')}").touch()
            raise
        return Result(call_tool_result(text=f"worked {request.arguments.get('label', '')}"))


class Ask(Tool, name="ask", description="Asks to confirm.", task_support="required"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        answer = (request.input_responses or {}).get("confirm")
        if answer is None:
            form = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
            return InputRequired({"confirm": elicit_request("Sure?", form)})
        confirmed = answer["content"]["ok"]
        return Result(call_tool_result(text=f"confirmed={confirmed} pid={os.getpid()}"))


class Note(ResourceRepo, template="note://n/{k}", name="note", description="A numbered note."):
    async def read(self, request: Any, channel: Channel, arg: Any) -> Any:
        return Result(read_resource_result(text_contents(request.uri, request.params["k"])))


class Touch(Tool, name="touch", description="Updates note k.",
            input_schema={"type": "object", "properties": {"k": {"type": "integer"}}}):  # fmt: skip
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        suite.resource_updated(f"note://n/{request.arguments['k']}")
        await suite.changes_published()  # acknowledged once every stream will get it
        return Result(call_tool_result(text="touched"))


suite = Suite(
    server_name="tasks-app",
    server_version="1",
    tools=[Work, Ask, Touch],
    resources=[Note],
    broker=RedisBroker.from_url(URL, prefix=PREFIX),
    task_store=RedisTaskStore.from_url(URL, prefix=PREFIX),
    task_options=TaskOptions(
        lease_ms=int(os.environ.get("TASKS_LEASE_MS", "6000")),
        ttl_ms=int(os.environ.get("TASKS_TTL_MS", "600000")),
        poll_interval_ms=200,
        quota=TaskQuota(live_per_owner=0, created_per_window=0, max_live=0),  # load tests
    ),
)
app = FastAPI()
app.include_router(mcp_router(suite=suite), prefix="/mcp")

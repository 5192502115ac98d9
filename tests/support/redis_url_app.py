"""The app ``tests/transports/test_redis_url.py`` runs in several uvicorn processes.

Scale-out in one option: ``mcp_router(..., redis_url=...)`` when ``TEST_REDIS_URL`` is set,
else nothing but the ``GENMCP_REDIS_URL`` environment variable. ``TEST_PREFIX`` is the
test's key prefix. Its tools say which process answered, ask for a name (an answer that
may be posted to another process) and run as a task (read from another process).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from fastapi import FastAPI

from genmcp import (
    Channel,
    InputRequired,
    Result,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_router,
)


class Pid(Tool, name="pid", description="The id of the process that answered."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=str(os.getpid())))


class Ask(Tool, name="ask", description="Asks the user for a name."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        answers = request.input_responses or {}
        if "name" not in answers:
            schema = {"type": "object", "properties": {"name": {"type": "string"}}}
            return InputRequired({"name": elicit_request("Your name?", schema)})
        return Result(call_tool_result(text=f"Hello {answers['name']['content']['name']}"))


class Report(Tool, name="report", description="A short task.", task_support="optional"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        await asyncio.sleep(0.05)
        return Result(call_tool_result(text=f"report by {os.getpid()}"))


url = os.environ.get("TEST_REDIS_URL")
app = FastAPI()
app.include_router(
    mcp_router(
        server_name="scaled",
        server_version="1",
        tools=[Pid, Ask, Report],
        redis_url=url,
        redis_prefix=os.environ["TEST_PREFIX"],
    ),
    prefix="/mcp",
)

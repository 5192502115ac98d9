"""The app ``tests/fastapi/test_redis_url.py`` runs in several uvicorn processes.

Scale-out in one option: ``mcp_router(..., redis_url=...)`` when ``TEST_REDIS_URL`` is set,
else nothing but the ``GENMCP_REDIS_URL`` environment variable. ``TEST_PREFIX`` is the
test's key prefix. Its tools say which process answered, ask for a name (an answer that
may be posted to another process) and run as a task (read from another process); one of
its routes, reading the lifespan's "pool" and the caller's token, is a tool too (the
scale-out setup of issue 28, where it answered ``{"status": 500}``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import FastAPI, Header, HTTPException, Request

from genmcp import (
    Channel,
    InputRequired,
    Result,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_router,
    route_tools,
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


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
    yield {"db": {7: "Ada"}}


url = os.environ.get("TEST_REDIS_URL")
app = FastAPI(lifespan=lifespan)


@app.get("/customers/{customer_id}", operation_id="get_customer")
async def get_customer(
    request: Request, customer_id: int, authorization: Annotated[str | None, Header()] = None
) -> dict[str, Any]:
    if authorization != "Bearer t1":
        raise HTTPException(401, "a bearer token is required")
    return {"name": request.state.db[customer_id], "pid": os.getpid()}


app.include_router(
    mcp_router(
        server_name="scaled",
        server_version="1",
        tools=[Pid, Ask, Report, *route_tools(app, operations=["get_customer"])],
        redis_url=url,
        redis_prefix=os.environ["TEST_PREFIX"],
    ),
    prefix="/mcp",
)

"""The app of the per-user state tests' processes: two tools over ``UserStates`` on Redis
(``STATE_REDIS_URL``, ``STATE_REDIS_PREFIX``), run in several uvicorn processes.

Who calls is three headers: ``X-Issuer`` and ``X-Subject`` make the owner key a verified
token would (``owner_key("user", issuer, subject)``), ``X-Tenant`` the tenant.
"""

from __future__ import annotations

import os
from typing import Any

from fastapi import FastAPI, Request

from genmcp import Channel, Result, Tool, ToolRequest, UserStates, call_tool_result, mcp_router
from genmcp.storage.owner import owner_key
from genmcp.storage.redis import RedisStores

NOTE = {"type": "object", "properties": {"name": {"type": "string"}, "value": {}},
        "required": ["name"]}  # fmt: skip

stores = RedisStores.from_url(
    os.environ["STATE_REDIS_URL"], prefix=os.environ["STATE_REDIS_PREFIX"]
)
assert stores.states is not None
states = UserStates(stores.states, ttl_s=600, max_names=3)


class Remember(Tool, name="remember", input_schema=NOTE):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        arguments = request.arguments
        stored = await states.of(channel).set(arguments["name"], arguments.get("value"))
        return Result(call_tool_result(structured={"stored": stored}))


class Recall(Tool, name="recall", input_schema=NOTE):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        state = channel.user_state  # the same state, reached through the middleware binding
        value = await state.get(request.arguments["name"])
        return Result(call_tool_result(structured={"value": value, "names": await state.names()}))


def who(request: Request) -> dict[str, Any]:
    issuer, subject = request.headers["x-issuer"], request.headers["x-subject"]
    return {"owner": owner_key("user", issuer, subject), "tenant": request.headers["x-tenant"]}


router = mcp_router(server_name="state", server_version="1", tools=[Remember, Recall],
                    auth=who, stores=stores, middleware=[states])  # fmt: skip
app = FastAPI()
app.include_router(router, prefix="/mcp")

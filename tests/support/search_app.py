"""The app of the catalog search tests' processes: a Suite with a ``CatalogSearch``, shared
over Redis (``SEARCH_REDIS_URL``, ``SEARCH_REDIS_PREFIX``), run in several uvicorn processes.

Who calls is the ``X-Role`` header (``admin`` or anything else): a policy hides every tool
whose name starts with ``admin_`` from all but admins. ``grow`` adds, at runtime, a tool
named by its ``name`` argument (``admin_`` ones are hidden as well), on every process;
``retire`` turns the tool ``name`` off (``Suite.disable``), on every process.
"""

from __future__ import annotations

import os
from typing import Any

from fastapi import FastAPI, Request

from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.caller import Caller
from genmcp.search import CatalogSearch
from genmcp.visibility import Item

SUITES: list[Any] = []


INVOICE = {"type": "object", "properties": {"invoice_id": {"type": "string"}}}
NAME = {"type": "object", "properties": {"name": {"type": "string"}}}


class Invoice(Tool, name="billing_refund_invoice", description="Refund a paid invoice.",
              input_schema=INVOICE):  # fmt: skip
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="refunded"))


class Purge(Tool, name="admin_purge_invoices", description="Delete every invoice for good."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="purged"))


class Added(Tool, description="A refund tool added at runtime for archived invoices."):
    def info(self, key: str, arg: Any) -> Any:
        return arg if key == "name" else super().info(key, arg)

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=str(arg)))


class Grow(Tool, name="grow", input_schema=NAME):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        suite = SUITES[0]
        suite.add_tool((Added, request.arguments["name"]))
        await suite.catalog_synced()  # every process can read it once this answers
        return Result(call_tool_result(text="added"))


class Retire(Tool, name="retire", input_schema=NAME):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        suite = SUITES[0]
        suite.disable(request.arguments["name"])
        await suite.catalog_synced()
        return Result(call_tool_result(text="retired"))


def admins_only(caller: Caller, item: Item) -> bool:
    return not item.name.startswith("admin_") or "admin" in caller.roles


def who(request: Request) -> dict[str, Any]:
    role = request.headers.get("x-role", "member")
    return {"principal": f"user-{role}", "roles": [role]}


router = mcp_router(
    server_name="search",
    server_version="1",
    tools=[Invoice, Purge, Grow, Retire],
    mounts=[CatalogSearch()],
    visibility=admins_only,
    auth=who,
    redis_url=os.environ["SEARCH_REDIS_URL"],
    redis_prefix=os.environ["SEARCH_REDIS_PREFIX"],
)
SUITES.append(router.suite)
app = FastAPI()
app.include_router(router, prefix="/mcp")

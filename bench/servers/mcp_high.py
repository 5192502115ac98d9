"""Official SDK mcp==2.3.0, high level: MCPServer with @server.tool() functions.

Run: PORT=8101 /tmp/genmcp-bench/venvs/mcp/bin/python bench/servers/mcp_high.py
Endpoint POST /mcp. STATEFUL=1 serves legacy sessions; JSON_RESPONSE=0 answers with SSE.
create_order takes pydantic models, so its validation is pydantic's (the SDK's own way).
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Annotated

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as C
from _order_models import Customer, Item, Shipping
from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

server = MCPServer("bench-mcp-high", log_level="WARNING")


@server.tool(description="Adds two numbers.")
async def add(a: float, b: float) -> str:
    return str(a + b)


@server.tool(description="Returns the text.")
async def echo(text: str) -> str:
    return text


@server.tool(description="Sends progress notifications, then returns.")
async def progress(ctx: Context, steps: int = 10, interval_ms: int = 100) -> str:
    for i in range(1, steps + 1):
        await asyncio.sleep(interval_ms / 1000)
        await ctx.report_progress(i, steps)
    return "done"


@server.tool(description=C.ORDER_DESCRIPTION)
async def create_order(
    customer: Customer,
    items: Annotated[list[Item], Field(min_length=1, max_length=100)],
    shipping: Shipping,
    coupon: Annotated[str | None, Field(max_length=32)] = None,
    notes: Annotated[str | None, Field(max_length=500)] = None,
    metadata: dict[str, str] | None = None,
) -> str:
    return C.order_summary(items)


def _extra(i: int):
    async def fn() -> str:
        return "ok"

    fn.__name__ = C.extra_name(i)
    return fn


for _i in range(C.EXTRA_TOOLS):
    server.add_tool(_extra(_i), name=C.extra_name(_i), description=C.extra_description(_i))

# UNCAPPED_SESSIONS=1 lifts the SDK's 10,000 open-session cap (the curves open 100,000)
uncapped = {"max_sessions": None} if os.environ.get("UNCAPPED_SESSIONS") == "1" else {}
app = server.streamable_http_app(
    stateless_http=not C.STATEFUL, json_response=C.JSON_RESPONSE, **uncapped
)

if __name__ == "__main__":
    C.serve(app)

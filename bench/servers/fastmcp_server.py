"""FastMCP 4.1.6 with @mcp.tool functions.

Run: PORT=8103 /tmp/genmcp-bench/venvs/fastmcp/bin/python bench/servers/fastmcp_server.py
Endpoint POST /mcp. STATEFUL=1 serves legacy sessions; JSON_RESPONSE=0 answers with SSE.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Annotated

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as C
from _order_models import Customer, Item, Shipping
from fastmcp import Context, FastMCP
from pydantic import Field

mcp = FastMCP("bench-fastmcp")


@mcp.tool(description="Adds two numbers.")
async def add(a: float, b: float) -> str:
    return str(a + b)


@mcp.tool(description="Returns the text.")
async def echo(text: str) -> str:
    return text


@mcp.tool(description="Sends progress notifications, then returns.")
async def progress(ctx: Context, steps: int = 10, interval_ms: int = 100) -> str:
    for i in range(1, steps + 1):
        await asyncio.sleep(interval_ms / 1000)
        await ctx.report_progress(i, steps)
    return "done"


@mcp.tool(description=C.ORDER_DESCRIPTION)
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
    mcp.tool(name=C.extra_name(_i), description=C.extra_description(_i))(_extra(_i))

app = mcp.http_app(path="/mcp", stateless_http=not C.STATEFUL, json_response=C.JSON_RESPONSE)

if __name__ == "__main__":
    C.serve(app)

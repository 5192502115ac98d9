"""Official SDK mcp==2.3.0, low level: mcp.server.lowlevel.Server with hand-written handlers.

Run: PORT=8102 /tmp/genmcp-bench/venvs/mcp/bin/python bench/servers/mcp_low.py
The tool list is built once; get_tool_input_schema is given (without it the SDK re-runs
on_list_tools for every 2026-07-28 tools/call). The low-level Server does not validate
arguments, so create_order validates with a jsonschema validator compiled once at import,
as a low-level user would.
"""

from __future__ import annotations

import asyncio
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common as C
import jsonschema
import mcp_types as types
from mcp.server.lowlevel import Server

TOOLS = [
    types.Tool(name="add", description="Adds two numbers.", input_schema=C.ADD_SCHEMA),
    types.Tool(name="echo", description="Returns the text.", input_schema=C.ECHO_SCHEMA),
    types.Tool(
        name="progress",
        description="Sends progress notifications, then returns.",
        input_schema=C.PROGRESS_SCHEMA,
    ),
    types.Tool(name="create_order", description=C.ORDER_DESCRIPTION, input_schema=C.ORDER_SCHEMA),
]
TOOLS += [
    types.Tool(
        name=C.extra_name(i), description=C.extra_description(i), input_schema=C.EXTRA_SCHEMA
    )
    for i in range(C.EXTRA_TOOLS)
]
SCHEMAS = {t.name: t.input_schema for t in TOOLS}
LISTING = types.ListToolsResult(tools=TOOLS)
ORDER_VALIDATOR = jsonschema.Draft202012Validator(
    C.ORDER_SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
)


def _text(s: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=s)], is_error=error)


async def on_list_tools(ctx, params) -> types.ListToolsResult:
    return LISTING


async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    name = params.name
    args = params.arguments or {}
    if name == "add":
        return _text(str(args["a"] + args["b"]))
    if name == "echo":
        return _text(args["text"])
    if name == "progress":
        steps = int(args.get("steps", 10))
        interval = int(args.get("interval_ms", 100)) / 1000
        for i in range(1, steps + 1):
            await asyncio.sleep(interval)
            await ctx.session.report_progress(i, steps)
        return _text("done")
    if name == "create_order":
        errors = list(ORDER_VALIDATOR.iter_errors(args))
        if errors:
            return _text("invalid arguments: " + errors[0].message, error=True)
        return _text(C.order_summary(args["items"]))
    if name in SCHEMAS:
        return _text("ok")
    return _text(f"unknown tool {name}", error=True)


server = Server(
    "bench-mcp-low",
    on_list_tools=on_list_tools,
    on_call_tool=on_call_tool,
    get_tool_input_schema=SCHEMAS.get,
)
app = server.streamable_http_app(stateless_http=not C.STATEFUL, json_response=C.JSON_RESPONSE)

if __name__ == "__main__":
    C.serve(app)

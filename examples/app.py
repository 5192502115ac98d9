"""The example server `make run` serves: http://127.0.0.1:8000/mcp.

Shows the main kinds of tool: a dict schema, a pydantic schema, structured
output with an output schema, a tool-level error result, and a tool that asks
the client for input (multi round-trip) before it answers.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, Field

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


class AddTool(
    Tool,
    name="add",
    description="Adds two numbers.",
    input_schema={
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    },
    annotations={"readOnlyHint": True},
    cache_control=("public", 60_000),
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        a, b = request.arguments["a"], request.arguments["b"]
        return Result(call_tool_result(text=str(a + b)))


class Greeting(BaseModel):
    name: str = Field(description="Who to greet.")
    excited: bool = False


class GreetTool(Tool, name="greet", description="Greets someone.", input_schema=Greeting):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        greeting: Greeting = request.arguments
        mark = "!" if greeting.excited else "."
        return Result(call_tool_result(text=f"Hello, {greeting.name}{mark}"))


class WeatherTool(
    Tool,
    name="weather",
    title="Weather",
    description="Current temperature in a city (made up).",
    input_schema={
        "type": "object",
        "properties": {"city": {"type": "string", "minLength": 1}},
        "required": ["city"],
    },
    output_schema={
        "type": "object",
        "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
        "required": ["city", "celsius"],
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        city = request.arguments["city"]
        return Result(call_tool_result(structured={"city": city, "celsius": 21.5}))


class DivideTool(
    Tool,
    name="divide",
    description="Divides a by b; dividing by zero is a tool error the model can read.",
    input_schema={
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        a, b = request.arguments["a"], request.arguments["b"]
        if b == 0:
            return Result(call_tool_result(error="Cannot divide by zero."))
        return Result(call_tool_result(text=str(a / b)))


class DeleteFilesTool(
    Tool,
    name="delete_files",
    description="Deletes files after the user confirms (asks the client first).",
    input_schema={
        "type": "object",
        "properties": {"paths": {"type": "array", "items": {"type": "string"}}},
        "required": ["paths"],
    },
    annotations={"destructiveHint": True},
):
    async def call(
        self, request: ToolRequest, channel: Channel, arg: Any
    ) -> Result | InputRequired:
        paths = request.arguments["paths"]
        answer = (request.input_responses or {}).get("confirm")
        if answer is None:
            ask = elicit_request(
                f"Delete {len(paths)} file(s)?",
                {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
            )
            return InputRequired({"confirm": ask}, state={"asked": len(paths)})
        if answer.get("action") == "accept" and (answer.get("content") or {}).get("ok"):
            asked = request.request_state["asked"]
            return Result(call_tool_result(text=f"Deleted {asked} file(s)."))
        return Result(call_tool_result(text="Nothing deleted."))


TOOLS = [AddTool, GreetTool, WeatherTool, DivideTool, DeleteFilesTool]

app = FastAPI(title="genmcp example")
app.include_router(
    mcp_router(server_name="genmcp-example", server_version="0.1.0", tools=TOOLS),
    prefix="/mcp",
)


@app.get("/")
async def index() -> dict[str, str]:
    """An ordinary route next to MCP."""
    return {"mcp": "/mcp"}

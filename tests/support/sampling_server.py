"""An MCP server whose tool asks the client's model (``sampling/createMessage``), for the
sampling adapters' tests, in either era.

``ask {"tools": false}``: one request (system prompt, model hint ``mini``, temperature, stop
sequence, 64 tokens); its answer comes back as the tool's JSON text. ``ask {"tools": true}``:
the request offers ``get_weather``; when the model calls it, a second round sends the
``tool_result`` ("18C and sunny"); the tool returns ``{"first": ..., "final": ...}``.
"""

from __future__ import annotations

import json
from typing import Any, Final

from genmcp import (
    Channel,
    InputRequired,
    Result,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    create_message_request,
)

__all__ = ["QUESTION", "WEATHER", "sampling_suite"]

QUESTION: Final = "What is the weather in Paris?"
WEATHER: Final = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def _first(tools: bool) -> dict[str, Any]:
    return create_message_request(
        [QUESTION],
        64,
        system_prompt="Be brief.",
        temperature=0.2,
        stop_sequences=["END"],
        model_preferences={"hints": [{"name": "mini"}], "speedPriority": 0.9},
        tools=[WEATHER] if tools else None,
        tool_choice="auto" if tools else None,
    )


class Ask(
    Tool, name="ask", input_schema={"type": "object", "properties": {"tools": {"type": "boolean"}}}
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        tools = bool(request.arguments.get("tools"))
        answers = request.input_responses or {}
        if "first" not in answers and "second" not in answers:
            return InputRequired({"first": _first(tools)})
        if "second" in answers:
            first = request.request_state["first"]
            return Result(
                call_tool_result(text=json.dumps({"first": first, "final": answers["second"]}))
            )
        first = answers["first"]
        if first.get("stopReason") != "toolUse":
            return Result(call_tool_result(text=json.dumps({"first": first})))
        used = next(b for b in first["content"] if b.get("type") == "tool_use")
        result = {
            "type": "tool_result",
            "toolUseId": used["id"],
            "content": [{"type": "text", "text": "18C and sunny"}],
        }
        messages = [
            QUESTION,
            {"role": "assistant", "content": first["content"]},
            {"role": "user", "content": [result]},
        ]
        second = create_message_request(messages, 64, tools=[WEATHER])
        return InputRequired({"second": second}, state={"first": first})


def sampling_suite() -> Suite:
    return Suite(server_name="asker", server_version="1", tools=[Ask])

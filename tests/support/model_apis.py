"""A local model API speaking OpenAI's chat completions and Anthropic's messages wire formats.

``model_api()`` is a FastAPI app (run it on uvicorn) with ``POST /v1/chat/completions`` and
``POST /v1/messages``. Each checks what its API requires (a key header, ``model``,
``messages``, ``max_tokens``; 400/401 with the API's error shape otherwise), keeps the
request body in ``app.state.requests``, and answers: with a call of the first tool when tools
were offered and no tool result came back yet, else with ``echo: <the last text>``.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

__all__ = ["model_api"]


def _openai_error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": "invalid_request_error"}}, status)


def _anthropic_error(status: int, message: str) -> JSONResponse:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    return JSONResponse(body, status)


def _last_text_openai(messages: list[dict[str, Any]]) -> str:
    last = messages[-1]
    content = last.get("content")
    if isinstance(content, str):
        return content
    return " ".join(part["text"] for part in content or [] if part.get("type") == "text")


def _last_text_anthropic(messages: list[dict[str, Any]]) -> str:
    texts = []
    for block in messages[-1]["content"]:
        if block["type"] == "text":
            texts.append(block["text"])
        elif block["type"] == "tool_result":
            texts.extend(item["text"] for item in block["content"] if item["type"] == "text")
    return " ".join(texts)


def model_api() -> FastAPI:
    app = FastAPI()
    app.state.requests = []

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        if request.headers.get("authorization") != "Bearer sk-test":
            return _openai_error(401, "Incorrect API key provided")
        body = await request.json()
        for field in ("model", "messages"):
            if field not in body:
                return _openai_error(400, f"Missing required parameter: '{field}'.")
        app.state.requests.append(body)
        messages = body["messages"]
        if body.get("tools") and messages[-1]["role"] != "tool":
            function = body["tools"][0]["function"]
            call = {
                "id": "call_1",
                "type": "function",
                "function": {"name": function["name"], "arguments": json.dumps({"city": "Paris"})},
            }
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            reason = "tool_calls"
        else:
            message = {"role": "assistant", "content": "echo: " + _last_text_openai(messages)}
            reason = "stop"
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"] + "-2024",
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    @app.post("/v1/messages")
    async def messages(request: Request) -> Any:
        if request.headers.get("x-api-key") != "sk-ant-test":
            return _anthropic_error(401, "invalid x-api-key")
        if not request.headers.get("anthropic-version"):
            return _anthropic_error(400, "anthropic-version: header is required")
        body = await request.json()
        for field in ("model", "messages", "max_tokens"):
            if field not in body:
                return _anthropic_error(400, f"{field}: Field required")
        app.state.requests.append(body)
        sent = body["messages"]
        answered = any(b["type"] == "tool_result" for b in sent[-1]["content"])
        if body.get("tools") and not answered:
            tool = body["tools"][0]
            content = [
                {"type": "text", "text": "Let me look."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": tool["name"],
                    "input": {"city": "Paris"},
                },
            ]
            reason = "tool_use"
        else:
            content = [{"type": "text", "text": "echo: " + _last_text_anthropic(sent)}]
            reason = "end_turn"
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": content,
            "model": body["model"],
            "stop_reason": reason,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }

    return app

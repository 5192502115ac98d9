"""AnthropicSampling: a server tool's sampling answered by Anthropic's messages API (a local
FastAPI app speaking its wire format on uvicorn), in both eras, with and without tool use;
what the API received is checked field by field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from genmcp import mcp_app
from genmcp.client import Client, RPCError
from genmcp.client.sampling.anthropic import API_VERSION, AnthropicSampling
from support.model_apis import model_api
from support.sampling_server import QUESTION, WEATHER, sampling_suite
from support.server import LiveServers

ERAS = pytest.mark.parametrize("era", [None, "2025-11-25"], ids=["2026-07-28", "2025-11-25"])
MODELS = ["claude-opus-4", "claude-haiku-mini-4"]


def served(live_server: LiveServers) -> tuple[str, str, Any]:
    api = model_api()
    base = live_server(api)
    url = live_server(mcp_app(sampling_suite(), path="/mcp")) + "/mcp"
    return base, url, api


@ERAS
async def test_a_plain_round_trip(live_server: LiveServers, era: str | None) -> None:
    base, url, api = served(live_server)
    sampling = AnthropicSampling(base, api_key="sk-ant-test", model=MODELS[0], models=MODELS)
    try:
        async with Client(url, protocol=era, sampling=sampling) as client:
            result = await client.call_tool("ask", {"tools": False})
    finally:
        await sampling.aclose()
    answer = json.loads(result["content"][0]["text"])["first"]
    assert answer == {
        "role": "assistant",
        "model": MODELS[1],
        "stopReason": "endTurn",
        "content": {"type": "text", "text": f"echo: {QUESTION}"},
    }
    [sent] = api.state.requests
    assert sent == {
        "model": MODELS[1],
        "max_tokens": 64,
        "system": "Be brief.",
        "temperature": 0.2,
        "stop_sequences": ["END"],
        "messages": [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}],
    }


@ERAS
async def test_tool_use_round_trip(live_server: LiveServers, era: str | None) -> None:
    base, url, api = served(live_server)
    sampling = AnthropicSampling(base, api_key="sk-ant-test", model=MODELS[0])
    try:
        async with Client(
            url, protocol=era, sampling=sampling, capabilities=sampling.capabilities
        ) as client:
            result = await client.call_tool("ask", {"tools": True})
    finally:
        await sampling.aclose()
    found = json.loads(result["content"][0]["text"])
    assert found["first"]["stopReason"] == "toolUse"
    assert found["first"]["content"] == [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
    ]
    assert found["final"]["content"] == [{"type": "text", "text": "echo: 18C and sunny"}]
    assert found["final"]["model"] == MODELS[0]  # no hint in the second request: the default
    first, second = api.state.requests
    assert first["tools"] == [
        {
            "name": "get_weather",
            "description": WEATHER["description"],
            "input_schema": WEATHER["inputSchema"],
        }
    ]
    assert first["tool_choice"] == {"type": "auto"}
    assert second["messages"][1:] == [
        {"role": "assistant", "content": found["first"]["content"]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": "18C and sunny"}],
                }
            ],
        },
    ]


async def test_headers_and_errors(live_server: LiveServers) -> None:
    base = live_server(model_api())
    sampling = AnthropicSampling(base, api_key="wrong", model="claude-opus-4")
    assert sampling.auth_headers() == {"anthropic-version": API_VERSION, "x-api-key": "wrong"}
    try:
        with pytest.raises(RPCError) as caught:
            await sampling(
                {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "x"}}],
                    "maxTokens": 5,
                }
            )
        assert caught.value.code == -32603 and caught.value.data["status"] == 401
        assert caught.value.data["error"]["type"] == "invalid_request_error"
        with pytest.raises(RPCError) as bad:
            await sampling(
                {
                    "messages": [
                        {
                            "role": "user",
                            "content": {"type": "audio", "data": "AA", "mimeType": "audio/wav"},
                        }
                    ],
                    "maxTokens": 5,
                }
            )
        assert bad.value.code == -32602
    finally:
        await sampling.aclose()

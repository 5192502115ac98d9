"""OpenAISampling: a server tool's sampling answered by an OpenAI-compatible chat API (a
local FastAPI app speaking its wire format on uvicorn), in both eras, with and without tool
use; what the API received is checked field by field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from genmcp import mcp_app
from genmcp.client import Client, RPCError
from genmcp.client.sampling.openai import OpenAISampling
from support.model_apis import model_api
from support.sampling_server import QUESTION, sampling_suite
from support.server import LiveServers

ERAS = pytest.mark.parametrize("era", [None, "2025-11-25"], ids=["2026-07-28", "2025-11-25"])


def served(live_server: LiveServers) -> tuple[str, str, Any]:
    api = model_api()
    base = live_server(api) + "/v1"
    url = live_server(mcp_app(sampling_suite(), path="/mcp")) + "/mcp"
    return base, url, api


@ERAS
async def test_a_plain_round_trip(live_server: LiveServers, era: str | None) -> None:
    base, url, api = served(live_server)
    sampling = OpenAISampling(base, api_key="sk-test", model="gpt-4o", models=["gpt-4o-mini"])
    try:
        async with Client(url, protocol=era, sampling=sampling) as client:
            result = await client.call_tool("ask", {"tools": False})
    finally:
        await sampling.aclose()
    answer = json.loads(result["content"][0]["text"])["first"]
    assert answer == {
        "role": "assistant",
        "model": "gpt-4o-mini-2024",
        "stopReason": "endTurn",
        "content": {"type": "text", "text": f"echo: {QUESTION}"},
    }
    [sent] = api.state.requests
    assert sent == {
        "model": "gpt-4o-mini",  # the hint "mini" chose it over the default
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": QUESTION}]},
        ],
        "max_tokens": 64,
        "temperature": 0.2,
        "stop": ["END"],
    }


@ERAS
async def test_tool_use_round_trip(live_server: LiveServers, era: str | None) -> None:
    base, url, api = served(live_server)
    sampling = OpenAISampling(base, api_key="sk-test", model="gpt-4o")
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
        {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}
    ]
    assert found["final"]["content"] == [{"type": "text", "text": "echo: 18C and sunny"}]
    first, second = api.state.requests
    assert first["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "The weather in a city.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    assert first["tool_choice"] == "auto"
    assert second["messages"][1:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "18C and sunny"},
    ]


async def test_an_api_error_is_an_rpc_error(live_server: LiveServers) -> None:
    base = live_server(model_api()) + "/v1"
    sampling = OpenAISampling(base, api_key="wrong", model="gpt-4o")
    try:
        with pytest.raises(RPCError) as caught:
            await sampling(
                {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "x"}}],
                    "maxTokens": 5,
                }
            )
        assert caught.value.code == -32603 and caught.value.data["status"] == 401
        with pytest.raises(RPCError) as bad:
            await sampling(
                {
                    "messages": [
                        {
                            "role": "user",
                            "content": {"type": "audio", "data": "AA", "mimeType": "audio/ogg"},
                        }
                    ],
                    "maxTokens": 5,
                }
            )
        assert bad.value.code == -32602
        assert sampling.requests == 1  # the bad request never went out
    finally:
        await sampling.aclose()


async def test_tool_blocks_in_the_wrong_role_are_refused() -> None:
    sampling = OpenAISampling("http://127.0.0.1:9/v1", model="gpt-4o")
    used = {"type": "tool_use", "id": "c", "name": "t", "input": {}}
    try:
        with pytest.raises(RPCError) as caught:
            await sampling({"messages": [{"role": "user", "content": [used]}], "maxTokens": 5})
        assert caught.value.code == -32602 and sampling.requests == 0
    finally:
        await sampling.aclose()


async def test_max_tokens_may_go_under_another_name() -> None:
    sampling = OpenAISampling(
        "http://127.0.0.1:9/v1", model="o3", tokens_field="max_completion_tokens"
    )
    try:
        params = {
            "messages": [{"role": "user", "content": {"type": "text", "text": "x"}}],
            "maxTokens": 7,
        }
        body = sampling.request_body(params, "o3")
        assert body["max_completion_tokens"] == 7 and "max_tokens" not in body
    finally:
        await sampling.aclose()

"""The official Python SDK client (`mcp==2.3.0`) against examples/routes_as_tools.py.

A real uvicorn serves the example; the SDK lists the generated tools and calls them over
Streamable HTTP with and without the bearer token the routes' own dependency demands.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Final

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from support import examples
from support.server import LiveServers

example = examples.load("routes_as_tools")
TOKEN: Final = {"Authorization": "Bearer secret-token"}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(example.app) + "/mcp"
    finally:
        live.stop_all()


@contextlib.asynccontextmanager
async def connect(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[Client]:
    """An SDK client sending ``headers`` on every request (the HTTP client is ours to close)."""
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode="2026-07-28") as client:
            yield client


async def test_the_sdk_lists_the_generated_tools(url: str) -> None:
    async with connect(url, TOKEN) as client:
        listing = await client.list_tools()
    tools = {tool.name: tool for tool in listing.tools}
    assert sorted(tools) == ["create_item", "get_item"]
    assert tools["get_item"].input_schema["required"] == ["item_id"]
    assert tools["get_item"].annotations is not None
    assert tools["get_item"].annotations.read_only_hint is True
    assert tools["create_item"].input_schema["required"] == ["name", "price"]
    assert tools["create_item"].output_schema is not None


async def test_the_sdk_calls_the_routes_with_the_token(url: str) -> None:
    async with connect(url, TOKEN) as client:
        await client.list_tools()  # lets the SDK check structured output against the schema
        created = await client.call_tool("create_item", {"name": "saw", "price": 9.5})
        assert created.is_error is False
        assert created.structured_content is not None
        item_id = created.structured_content["id"]
        read = await client.call_tool("get_item", {"item_id": item_id})
    assert read.structured_content == {"name": "saw", "price": 9.5, "id": item_id}


async def test_without_the_token_the_routes_own_401_is_an_error_result(url: str) -> None:
    async with connect(url) as client:
        result = await client.call_tool("get_item", {"item_id": 1})
    assert result.is_error is True
    text = result.content[0].model_dump()["text"]
    assert text == '{"status": 401, "detail": "A valid bearer token is required"}'


async def test_a_missing_item_is_the_routes_404(url: str) -> None:
    async with connect(url, TOKEN) as client:
        result = await client.call_tool("get_item", {"item_id": 404404})
    assert result.is_error is True
    assert '"status": 404' in result.content[0].model_dump()["text"]

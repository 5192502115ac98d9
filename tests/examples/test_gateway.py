"""``examples/gateway.py``: the everything server's Suite mounted in-process, served by uvicorn.

The official Python SDK client calls a mounted tool with progress and answers a mounted
tool's elicitation round, in both eras; a trigger tool changes the mounted Suite and the
gateway serves the change.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ElicitRequestParams, ElicitResult

from support.examples import load
from support.server import LiveServers

MODES: Final = ("2026-07-28", "legacy")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(load("gateway").app) + "/mcp"
    finally:
        live.stop_all()


async def answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})


@contextlib.asynccontextmanager
async def connect(url: str, mode: str) -> AsyncIterator[Client]:
    async with Client(
        streamable_http_client(url), mode=mode, elicitation_callback=answer
    ) as client:
        yield client


def text_of(result: Any) -> str:
    text: str = result.content[0].model_dump()["text"]
    return text


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_calls_a_mounted_tool_with_progress(url: str, mode: str) -> None:
    seen: list[float] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append(value)

    async with connect(url, mode) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        result = await client.call_tool("test_tool_with_progress", {}, progress_callback=progress)
        asked = await client.call_tool("test_elicitation", {"message": "Who?"})
    assert {"test_simple_text", "test_tool_with_progress", "test_elicitation"} <= names
    assert result.is_error is False
    assert seen == [0, 50, 100]
    assert "ada@example.com" in text_of(asked)


@pytest.mark.parametrize("mode", MODES)
async def test_a_change_of_the_mounted_suite_reaches_the_sdk(url: str, mode: str) -> None:
    async with connect(url, mode) as client:
        before = {tool.name for tool in (await client.list_tools()).tools}
        added = await client.call_tool("test_trigger_tool_change", {})
        during = {tool.name for tool in (await client.list_tools()).tools}
        removed = await client.call_tool("test_trigger_tool_change", {})
        after = {tool.name for tool in (await client.list_tools()).tools}
    assert "test_dynamic_tool" not in before
    assert text_of(added) == "Added test_dynamic_tool."
    assert during == before | {"test_dynamic_tool"}
    assert text_of(removed) == "Removed test_dynamic_tool."
    assert after == before

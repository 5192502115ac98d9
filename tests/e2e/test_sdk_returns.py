"""The official Python SDK client against ``@tool`` functions returning lists, tuples, numbers
and ``Model | None``, both eras.

The SDK validates each ``structuredContent`` against the tool's advertised ``outputSchema``
(and refuses a result that does not conform), so these calls prove the generated schemas and
the ``{"result": ...}`` wrapping agree exactly.
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import pytest
from fastapi import FastAPI
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pydantic import BaseModel

from genmcp import mcp_router, tool
from support.server import LiveServers

MODES: Final = ("2026-07-28", "legacy")


class Ticket(BaseModel):
    id: int
    title: str
    opened: datetime.date


class Node(BaseModel):
    name: str
    children: list[Node] = []


@tool
async def search(query: str) -> list[Ticket]:
    return [Ticket(id=1, title=query, opened=datetime.date(2026, 7, 28))]


@tool
def pair() -> tuple[int, str]:
    return 7, "seven"


@tool
async def find(ticket_id: int) -> Ticket | None:
    return Ticket(id=ticket_id, title="t", opened=datetime.date(2026, 1, 2)) if ticket_id else None


@tool
async def ratio() -> float:
    return 0.25


@tool
async def tree() -> list[Node]:
    return [Node(name="root", children=[Node(name="leaf")])]


@tool
async def by_title() -> dict[str, Ticket]:
    return {"a": Ticket(id=2, title="a", opened=datetime.date(2026, 3, 4))}


def app() -> FastAPI:
    served = FastAPI()
    served.include_router(
        mcp_router(
            server_name="returns",
            server_version="1",
            secret_key="s" * 48,
            tools=[search, pair, find, ratio, tree, by_title],
        ),
        prefix="/mcp",
    )
    return served


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(app()) + "/mcp"
    finally:
        live.stop_all()


@contextlib.asynccontextmanager
async def connect(url: str, mode: str) -> AsyncIterator[Client]:
    async with create_mcp_http_client() as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            yield client


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_accepts_every_structured_return(url: str, mode: str) -> None:
    calls: dict[str, tuple[dict[str, Any], Any]] = {
        "search": ({"query": "disk"}, {"result": [
            {"id": 1, "title": "disk", "opened": "2026-07-28"}
        ]}),
        "pair": ({}, {"result": [7, "seven"]}),
        "find": ({"ticket_id": 3}, {"result": {"id": 3, "title": "t", "opened": "2026-01-02"}}),
        "ratio": ({}, {"result": 0.25}),
        "tree": ({}, {"result": [
            {"name": "root", "children": [{"name": "leaf", "children": []}]}
        ]}),
        "by_title": ({}, {"a": {"id": 2, "title": "a", "opened": "2026-03-04"}}),
    }  # fmt: skip
    async with connect(url, mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name, (arguments, expected) in calls.items():
            assert tools[name].output_schema is not None, name
            called = await client.call_tool(name, arguments)  # the SDK validates it
            assert called.is_error is False, name
            assert called.structured_content == expected, name
        missing = await client.call_tool("find", {"ticket_id": 0})
    assert missing.structured_content == {"result": None}

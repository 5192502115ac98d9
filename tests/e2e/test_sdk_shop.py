"""The official Python SDK client (`mcp==2.3.0`) against `examples/shop_app.py`, both eras.

A real uvicorn serves the shop (its lifespan, bearer auth, a structured-output tool, an
elicitation, a resource template, a prompt with completion); the SDK connects in
2026-07-28 and in a 2025 session (`mode="legacy"`) with the bearer token on every request.
`list_tools()` must succeed for the whole server and every result must pass the SDK's own
validation (structured content against the declared output schema).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import (
    ElicitRequestParams,
    ElicitResult,
    PromptReference,
    ResourceTemplateReference,
)

from support.examples import load
from support.server import LiveServers

TOKEN: Final = {"Authorization": "Bearer alice-token"}
MODES: Final = ("2026-07-28", "legacy")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(load("shop_app").app) + "/mcp"
    finally:
        live.stop_all()


async def say_yes(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    assert params.message == "Buy a hammer?"
    return ElicitResult(action="accept", content={"yes": True})


@contextlib.asynccontextmanager
async def connect(url: str, mode: str, **options: Any) -> AsyncIterator[Client]:
    async with create_mcp_http_client(headers=TOKEN) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, **options) as client:
            yield client


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_uses_every_feature_of_the_shop(url: str, mode: str) -> None:
    async with connect(url, mode, elicitation_callback=say_yes) as client:
        listing = await client.list_tools()
        assert sorted(tool.name for tool in listing.tools) == ["buy", "report", "restock", "stock"]
        stock = await client.call_tool("stock", {"name": "hammer"})
        assert stock.is_error is False
        assert stock.structured_content == {"units": 12}
        bought = await client.call_tool("buy", {"name": "hammer"})
        assert bought.content[0].model_dump()["text"] == "alice bought ['hammer']"
        report = await client.call_tool("report", {})
        assert report.content[0].model_dump()["text"] == "2 products"
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == [
            "shop://products/{name}"
        ]
        read = await client.read_resource("shop://products/saw")
        assert read.contents[0].model_dump()["text"] == "0 units"
        pitch = await client.get_prompt("pitch", {"product": "saw"})
        assert pitch.messages[0].content.model_dump()["text"] == "Sell saw"
        completed = await client.complete(
            PromptReference(type="ref/prompt", name="pitch"), {"name": "product", "value": "h"}
        )
        assert completed.completion.values == ["hammer"]
        templated = await client.complete(
            ResourceTemplateReference(type="ref/resource", uri="shop://products/{name}"),
            {"name": "name", "value": "s"},
        )
        assert templated.completion.values == []  # the template declares no completion

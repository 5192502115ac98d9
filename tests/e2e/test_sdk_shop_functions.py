"""The official Python SDK client against `examples/shop.py` (the function forms), both eras.

A real uvicorn serves the shop: its lifespan-made "pool", its own bearer auth, tools made by
``@tool`` (pydantic in and out, a thread, progress, an elicitation read back typed), a
``@resource`` template and a ``@prompt``, both completing. The SDK connects in 2026-07-28
(stateless) and in a 2025 session (``mode="legacy"``) with the bearer token on every
request; every result passes the SDK's own validation (structured content against the
declared output schema).
"""

from __future__ import annotations

import contextlib
import json
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
        yield live(load("shop").app) + "/mcp"
    finally:
        live.stop_all()


def answering(yes: bool) -> Any:
    async def answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        assert params.message.startswith("Delete order ")
        assert params.requested_schema["properties"]["yes"]["type"] == "boolean"
        return ElicitResult(action="accept", content={"yes": yes})

    return answer


@contextlib.asynccontextmanager
async def connect(url: str, mode: str, **options: Any) -> AsyncIterator[Client]:
    async with create_mcp_http_client(headers=TOKEN) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, **options) as client:
            yield client


def text_of(result: Any) -> str:
    text: str = result.content[0].model_dump()["text"]
    return text


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_uses_every_function_tool(url: str, mode: str) -> None:
    async with connect(url, mode, elicitation_callback=answering(True)) as client:
        listing = await client.list_tools()
        tools = {tool.name: tool for tool in listing.tools}
        assert {"create_order", "hash_text", "export_orders", "delete_order"} <= set(tools)
        assert tools["create_order"].description == "Place an order for a customer."
        assert tools["create_order"].output_schema is not None
        order = await client.call_tool("create_order", {"customer": "ada", "item": "saw"})
        assert order.is_error is False
        assert order.structured_content is not None
        assert order.structured_content["by"] == "alice"
        assert order.structured_content["quantity"] == 1
        refused = await client.call_tool("create_order", {"customer": "ada", "item": ""})
        assert refused.is_error is True
        hashed = await client.call_tool("hash_text", {"text": "x", "rounds": 1})
        assert text_of(hashed) == "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"
        seen: list[float] = []

        async def progress(value: float, total: float | None, message: str | None) -> None:
            seen.append(value)

        exported = await client.call_tool("export_orders", {}, progress_callback=progress)
        lines = text_of(exported).splitlines()
        assert lines[0] == "id,customer,item,quantity" and len(lines) == len(seen) + 1
        assert seen == [float(n) for n in range(1, len(seen) + 1)]
        deleted = await client.call_tool(
            "delete_order", {"order_id": order.structured_content["id"]}
        )
        assert text_of(deleted) == f"Order {order.structured_content['id']} deleted."


@pytest.mark.parametrize("mode", MODES)
async def test_the_user_may_keep_the_order(url: str, mode: str) -> None:
    async with connect(url, mode, elicitation_callback=answering(False)) as client:
        order = await client.call_tool("create_order", {"customer": "alan", "item": "hammer"})
        assert order.structured_content is not None
        number = order.structured_content["id"]
        kept = await client.call_tool("delete_order", {"order_id": number})
        assert text_of(kept) == f"Order {number} kept."


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_reads_completes_and_gets_the_prompt(url: str, mode: str) -> None:
    async with connect(url, mode) as client:
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == ["shop://customers/{name}"]
        read = await client.read_resource("shop://customers/ada")
        contents = read.contents[0].model_dump()
        assert contents["mime_type"] == "application/json"
        assert json.loads(contents["text"])["city"] == "Paris"
        templated = await client.complete(
            ResourceTemplateReference(type="ref/resource", uri="shop://customers/{name}"),
            {"name": "name", "value": "a"},
        )
        assert templated.completion.values == ["ada", "alan"]
        completed = await client.complete(
            PromptReference(type="ref/prompt", name="follow_up"),
            {"name": "customer", "value": "al"},
        )
        assert completed.completion.values == ["alan"]
        prompt = await client.get_prompt("follow_up", {"customer": "ada", "tone": "formal"})
        assert prompt.messages[0].content.model_dump()["text"] == (
            "Write a formal follow-up email to ada about their recent orders."
        )


@pytest.mark.parametrize("mode", MODES)
async def test_the_existing_route_answers_as_a_tool_with_the_callers_credentials(
    url: str, mode: str
) -> None:
    async with connect(url, mode) as client:
        city = await client.call_tool("customer_city", {"name": "ada"})
        assert city.is_error is False
        assert json.loads(text_of(city)) == {"name": "ada", "city": "Paris", "asked_by": "alice"}

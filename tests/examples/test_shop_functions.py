"""examples/shop.py: the shop written with the function forms, within its line budget.

Issue 28: at most 110 non-blank, non-comment lines for a FastAPI app with its own lifespan
"pool" and bearer auth, four function tools, a completing template and prompt, one route as
a tool. The in-process test kit drives it in both eras (the official SDK does too, over a
real server: tests/e2e/test_sdk_shop_functions.py); a caller without the token gets 401.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import httpx
import pytest

from genmcp.protocol.methods import TOOLS_LIST
from genmcp.testing import MCPTestClient, RPCError, accept, decline
from support import examples
from support.server import LiveServers

shop = examples.load("shop")

SOURCE: Final = Path(__file__).resolve().parents[2] / "examples" / "shop.py"
ALICE: Final = {"Authorization": "Bearer alice-token"}
BUDGET: Final = 110
VERSION: Final = "2026-07-28"
META: Final = {"io.modelcontextprotocol/protocolVersion": VERSION,
               "io.modelcontextprotocol/clientCapabilities": {}}  # fmt: skip


def counted_lines(text: str) -> int:
    """Lines that are neither blank nor a comment (docstrings count)."""
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))


def test_the_shop_fits_its_line_budget() -> None:
    assert counted_lines("a = 1\n\n   # note\nb = 2  # kept\n") == 2
    assert counted_lines(SOURCE.read_text(encoding="utf-8")) <= BUDGET


def test_it_uses_the_function_forms_and_no_tool_class() -> None:
    source = SOURCE.read_text(encoding="utf-8")
    assert "(Tool" not in source and "(Prompt" not in source and "(ResourceRepo" not in source
    for decorator in ("@tool", "@prompt", "@resource(", "route_tools("):
        assert decorator in source


@pytest.mark.parametrize("version", ["2026-07-28", "2025-11-25"])
async def test_every_feature_in_both_eras(version: str) -> None:
    key = "elicitation/create" if version.startswith("2025") else "confirm"
    async with MCPTestClient(shop.app, headers=ALICE, protocol_version=version) as client:
        order = await client.call_tool("create_order", {"customer": "ada", "item": "saw"})
        assert order.structured == {
            "customer": "ada", "item": "saw", "quantity": 1, "id": 1, "by": "alice"
        }  # fmt: skip
        hashed = await client.call_tool("hash_text", {"text": "x", "rounds": 2})
        assert len(hashed.text) == 64
        exported = await client.call_tool("export_orders", {}, progress=True)
        assert exported.text.splitlines() == ["id,customer,item,quantity", "1,ada,saw,1"]
        assert [p["progress"] for p in exported.progress] == [1]
        [customer] = await client.read_resource("shop://customers/ada")
        assert json.loads(customer["text"]) == {"name": "ada", "city": "Paris", "orders": 1}
        kept = await client.call_tool("delete_order", {"order_id": 1},
                                      answers={key: accept({"yes": False})})  # fmt: skip
        assert kept.text == "Order 1 kept."
        declined = await client.call_tool("delete_order", {"order_id": 1},
                                          answers={key: decline()})  # fmt: skip
        assert declined.is_error and "nothing was done" in declined.text
        deleted = await client.call_tool("delete_order", {"order_id": 1},
                                         answers={key: accept({"yes": True})})  # fmt: skip
        assert deleted.text == "Order 1 deleted."
        gone = await client.call_tool("delete_order", {"order_id": 1})
        assert gone.text == "There is no order 1."
        assert await client.complete("shop://customers/{name}", "name", "a") == ["ada", "alan"]
        assert await client.complete("follow_up", "customer", "") == ["ada", "alan"]
        drafted = await client.get_prompt("follow_up", {"customer": "alan"})
        assert drafted["messages"][0]["content"]["text"].startswith("Write a warm follow-up")
        with pytest.raises(RPCError) as caught:
            await client.read_resource("shop://customers/nobody")
        assert caught.value.code in (-32602, -32002)  # 2026-07-28; a 2025 session's own code


async def test_a_bad_tone_is_refused_by_its_literal_type() -> None:
    async with MCPTestClient(shop.app, headers=ALICE) as client:
        with pytest.raises(RPCError) as caught:
            await client.get_prompt("follow_up", {"customer": "ada", "tone": "rude"})
    assert caught.value.code == -32602 and "tone" in caught.value.message


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(shop.app)
    finally:
        live.stop_all()


async def test_over_http_the_apps_own_auth_guards_mcp_and_the_route(base: str) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": TOOLS_LIST, "params": {"_meta": META}}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": VERSION,
               "Mcp-Method": TOOLS_LIST}  # fmt: skip
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        refused = await http.post("/mcp", json=body, headers=headers)
        listed = await http.post("/mcp", json=body, headers={**headers, **ALICE})
        route = await http.get("/customers/ada/city", headers=ALICE)
        anonymous = await http.get("/customers/ada/city")
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    assert listed.status_code == 200 and len(listed.json()["result"]["tools"]) == 5
    assert route.json() == {"name": "ada", "city": "Paris", "asked_by": "alice"}
    assert anonymous.status_code == 401

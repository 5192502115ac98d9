"""examples/tenants.py over a real server: two tenants, roles that hide tools, a rate limit,
runtime per-tenant tools.

A hidden tool's call is answered byte for byte as a call of a tool the tenant does not
serve at all; tenant A's runtime tool is never listed by, callable in or announced to
tenant B; the rate limit answers 429 with ``Retry-After`` past its burst.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import httpx
import pytest

from support import examples
from support.client import ModernClient
from support.server import LiveServers

tenants = examples.load("tenants")

ADMIN: Final = {"X-Admin-Token": "admin-secret"}
LISTEN: Final = {"notifications": {"toolsListChanged": True}}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(tenants.app)
    finally:
        live.stop_all()


@pytest.fixture
async def open_client(base: str) -> AsyncIterator[Any]:
    made: list[ModernClient] = []

    def make(tenant: str, token: str | None = None) -> ModernClient:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        client = ModernClient(base, f"/t/{tenant}/mcp", headers=headers)
        made.append(client)
        return client

    yield make
    for client in made:
        await client.aclose()


async def names(client: ModernClient) -> list[str]:
    return [tool["name"] for tool in (await client.request("tools/list")).result["tools"]]


async def test_roles_and_a_tools_own_hook_decide_who_sees_what(open_client: Any) -> None:
    every = ["create_ticket", "search_docs"]
    assert await names(open_client("acme", "alice-acme")) == [
        "create_ticket", "delete_ticket", "export_data", "search_docs"]  # fmt: skip
    assert await names(open_client("acme", "bob-acme")) == every
    assert await names(open_client("acme")) == every  # a guest
    assert await names(open_client("globex", "carol-globex")) == [
        "beta_search", "create_ticket", "delete_ticket", "export_data", "search_docs"]  # fmt: skip
    assert await names(open_client("globex", "dan-globex")) == every
    admin = open_client("acme", "alice-acme")
    params = {"name": "delete_ticket", "arguments": {"ticket": 3}}
    deleted = await admin.request("tools/call", params)
    assert deleted.result["content"][0]["text"] == "ticket 3 deleted"


async def raw_call(base: str, tenant: str, token: str, name: str) -> httpx.Response:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}  # fmt: skip
    params = {"name": name, "arguments": {}, "_meta": meta}
    body = {"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": params}
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
               "Mcp-Name": name}  # fmt: skip
    async with httpx.AsyncClient() as http:
        return await http.post(f"{base}/t/{tenant}/mcp", content=json.dumps(body), headers=headers)


async def test_a_hidden_tools_call_is_byte_identical_to_an_unknown_tools(base: str) -> None:
    # beta_search exists in globex, hidden from dan (no beta role); acme serves none at all
    hidden = await raw_call(base, "globex", "dan-globex", "beta_search")
    unknown = await raw_call(base, "acme", "bob-acme", "beta_search")
    assert hidden.status_code == unknown.status_code == 200
    assert hidden.headers["content-type"] == unknown.headers["content-type"]
    assert hidden.content == unknown.content
    assert json.loads(hidden.content)["error"]["message"] == "Unknown tool: 'beta_search'"
    # and within one tenant: a hidden tool and a made-up one differ only by the name
    admin_only = await raw_call(base, "acme", "bob-acme", "delete_ticket")
    made_up = await raw_call(base, "acme", "bob-acme", "delete_tickets")
    assert admin_only.content.replace(b"delete_ticket", b"N") == made_up.content.replace(
        b"delete_tickets", b"N"
    )


async def test_a_token_of_another_tenant_is_refused(open_client: Any) -> None:
    reply = await open_client("globex", "alice-acme").request("tools/list", validate=False)
    assert reply.status == 404
    bad = await open_client("acme", "forged").request("tools/list", validate=False)
    assert bad.status == 401


async def next_message(exchange: Any, within: float) -> dict[str, Any]:
    message: dict[str, Any] = await asyncio.wait_for(exchange.__anext__(), within)
    return message


async def test_a_runtime_tool_stays_in_its_tenant(base: str, open_client: Any) -> None:
    acme, globex = open_client("acme", "bob-acme"), open_client("globex", "dan-globex")
    tool = {"name": "acme_report", "text": "the acme report"}
    async with (
        httpx.AsyncClient(base_url=base) as http,
        acme.stream("subscriptions/listen", LISTEN) as acme_heard,
        globex.stream("subscriptions/listen", LISTEN) as globex_heard,
    ):
        for heard in (acme_heard, globex_heard):
            assert (await next_message(heard, 5))["method"].endswith("acknowledged")
        assert (await http.post("/admin/t/acme/tools", json=tool)).status_code == 403
        assert (await http.post("/admin/t/nope/tools", json=tool, headers=ADMIN)).status_code == 404
        assert (await http.post("/admin/t/acme/tools", json=tool, headers=ADMIN)).status_code == 201
        again = await http.post("/admin/t/acme/tools", json=tool, headers=ADMIN)
        assert again.status_code == 409
        changed = await next_message(acme_heard, 5)
        assert changed["method"] == "notifications/tools/list_changed"
        assert "acme_report" in await names(acme)
        call = await acme.request("tools/call", {"name": "acme_report", "arguments": {}})
        assert call.result["content"][0]["text"] == "the acme report"
        assert "acme_report" not in await names(globex)
        refused = await globex.request("tools/call", {"name": "acme_report", "arguments": {}})
        assert refused.error is not None
        assert refused.error["message"] == "Unknown tool: 'acme_report'"
        with pytest.raises(TimeoutError):
            await next_message(globex_heard, 0.3)
        removed = await http.delete("/admin/t/acme/tools/acme_report", headers=ADMIN)
        assert removed.json() == {"removed": True}
        assert (await next_message(acme_heard, 5))["method"] == "notifications/tools/list_changed"


async def test_the_rate_limit_answers_429_past_its_burst(open_client: Any) -> None:
    client = open_client("globex", "carol-globex")
    call = {"name": "create_ticket", "arguments": {"title": "help"}}
    replies = [await client.request("tools/call", call) for _ in range(20)]
    assert all(reply.status == 200 for reply in replies[:10])  # the burst
    limited = next(reply for reply in replies if reply.status != 200)
    assert limited.status == 429 and limited.error["code"] == -32029
    assert int(limited.headers["retry-after"]) >= 1
    other = open_client("globex", "dan-globex")  # another principal has its own bucket
    assert (await other.request("tools/call", call)).status == 200

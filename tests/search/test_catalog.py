"""``CatalogSearch`` across two real uvicorn processes on one Redis, with a runtime change.

`support/search_app.py` runs in both: members never see ``admin_`` tools, admins do. A
member's searches and describes never return a hidden tool, on either process; a tool added
at runtime on the first process is described and found on the second (the describe step
re-reads the shared catalog's log, read after write), and a hidden one added at runtime stays
hidden there. The index is rebuilt only when the catalog moved.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from genmcp.client import Client
from support.topology import Nginx, Processes, require_nginx

SUPPORT = Path(__file__).resolve().parents[1] / "support"


@pytest.fixture
def processes(redis_url: str, redis_prefix: str) -> Iterator[list[str]]:
    env = {
        "SEARCH_REDIS_URL": redis_url,
        "SEARCH_REDIS_PREFIX": redis_prefix,
        "GENMCP_SECRET_KEY": "search-test-secret-0123456789abcdefghijklmnop",
    }
    group = Processes(2, env, app="search_app:app", app_dir=SUPPORT).start()
    try:
        yield [url + "/mcp" for url in group.urls()]
    finally:
        group.stop()


async def search(client: Client, query: str, **more: Any) -> list[str]:
    result = await client.call_tool("search_tools", {"query": query, **more})
    return [hit["name"] for hit in result["structuredContent"]["hits"]]


async def describe(client: Client, *names: str) -> tuple[list[str], list[str]]:
    result = await client.call_tool("describe_tools", {"names": list(names)})
    found = result["structuredContent"]
    return [tool["name"] for tool in found["tools"]], found["unknown"]


async def test_search_shows_only_what_the_caller_may_see_across_processes(
    processes: list[str],
) -> None:
    first, second = processes
    member = {"X-Role": "member"}
    admin = {"X-Role": "admin"}
    async with (
        Client(first, headers=member) as member_a,
        Client(second, headers=member) as member_b,
        Client(first, headers=admin) as admin_a,
        Client(second, headers=admin) as admin_b,
    ):
        assert await search(member_a, "refund invoice") == ["billing_refund_invoice"]
        assert set(await search(admin_a, "invoices")) == {
            "billing_refund_invoice", "admin_purge_invoices"}  # fmt: skip
        assert await search(member_a, "purge delete") == []  # hidden: as if it did not exist
        assert await describe(member_a, "admin_purge_invoices", "billing_refund_invoice") == (
            ["billing_refund_invoice"], ["admin_purge_invoices"])  # fmt: skip
        assert await search(member_a, "invoice_id") == ["billing_refund_invoice"]  # an argument

        await member_a.call_tool("grow", {"name": "archive_refund"})
        await member_a.call_tool("grow", {"name": "admin_secret_refund"})

        # the second process: the describe step reads the change if its event is not in yet
        assert await describe(member_b, "archive_refund", "admin_secret_refund") == (
            ["archive_refund"], ["admin_secret_refund"])  # fmt: skip
        found = await search(member_b, "refund archived")
        assert found[0] == "archive_refund" and "billing_refund_invoice" in found
        assert not [name for name in found if name.startswith("admin_")]
        assert "admin_secret_refund" in await search(admin_b, "refund archived")
        assert "admin_secret_refund" not in await search(member_a, "refund archived")
        listed = {tool["name"] for tool in await member_b.list_tools()}
    assert set(found) <= listed  # a search shows what tools/list shows, never more


@pytest.mark.long  # three processes behind nginx (make test-long)
async def test_through_nginx_no_search_returns_a_hidden_tool_after_a_runtime_change(
    redis_url: str, redis_prefix: str
) -> None:
    env = {
        "SEARCH_REDIS_URL": redis_url,
        "SEARCH_REDIS_PREFIX": redis_prefix,
        "GENMCP_SECRET_KEY": "search-test-secret-0123456789abcdefghijklmnop",
    }
    group = Processes(3, env, app="search_app:app", app_dir=SUPPORT).start()
    nginx = Nginx(require_nginx(), group.ports).start()
    member = {"X-Role": "member"}
    try:
        front = f"{nginx.url}/mcp"
        async with Client(front, headers=member) as client:  # each request: the next process
            await client.call_tool("grow", {"name": "archive_refund"})
            await client.call_tool("grow", {"name": "admin_secret_refund"})
        for url in group.urls():  # every process has the change (read after write)
            async with Client(url + "/mcp", headers=member) as client:
                assert await describe(client, "archive_refund") == (["archive_refund"], [])
        async with Client(front, headers=member) as client:
            found = [await search(client, "refund archived invoices") for _ in range(30)]
    finally:
        nginx.stop()
        group.stop()
    assert all(hits[0] == "archive_refund" for hits in found)
    assert not [name for hits in found for name in hits if name.startswith("admin_")]

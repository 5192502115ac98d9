"""``CatalogSearch`` across two real uvicorn processes on one Redis, with a runtime change.

`support/search_app.py` runs in both: members never see ``admin_`` tools, admins do. A
member's searches and describes never return a hidden tool, on either process; a tool added
at runtime on the first process is described and found on the second (the describe step
re-reads the shared catalog's log, read after write), and a hidden one added at runtime stays
hidden there. A tool disabled on one process is not found on the others as soon as that
change was synced (a search re-reads the shared catalog's log). A versioned tool is found by
the words of the versions the caller may run, and shown as that caller's listing shows it
(in-process). With ``resources=True`` static resources and resource templates are
searched too, a template hidden with its repository (in-process).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from genmcp import (
    ResourceRepo,
    Result,
    StaticResource,
    Suite,
    Tool,
    call_tool_result,
    versioned,
)
from genmcp.caller import Caller
from genmcp.client import Client
from genmcp.search import CatalogSearch
from genmcp.testing import MCPTestClient
from genmcp.transforms import PIN, VERSIONS
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


async def test_a_change_logged_elsewhere_is_searched_before_its_event_arrives(
    processes: list[str], redis_url: str, redis_prefix: str
) -> None:
    """A process that logged a switch and died before publishing it: its event never comes,
    yet every search and describe reads the log first."""
    from genmcp.storage.redis import RedisBroker

    member = {"X-Role": "member"}
    async with Client(processes[1], headers=member) as member_b:
        assert await search(member_b, "refund invoice") == ["billing_refund_invoice"]
        broker = RedisBroker.from_url(redis_url, prefix=redis_prefix)
        try:
            await broker.record_change("switch:tool:billing_refund_invoice", {
                "format": 1, "origin": "a-dead-process", "op": "disable", "kind": "switch",
                "key": "tool:billing_refund_invoice", "provider": None})  # fmt: skip
        finally:
            await broker.aclose()
        assert await search(member_b, "refund invoice") == []
        assert await describe(member_b, "billing_refund_invoice") == (
            [], ["billing_refund_invoice"])  # fmt: skip
        listed = {tool["name"] for tool in await member_b.list_tools()}
    assert "billing_refund_invoice" not in listed  # the search applied it for the list too
    async with Client(processes[0], headers=member) as member_a:
        assert await describe(member_a, "billing_refund_invoice") == (
            [], ["billing_refund_invoice"])  # fmt: skip


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
            before = [await search(client, "refund invoices") for _ in range(3)]
            await client.call_tool("grow", {"name": "archive_refund"})
            await client.call_tool("grow", {"name": "admin_secret_refund"})
            await client.call_tool("grow", {"name": "legacy_refund"})
            await client.call_tool("retire", {"name": "legacy_refund"})
            # at once, on whichever process: the search reads the changes first
            found = [await search(client, "refund archived invoices legacy") for _ in range(30)]
        for url in group.urls():  # every process has the change (read after write)
            async with Client(url + "/mcp", headers=member) as client:
                assert await describe(client, "archive_refund", "legacy_refund") == (
                    ["archive_refund"], ["legacy_refund"])  # fmt: skip
    finally:
        nginx.stop()
        group.stop()
    assert before == [["billing_refund_invoice"]] * 3  # indexes built before the changes
    assert all(hits[0] == "archive_refund" for hits in found)
    names = {name for hits in found for name in hits}
    assert names == {"archive_refund", "billing_refund_invoice"}  # neither hidden one


class Lookup(Tool, name="lookup", description="Looks a customer up by email."):
    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(text="v1"))


class LookupBeta(Tool, name="lookup", description="Finds customers by semantic similarity."):
    def visible(self, caller: Caller, arg: Any) -> bool:
        return caller.tenant == "beta"

    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        return Result(call_tool_result(text="beta"))


async def test_a_versioned_tool_is_found_by_the_versions_the_caller_may_run() -> None:
    suite = Suite(server_name="s", server_version="1", mounts=[CatalogSearch()],
                  tools=[versioned("lookup", {"1": Lookup, "2-beta": LookupBeta})])
    found = {}
    for tenant in ("main", "beta"):
        async with MCPTestClient(suite, assigns={"principal": "p", "tenant": tenant}) as client:
            semantic = await client.call_tool("search_tools", {"query": "semantic similarity"})
            email = await client.call_tool("search_tools", {"query": "customer email"})
            described = await client.call_tool("describe_tools", {"names": ["lookup"]})
        (tool,) = described.structured["tools"]
        found[tenant] = (
            [hit["name"] for hit in semantic.structured["hits"]],
            [hit["description"] for hit in email.structured["hits"]],
            tool["_meta"][VERSIONS],
            tool["_meta"][PIN],
        )
    assert found["main"] == ([], ["Looks a customer up by email."], ["1"], "1")
    assert found["beta"] == (  # one hit per tool, described as the caller's listing does
        ["lookup"], ["Finds customers by semantic similarity."], ["1", "2-beta"], "2-beta")


class Orders(ResourceRepo, template="orders://{id}", name="order",
             description="One customer order with its invoice lines."):  # fmt: skip
    def visible(self, caller: Caller, arg: Any) -> bool:
        return caller.tenant == "shop"

    async def read(self, request: Any, channel: Any, arg: Any) -> Any:
        return "an order"


async def test_resources_and_templates_are_searched_as_their_lists_show_them() -> None:
    manual = StaticResource(uri="docs://manual/refunds", name="refund_manual",
                            description="How refunds work.", text="...")  # fmt: skip
    suite = Suite(server_name="s", server_version="1", resources=[manual, Orders],
                  mounts=[CatalogSearch(resources=True)])  # fmt: skip
    seen = {}
    for tenant in ("shop", "other"):
        async with MCPTestClient(suite, assigns={"principal": "p", "tenant": tenant}) as client:
            found = await client.call_tool("search_tools", {"query": "refund invoice orders"})
            by_uri = await client.call_tool("search_tools", {"query": "manual"})
            only = await client.call_tool(
                "search_tools", {"query": "refund order", "kinds": ["resource_template"]})
        seen[tenant] = (found.structured["hits"], by_uri.structured["hits"],
                        [hit["kind"] for hit in only.structured["hits"]])  # fmt: skip
    hits, by_uri, only = seen["shop"]
    assert {(hit["kind"], hit["name"]) for hit in hits} == {
        ("resource", "refund_manual"), ("resource_template", "order")}  # fmt: skip
    assert {hit.get("uri") or hit["uriTemplate"] for hit in hits} == {
        "docs://manual/refunds", "orders://{id}"}  # fmt: skip
    assert [hit["name"] for hit in by_uri] == ["refund_manual"]  # a word of its URI
    assert only == ["resource_template"]
    hits, _, only = seen["other"]  # the repository is hidden from this tenant: its template too
    assert [(hit["kind"], hit["name"]) for hit in hits] == [("resource", "refund_manual")]
    assert only == []
    suite.remove_resource("docs://manual/refunds")  # the index follows a static's removal
    async with MCPTestClient(suite, assigns={"principal": "p", "tenant": "shop"}) as client:
        after = await client.call_tool("search_tools", {"query": "manual"})
    assert after.structured["hits"] == []

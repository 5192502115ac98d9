"""``fastapi.tenants``: per-tenant catalogs behind one route, over real servers.

Two uvicorn servers, each with its own ``Tenants`` on its own ``RedisBroker`` (one Redis,
one prefix) stand for two processes of one app. A tenant is resolved from the path, a
header or the token; an unknown one is a 404 before any Suite is built for it. A tenant's
runtime tool is served by that tenant on every process, and never listed by, callable in or
announced to another tenant; one tenant's sealed cursor opens nothing of another's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator, MutableMapping
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from genmcp import Channel, Result, Suite, Tool, ToolRequest, call_tool_result
from genmcp.fastapi.tenants import (
    Tenants,
    tenant_from_claim,
    tenant_from_header,
    tenants_router,
)
from genmcp.storage.redis import RedisBroker
from genmcp.transports.http.auth import Auth
from support.client import ModernClient
from support.server import LiveServers

KEY = "t" * 32
LISTEN = {"notifications": {"toolsListChanged": True}}


class Common(Tool, name="common", description="Every tenant has it."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text=f"common for {channel.assigns.get('tenant')}"))


class Extra(Tool, name="extra", description="Only the tenants it is added to."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="extra"))


class More(Tool, name="more", description="Pads the list past one page."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="more"))


def build(tenant: str, **shared: Any) -> Suite:
    return Suite(server_name="t", server_version="1", secret_key=KEY, tools=[Common, More],
                 page_size=1, **shared)  # fmt: skip


def app_of(tenants: Tenants, **options: Any) -> FastAPI:
    app = FastAPI()
    app.include_router(tenants_router(tenants, **options))
    return app


@pytest.fixture
def servers() -> Iterator[LiveServers]:
    live = LiveServers()
    try:
        yield live
    finally:
        live.stop_all()


async def names(client: ModernClient) -> list[str]:
    found, params = [], {}
    while True:
        page = (await client.request("tools/list", params)).result
        found += [tool["name"] for tool in page["tools"]]
        if "nextCursor" not in page:
            return found
        params = {"cursor": page["nextCursor"]}


@contextlib.asynccontextmanager
async def clients(*urls: str, **options: Any) -> AsyncIterator[list[ModernClient]]:
    made = [ModernClient(url, "", **options) for url in urls]
    try:
        yield made
    finally:
        for client in made:
            await client.aclose()


async def test_each_tenant_of_the_path_is_served_its_own_suite(servers: LiveServers) -> None:
    tenants = Tenants(build, known={"acme", "globex"})
    base = servers(app_of(tenants))
    async with clients(f"{base}/t/acme/mcp", f"{base}/t/nope/mcp", f"{base}/t/a:b/mcp") as (
        acme,
        nope,
        bad,
    ):
        assert await names(acme) == ["common", "more"]
        call = await acme.request("tools/call", {"name": "common", "arguments": {}})
        assert call.result["content"][0]["text"] == "common for acme"  # assigns["tenant"]
        for refused in (nope, bad):
            reply = await refused.request("tools/list", validate=False)
            assert reply.status == 404
            error = {"code": -32600, "message": "Not found: no such tenant"}
            assert reply.response == {"jsonrpc": "2.0", "error": error}  # as other refusals
    assert set(tenants.built()) == {"acme"}  # nothing was built for the unknown ones


async def test_one_tenants_cursor_opens_nothing_of_anothers(servers: LiveServers) -> None:
    base = servers(app_of(Tenants(build, known={"acme", "globex"})))
    async with clients(f"{base}/t/acme/mcp", f"{base}/t/globex/mcp") as (acme, globex):
        cursor = (await acme.request("tools/list")).result["nextCursor"]
        assert (await acme.request("tools/list", {"cursor": cursor})).result["tools"]
        refused = await globex.request("tools/list", {"cursor": cursor})
        assert refused.error is not None and refused.error["code"] == -32602


async def test_the_tenant_from_a_header(servers: LiveServers) -> None:
    tenants = Tenants(build, known={"acme"})
    base = servers(app_of(tenants, resolve=tenant_from_header("X-Tenant"), path="/mcp"))
    async with clients(f"{base}/mcp") as (client,):
        call = {"name": "common", "arguments": {}}
        answered = await client.request("tools/call", call, headers={"X-Tenant": "acme"})
        assert answered.result["content"][0]["text"] == "common for acme"
        missing = await client.request("tools/list", validate=False)
        assert missing.status == 404


class ClaimAuth(Auth):
    """An Auth whose token names the tenant: ``Bearer <tenant>``."""

    async def check(self, scope: MutableMapping[str, Any], suite: Suite) -> Any:
        token = dict(scope["headers"]).get(b"authorization", b"").decode().removeprefix("Bearer ")
        if not token:
            body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "no"}}
            return body, 401, [("www-authenticate", "Bearer")]
        return {"principal": "p", "claims": {"tenant": token}}

    request_check = property(lambda self: self.check)
    message_check = None
    dependency = property(lambda self: self.check)


async def test_the_tenant_from_the_token_after_auth(servers: LiveServers) -> None:
    tenants = Tenants(build, known={"acme"})
    app = app_of(tenants, resolve=tenant_from_claim(), path="/mcp", auth=ClaimAuth())
    base = servers(app)
    async with clients(f"{base}/mcp") as (client,):
        assert (await client.request("tools/list", validate=False)).status == 401
        bearer = {"Authorization": "Bearer acme"}
        assert (await client.request("tools/list", headers=bearer)).result["tools"]
        other = await client.request("tools/list", headers={"Authorization": "Bearer x"},
                                     validate=False)  # fmt: skip
        assert other.status == 404


async def next_message(exchange: Any, within: float) -> dict[str, Any]:
    message: dict[str, Any] = await asyncio.wait_for(exchange.__anext__(), within)
    return message


async def test_a_tenants_runtime_tool_stays_in_that_tenant_on_every_process(
    servers: LiveServers, redis_url: str, redis_prefix: str
) -> None:
    brokers = [RedisBroker.from_url(redis_url, prefix=redis_prefix) for _ in range(2)]
    first, second = (Tenants(build, known={"acme", "globex"}, broker=b) for b in brokers)
    one = servers.start(app_of(first))
    two = servers.start(app_of(second))
    urls = [f"{server.url}/t/{t}/mcp" for server in (one, two) for t in ("acme", "globex")]
    async with clients(*urls) as (acme_1, globex_1, acme_2, globex_2):
        for client in (acme_1, globex_1, acme_2, globex_2):
            assert await names(client) == ["common", "more"]  # every Suite built and started
        async with (
            acme_2.stream("subscriptions/listen", LISTEN) as acme_heard,
            globex_2.stream("subscriptions/listen", LISTEN) as globex_heard,
        ):
            for heard in (acme_heard, globex_heard):
                ack = await next_message(heard, 5)
                assert ack["method"] == "notifications/subscriptions/acknowledged"

            async def add() -> None:
                suite = await first.open("acme")
                suite.add_tool(Extra)
                await suite.catalog_synced()

            await one.run_in_loop(add())  # an admin's change, on process one
            changed = await next_message(acme_heard, 5)  # heard on process two
            assert changed["method"] == "notifications/tools/list_changed"
            assert await names(acme_2) == ["common", "extra", "more"]
            assert await names(globex_2) == await names(globex_1) == ["common", "more"]
            unknown = await globex_2.request("tools/call", {"name": "extra", "arguments": {}})
            assert unknown.error is not None and unknown.error["code"] == -32602
            with pytest.raises(TimeoutError):
                await next_message(globex_heard, 0.3)  # globex never hears of acme's change
    for server, broker in ((one, brokers[0]), (two, brokers[1])):
        await server.run_in_loop(broker.aclose())  # on the loop that used it


def test_the_router_and_the_build_are_checked() -> None:
    with pytest.raises(TypeError, match="give resolve="):
        tenants_router(Tenants(build, known=()), path="/mcp")
    with pytest.raises(TypeError, match="request check"):
        tenants_router(Tenants(build, known=()), auth=lambda: None)  # type: ignore[arg-type]


async def test_a_build_that_is_no_suite_fails_naming_it() -> None:
    tenants = Tenants(lambda tenant, **shared: object(), known={"acme"})  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="not a Suite"):
        await tenants.open("acme")
    with pytest.raises(LookupError):
        await tenants.open("globex")


class GoodTokenAuth(ClaimAuth):
    """An Auth that lets in ``Bearer good`` only (the tenant comes from the path)."""

    async def check(self, scope: MutableMapping[str, Any], suite: Suite) -> Any:
        found = await super().check(scope, suite)
        if isinstance(found, tuple) or found["claims"]["tenant"] == "good":
            return found
        body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "bad"}}
        return body, 401, [("www-authenticate", 'Bearer error="invalid_token"')]


async def test_bad_tokens_build_no_suite_whatever_known_accepts(servers: LiveServers) -> None:
    """Issue 48, finding 9: with ``known`` accepting every name, 300 requests with bad tokens
    to 300 tenant names build no Suite (before: one each, kept for good); the one good
    token builds its tenant's."""
    made: list[str] = []

    def counted(tenant: str, **shared: Any) -> Suite:
        made.append(tenant)
        return build(tenant, **shared)

    tenants = Tenants(counted, known=lambda tenant: True)
    base = servers(app_of(tenants, auth=GoodTokenAuth()))
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
    }
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    async with httpx.AsyncClient(timeout=10) as client:
        statuses = set()
        for i in range(300):
            reply = await client.post(
                f"{base}/t/name-{i}/mcp", json=message, headers={**MODERN, **BAD}
            )
            statuses.add(reply.status_code)
        assert statuses == {401}
        assert (len(made), len(tenants.built())) == (0, 0)
        good = {**MODERN, "authorization": "Bearer good"}
        reply = await client.post(f"{base}/t/acme/mcp", json=message, headers=good)
        assert reply.status_code == 200, reply.text
    assert (made, list(tenants.built())) == (["acme"], ["acme"])


BAD = {"authorization": "Bearer bad"}
MODERN = {
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/list",
}

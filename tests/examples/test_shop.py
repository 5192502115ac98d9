"""examples/shop_app.py: hooks reach app state and FastAPI dependencies over every transport.

Issue 17 items 1-3: a real uvicorn runs the app's lifespan and tools read its state
(``channel.state``) and resolve dependencies (``channel.resolve``: per call, cleaned up after
it, overridable); the in-process test kit runs the lifespan too and speaks both eras; stdio
runs the lifespan and the auth dependency, or refuses saying how to give credentials.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Final

import httpx
import pytest
from fastapi import Depends, FastAPI, Header

from genmcp import Result, Suite, Tool, call_tool_result, mcp_router
from genmcp.fastapi.lifespan import LifespanError
from genmcp.testing import MCPTestClient, RPCError, accept
from support import examples
from support.server import LiveServers

shop = examples.load("shop_app")

ROOT: Final = Path(__file__).resolve().parents[2]
ALICE: Final = {"Authorization": "Bearer alice-token"}
META: Final = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}
YES: Final = {"ok": {"action": "accept", "content": {"yes": True}}}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(shop.app)
    finally:
        live.stop_all()


@pytest.fixture
async def http(base: str) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.AsyncHTTPTransport(verify=False)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=10) as client:
        yield client


async def call(http: httpx.AsyncClient, name: str, arguments: Any, **extra: Any) -> Any:
    params = {"name": name, "arguments": arguments, "_meta": META, **extra}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    headers = {**ALICE, "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name}
    reply = await http.post("/mcp", json=body, headers=headers)
    assert reply.status_code == 200, reply.text
    if reply.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:] for line in reply.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return reply.json()


# -- over a real uvicorn -------------------------------------------------------------------


async def test_a_tool_reads_what_the_lifespan_yielded(http: httpx.AsyncClient) -> None:
    reply = await call(http, "stock", {"name": "hammer"})
    assert reply["result"]["structuredContent"] == {"units": 12}
    assert (await http.get("/stock/hammer")).json() == {"units": 12}  # the same state


async def test_a_thread_tool_reads_it_too(http: httpx.AsyncClient) -> None:
    reply = await call(http, "report", {})
    assert reply["result"]["content"][0]["text"] == "2 products"


async def test_each_call_resolves_its_own_dependency_and_cleans_it_up(
    http: httpx.AsyncClient,
) -> None:
    shop.CHECKOUTS.clear()
    first, second = await asyncio.gather(
        call(http, "buy", {"name": "saw"}, inputResponses=YES),
        call(http, "buy", {"name": "hammer"}, inputResponses=YES),
    )
    assert first["result"]["content"][0]["text"] == "alice bought ['saw']"
    assert second["result"]["content"][0]["text"] == "alice bought ['hammer']"
    # the yield dependency's cleanup runs after each response is sent, each with its own cart
    for _ in range(200):
        if len(shop.CHECKOUTS) == 2:
            break
        await asyncio.sleep(0.01)
    assert sorted(shop.CHECKOUTS) == [("alice", ["hammer"]), ("alice", ["saw"])]


async def test_app_dependency_overrides_apply(http: httpx.AsyncClient) -> None:
    def fake_cart() -> list[str]:
        return ["gift"]

    shop.app.dependency_overrides[shop.get_cart] = fake_cart
    try:
        reply = await call(http, "buy", {"name": "saw"}, inputResponses=YES)
    finally:
        shop.app.dependency_overrides.clear()
    assert reply["result"]["content"][0]["text"] == "alice bought ['gift', 'saw']"


async def test_a_stream_fed_by_a_background_job(http: httpx.AsyncClient) -> None:
    reply = await call(http, "restock", {"name": "saw"})
    assert reply["result"]["content"][0]["text"] == "saw: +3"


# -- the in-process test kit: lifespan, both eras, every helper ------------------------------


@pytest.mark.parametrize("version", ["2026-07-28", "2025-11-25", "2025-03-26"])
async def test_the_test_kit_runs_the_lifespan_in_both_eras(version: str) -> None:
    answers = {"ok": accept({"yes": True})} if version.startswith("2026") else {
        "elicitation/create": accept({"yes": True})}
    async with MCPTestClient(shop.app, headers=ALICE, protocol_version=version) as client:
        stock = await client.call_tool("stock", {"name": "hammer"})
        assert json.loads(stock.text) == {"units": 12}  # 2025-03-26 has no structuredContent
        if version != "2025-03-26":  # no elicitation in 2025-03-26
            bought = await client.call_tool("buy", {"name": "saw"}, answers=answers)
            assert bought.text == "alice bought ['saw']"
            legacy = version.startswith("2025")
            assert len(bought.server_requests if legacy else bought.rounds) == 1
        restocked = await client.call_tool("restock", {"name": "saw"}, progress=True)
        assert [p["progress"] for p in restocked.progress] == [1, 2]
        contents = await client.read_resource("shop://products/saw")
        assert [c["text"] for c in contents] == ["3 units"]  # restocked: the lifespan's state
        assert await client.complete("pitch", "product", "h") == ["hammer"]
        prompt = await client.get_prompt("pitch", {"product": "saw"})
        assert prompt["messages"][0]["content"]["text"] == "Sell saw"
        templates = await client.list_resource_templates()
        assert [t["uriTemplate"] for t in templates] == ["shop://products/{name}"]
        assert [p["name"] for p in await client.list_prompts()] == ["pitch"]
        if version.startswith("2025"):
            assert client.legacy is not None and client.legacy.negotiated == version


async def test_the_test_kit_listens() -> None:
    async with MCPTestClient(shop.app, headers=ALICE) as client:
        async with client.listen(tools=True) as changes:
            assert changes.acknowledged["notifications"] == {"toolsListChanged": True}
            assert client.suite is not None
            client.suite.remove_tool("report")
            try:
                assert (await changes.next())["method"] == "notifications/tools/list_changed"
            finally:
                client.suite.add_tool(shop.Report)


async def test_without_the_lifespan_the_state_is_missing() -> None:
    async with MCPTestClient(shop.app, headers=ALICE, lifespan=False) as client:
        with pytest.raises(RPCError) as failure:
            await client.call_tool("stock", {"name": "hammer"})
    assert failure.value.code == -32603


async def test_a_failing_lifespan_is_raised_with_its_message() -> None:
    @contextlib.asynccontextmanager
    async def broken(app: FastAPI) -> AsyncIterator[None]:
        raise RuntimeError("no database at db:5432")
        yield

    app = FastAPI(lifespan=broken)
    app.include_router(mcp_router(server_name="x", server_version="1"), prefix="/mcp")
    with pytest.raises(LifespanError, match="no database at db:5432"):
        async with MCPTestClient(app):
            pass


# -- dependency errors the client can act on -----------------------------------------------


def region(x_region: str = Header()) -> str:
    return x_region


class Where(Tool, name="where", description="Where the caller is."):
    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        try:
            value = await channel.resolve(Depends(region))
        except RuntimeError as exc:  # a Suite driven directly has no app
            return Result(call_tool_result(error=str(exc)))
        return Result(call_tool_result(text=value))


def where_app() -> FastAPI:
    app = FastAPI()
    app.include_router(mcp_router(server_name="w", server_version="1", tools=[Where]),
                       prefix="/mcp")
    return app


async def test_a_header_the_dependency_needs_is_a_precise_client_error() -> None:
    async with MCPTestClient(where_app()) as client:
        with pytest.raises(RPCError) as failure:
            await client.call_tool("where")
        found = await MCPTestClient(where_app(), headers={"X-Region": "eu"}).call_tool("where")
    assert failure.value.code == -32602
    assert "region" in failure.value.message and "x-region" in failure.value.message
    assert found.text == "eu"


async def test_resolve_without_an_app_says_how_to_get_one() -> None:
    suite = Suite(server_name="s", server_version="1", tools=[Where])
    async with MCPTestClient(suite) as client:
        result = await client.call_tool("where")
    assert result.is_error and "mcp_router" in result.text


# -- stdio: the lifespan, the auth dependency, or a refusal with the fix ----------------------


def stdio(*extra: str, lines: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "genmcp", "run", "shop_app:app", "--app-dir",
               str(ROOT / "examples"), "--transport", "stdio", *extra]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    env = {**os.environ, "GENMCP_SECRET_KEY": "shop-test-secret-0123456789abcdef0123456789"}
    return subprocess.run(command, input=text, capture_output=True, text=True, timeout=30,
                          env=env, check=False)


def tools_call(name: str, arguments: Any, **extra: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments, "_meta": META, **extra}
    return {"jsonrpc": "2.0", "id": name, "method": "tools/call", "params": params}


def test_stdio_runs_the_lifespan_and_the_auth_dependency() -> None:
    done = stdio("--header", "Authorization: Bearer alice-token", lines=[
        tools_call("stock", {"name": "hammer"}),
        tools_call("buy", {"name": "saw"}, inputResponses=YES),
    ])
    replies = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert done.returncode == 0, done.stderr
    assert replies["stock"]["result"]["structuredContent"] == {"units": 12}
    assert replies["buy"]["result"]["content"][0]["text"] == "alice bought ['saw']"


def test_stdio_assigns_skip_the_auth_dependency_but_not_dependencies_using_it() -> None:
    done = stdio("--assigns", '{"principal": "carol"}', lines=[
        tools_call("stock", {"name": "saw"}),
        tools_call("buy", {"name": "saw"}, inputResponses=YES),
    ])
    replies = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert done.returncode == 0, done.stderr
    assert replies["stock"]["result"]["structuredContent"] == {"units": 0}
    # get_cart depends on auth itself: a refusal naming the dependency, never a bare -32603
    assert replies["buy"]["error"]["code"] == -32600
    assert replies["buy"]["error"]["message"] == (
        "Refused by get_cart: A bearer token is required (HTTP 401)"
    )


def test_stdio_refuses_an_app_whose_auth_refuses_and_says_the_fix() -> None:
    done = stdio(lines=[tools_call("stock", {"name": "hammer"})])
    assert done.returncode == 2
    assert done.stdout == ""
    assert "auth dependency refused stdio" in done.stderr
    assert "A bearer token is required" in done.stderr
    assert "--header 'Authorization: Bearer TOKEN'" in done.stderr and "--assigns" in done.stderr

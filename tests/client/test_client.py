"""`genmcp.client.Client` against real genmcp servers on uvicorn, in both eras.

Every test runs twice: the client probing (2026-07-28 found by `server/discover`) and the
client on a 2025-11-25 session. The servers are the demo tools (`tests/demo_tools.py`,
paginated two per page) and the everything server (`examples/everything_server.py`), both in
`conftest.py`. Input rounds, tasks and the wire's choice have their own modules' tests.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from demo_tools import Stats, make_suite
from genmcp.client import Client, ClientError, RPCError
from genmcp.fastapi.router import mcp_app
from support.examples import load
from support.server import LiveServers


async def wait_for(check: Any, within: float = 5.0) -> None:
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "never happened"
        await asyncio.sleep(0.02)


async def test_lists_follow_every_page_and_calls_answer(demo: str, era: str | None) -> None:
    async with Client(demo, protocol=era) as client:
        tools = await client.list_tools()
        result = await client.call_tool("add", {"a": 2, "b": 3})
        first = await client.page("tools/list")

    assert client.era == (era or "2026-07-28")
    assert {"add", "nap", "confirm", "echo"} <= {tool["name"] for tool in tools}
    assert len(first["tools"]) == 2 and "nextCursor" in first  # so list_tools followed pages
    assert result["content"][0]["text"] == "5"
    assert client.server_info["name"] == "demo"


async def test_progress_and_logs_reach_the_call_s_callbacks(demo: str, era: str | None) -> None:
    progress: list[tuple[Any, Any, Any]] = []
    logs: list[tuple[Any, Any, Any]] = []
    async with Client(demo, protocol=era) as client:
        await client.call_tool(
            "count", {"n": 2}, log_level="info",
            on_progress=lambda *args: progress.append(args),
            on_log=lambda *args: logs.append(args),
        )  # fmt: skip

    assert progress == [(1, 2, "step 1"), (2, 2, "step 2")]
    assert logs == [("info", {"step": 1}, "count"), ("info", {"step": 2}, "count")]


async def test_errors_carry_the_json_rpc_code(demo: str, era: str | None) -> None:
    async with Client(demo, protocol=era) as client:
        with pytest.raises(RPCError) as unknown:
            await client.call_tool("nope", {})
        with pytest.raises(RPCError) as broken:
            await client.call_tool("boom", {})

    assert unknown.value.code == -32602 and "nope" in unknown.value.message
    assert broken.value.code == -32603
    assert str(broken.value).endswith("(-32603)")
    assert broken.value.to_error()["code"] == -32603


@pytest.mark.exclusive
async def test_cancelling_the_task_cancels_the_call_on_the_server(
    demo: str, era: str | None, stats: Stats
) -> None:
    async with Client(demo, protocol=era) as client:
        started = asyncio.Event()
        call = asyncio.create_task(
            client.call_tool("nap", {"seconds": 30}, on_progress=lambda *_: started.set())
        )
        await asyncio.wait_for(started.wait(), 10)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await wait_for(lambda: stats.cancelled == 1)
        assert (await client.call_tool("add", {"a": 1, "b": 1}))["content"][0]["text"] == "2"


async def test_resources_prompts_and_completion(everything: str, era: str | None) -> None:
    async with Client(everything, protocol=era) as client:
        resources = {item["uri"]: item for item in await client.list_resources()}
        templates = await client.list_resource_templates()
        read = await client.read_resource("test://static-text")
        prompts = {item["name"] for item in await client.list_prompts()}
        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
        ref = {"type": "ref/prompt", "name": "test_prompt_with_arguments"}
        completion = await client.complete(ref, "arg1", "")
        with pytest.raises(RPCError) as missing:
            await client.read_resource("test://nowhere")

    assert "test://static-text" in resources
    assert any(t["uriTemplate"].startswith("test://template") for t in templates)
    assert read["contents"][0]["text"]
    assert "test_simple_prompt" in prompts
    assert "a" in prompt["messages"][0]["content"]["text"]
    assert isinstance(completion["values"], list)
    assert missing.value.code == (-32602 if era is None else -32002)


async def test_sampling_and_roots_callbacks(everything: str, era: str | None) -> None:
    def sample(params: dict[str, Any]) -> dict[str, Any]:
        text = params["messages"][0]["content"]["text"]
        return {"role": "assistant", "content": {"type": "text", "text": f"echo {text}"},
                "model": "test-model"}  # fmt: skip

    roots = [{"uri": "file:///work", "name": "work"}]
    async with Client(everything, protocol=era, sampling=sample, roots=roots) as client:
        sampled = await client.call_tool("test_sampling", {"prompt": "hi"})
        listed = await client.call_tool("test_input_required_result_list_roots", {})

    assert "echo hi" in sampled["content"][0]["text"]
    assert "file:///work" in listed["content"][0]["text"]


async def test_listen_gets_list_changed(everything: str, era: str | None) -> None:
    async with Client(everything, protocol=era) as client:
        async with client.listen(prompts=False, resources=False) as changes:
            assert changes.acknowledged.get("toolsListChanged") is True
            await client.call_tool("test_trigger_tool_change", {})
            note = await asyncio.wait_for(anext(changes), 10)

    assert note["method"] == "notifications/tools/list_changed"


async def test_a_2025_only_server_is_found_by_the_probe(live_server: LiveServers) -> None:
    from tests.cli.test_commands import Only2025

    gate = Only2025(mcp_app(make_suite(), path="/mcp"))
    url = live_server(gate) + "/mcp"
    async with Client(url) as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})
        assert client.session is not None

    assert client.era == "2025-11-25"
    assert result["content"][0]["text"] == "3" and gate.modern_refused == 1


async def test_a_bearer_token_is_sent_on_every_request(live_server: LiveServers) -> None:
    shop = load("shop_app").app
    url = live_server(shop) + "/mcp"
    tokens = iter(["alice-token"] * 10)
    async with Client(url, token=lambda: next(tokens)) as client:
        tools = await client.list_tools()
    with pytest.raises(ClientError) as refused:
        async with Client(url) as anonymous:
            await anonymous.list_tools()

    assert {tool["name"] for tool in tools} >= {"buy", "stock"}
    assert refused.value.status == 401


async def test_one_pool_serves_every_request(demo: str) -> None:
    import httpx

    opened: list[Any] = []

    class Counting(httpx.AsyncHTTPTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            opened.append(request.method)
            return await super().handle_async_request(request)

    async with httpx.AsyncClient(transport=Counting()) as http:
        async with Client(demo, http=http) as client:
            for _ in range(3):
                await client.call_tool("add", {"a": 1, "b": 1})
        assert not http.is_closed  # handed in: the caller's to close

    assert opened == ["POST"] * 4  # the probe and three calls, over the caller's pool

"""Mount(url=...): a remote server's tools and prompts served by an outer Suite.

The upstream is a real uvicorn server on a loopback port; the outer Suite is driven
in-process by ``MCPTestClient`` and, served by uvicorn too, by the official Python SDK
client in both eras: names under the namespace, progress and logs relayed, an input round
relayed to the outer client, cancellation reaching the upstream, the upstream's JSON-RPC
error passed on unchanged, ``list_changed`` followed, and a dead upstream answered at once;
proxy mode (``mcp_router(proxy=URL)``, docs guides/composition.md) serves it whole.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from mcp import Client as SDKClient
from mcp.client.context import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ElicitRequestParams, ElicitResult

from genmcp import (
    Channel,
    Error,
    InputRequired,
    Mount,
    Prompt,
    PromptRequest,
    ResourceRepo,
    ResourceRequest,
    Result,
    StaticResource,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    get_prompt_result,
    mcp_app,
    mcp_router,
    user_message,
)
from genmcp.testing import MCPTestClient, RPCError, accept
from support.server import LiveServer, LiveServers

SCHEMA: Final = {"type": "object", "properties": {"city": {"type": "string"}}}
CANCELLED = threading.Event()
STARTED = threading.Event()


class Forecast(Tool, name="get_forecast", input_schema=SCHEMA):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        channel.send_progress(1, 2, "fetching")
        channel.send_log("info", {"city": request.arguments.get("city")})
        channel.send_progress(2, 2)
        return Result(call_tool_result(text=f"sunny in {request.arguments.get('city')}"))


class Confirm(Tool, name="confirm", input_schema={"type": "object"}):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        answer = (request.input_responses or {}).get("ok")
        if answer is None:
            schema = {"type": "object", "properties": {"sure": {"type": "boolean"}}}
            return InputRequired({"ok": elicit_request("Sure?", schema)}, state={"n": 1})
        assert request.request_state == {"n": 1}
        return Result(call_tool_result(text=f"{answer['action']} {answer.get('content')}"))


class Refuse(Tool, name="refuse", input_schema={"type": "object"}):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        return Error("no city given: pass city='Paris'", -32602, {"field": "city"})


class Slow(Tool, name="slow", input_schema={"type": "object"}):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        STARTED.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            CANCELLED.set()
            raise
        return Result(call_tool_result(text="late"))


class AskFirst(Tool, name="ask_first", input_schema={"type": "object"}):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        channel.require_capability({"elicitation": {}})
        return Result(call_tool_result(text="may ask"))


class Brief(Prompt, name="brief", description="A weather brief."):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return Result(get_prompt_result([user_message("brief")]))


class Ask(Prompt, name="ask", arguments=[{"name": "region"}]):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        answer = (request.input_responses or {}).get("who")
        if answer is None:
            return InputRequired({"who": elicit_request("Who?", {"type": "object"})})
        who = answer["content"]["name"]
        return Result(get_prompt_result([user_message(f"{who} in {request.arguments['region']}")]))

    def complete(
        self, argument: str, value: str, context: Any, channel: Channel, arg: Any
    ) -> list[str]:
        return [r for r in ("north", "south") if r.startswith(value)]


class Extra(Tool, name="extra", input_schema={"type": "object"}):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="extra"))


class Station(ResourceRepo, template="weather://station/{id}", name="station"):
    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> str:
        return f"station {request.params['id']}"

    def complete(
        self, argument: str, value: str, context: Any, channel: Channel, arg: Any
    ) -> list[str]:
        return [s for s in ("lima", "lyon", "rome") if s.startswith(value)]


UPSTREAM = Suite(
    server_name="weather",
    server_version="1",
    tools=[Forecast, Confirm, Refuse, Slow, AskFirst],
    prompts=[Brief, Ask],
    resources=[StaticResource(uri="weather://stations", name="stations", text="a,b"), Station],
)


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(mcp_app(UPSTREAM)) + "/mcp"
    finally:
        live.stop_all()


def gateway(url: str, **options: Any) -> Suite:
    mount = Mount(url=url, namespace="weather", **options)
    return Suite(server_name="gateway", server_version="1", mounts=[mount])


async def test_the_upstream_is_listed_under_the_namespace(upstream: str) -> None:
    outer = gateway(upstream)
    async with MCPTestClient(outer) as client:
        tools = {tool["name"] for tool in await client.list_tools()}
        prompts = {prompt["name"] for prompt in await client.list_prompts()}
        prompt = await client.get_prompt("weather_brief")
    await outer.aclose()
    assert tools == {
        "weather_get_forecast", "weather_confirm", "weather_refuse", "weather_slow",
        "weather_ask_first",
    }  # fmt: skip
    assert prompts == {"weather_brief", "weather_ask"}
    assert prompt["messages"][0]["content"]["text"] == "brief"


async def test_calls_relay_progress_logs_inputs_and_errors(upstream: str) -> None:
    outer = gateway(upstream)
    async with MCPTestClient(outer) as client:
        call = await client.call_tool(
            "weather_get_forecast", {"city": "Oslo"}, progress=True, log_level="debug"
        )
        asked = await client.call_tool("weather_confirm", {})
        answered = await client.call_tool(
            "weather_confirm", {}, answers={"ok": accept({"sure": True})}
        )
        with pytest.raises(RPCError) as refused:
            await client.call_tool("weather_refuse", {})
    await outer.aclose()
    assert call.text == "sunny in Oslo"
    assert [p["progress"] for p in call.progress] == [1, 2]
    assert call.logs[0]["data"] == {"city": "Oslo"}
    assert asked.result_type == "input_required"
    assert asked.input_requests["ok"]["params"]["message"] == "Sure?"
    assert answered.text == "accept {'sure': True}"
    assert (refused.value.code, refused.value.data) == (-32602, {"field": "city"})
    assert refused.value.message == "no city given: pass city='Paris'"


async def test_a_cancelled_call_is_cancelled_upstream(upstream: str) -> None:
    STARTED.clear()
    CANCELLED.clear()
    outer = gateway(upstream)
    async with MCPTestClient(outer) as client:
        async with client.open_call("weather_slow", {}) as call:
            await asyncio.to_thread(STARTED.wait, 10)
            await call.disconnect()
        assert await asyncio.to_thread(CANCELLED.wait, 10)
    await outer.aclose()


async def test_list_changed_upstream_is_followed(upstream: str) -> None:
    outer = gateway(upstream)
    async with MCPTestClient(outer) as client:
        await client.list_tools()
        async with client.listen(tools=True) as seen:
            UPSTREAM.add_tool(Extra)
            try:
                changed = await seen.next()
                tools = {tool["name"] for tool in await client.list_tools()}
            finally:
                UPSTREAM.remove_tool("extra")
    await outer.aclose()
    assert changed["method"] == "notifications/tools/list_changed"
    assert "weather_extra" in tools


async def test_a_dead_upstream_answers_at_once_and_the_breaker_opens() -> None:
    server = LiveServer(mcp_app(UPSTREAM))
    url = server.start() + "/mcp"
    outer = gateway(url, failures=2, cooldown_s=60, timeout_s=2)
    async with MCPTestClient(outer) as client:
        assert (await client.call_tool("weather_get_forecast", {"city": "a"})).text == "sunny in a"
        server.stop()
        errors = []
        for _ in range(3):
            with pytest.raises(RPCError) as down:
                await client.call_tool("weather_get_forecast", {"city": "a"})
            errors.append(down.value)
    await outer.aclose()
    assert all(error.code == -32603 for error in errors)
    assert all(f"upstream {url} is unavailable" in error.message for error in errors)
    # the paths, no durations (issue 45): the first two tried and were refused (no timeout
    # waited), the third was refused by the open breaker without a try
    assert all(error.message.endswith("connection refused") for error in errors[:2])
    assert "2 times in a row; next try in 60 s" in errors[2].message


async def test_an_unreachable_upstream_does_not_stop_the_outer_server() -> None:
    outer = Suite(
        server_name="gateway",
        server_version="1",
        tools=[Extra],
        mounts=[Mount(url="http://127.0.0.1:9/mcp", namespace="gone", timeout_s=1)],
    )
    async with MCPTestClient(outer) as client:  # 30 s: a hang guard (the mount's timeout: 1 s)
        tools = {tool["name"] for tool in await asyncio.wait_for(client.list_tools(), 30)}
    await outer.aclose()
    assert tools == {"extra"}


async def test_proxy_mode_serves_tools_prompts_and_resources(upstream: str) -> None:
    router = mcp_router(proxy=upstream)
    async with MCPTestClient(router) as client:
        tools = {tool["name"] for tool in await client.list_tools()}
        resources = [resource["uri"] for resource in await client.list_resources()]
        contents = await client.read_resource("weather://stations")
        with pytest.raises(RPCError) as missing:
            await client.read_resource("weather://nowhere")
        call = await client.call_tool("get_forecast", {"city": "Lima"}, progress=True)
        allowed = await client.call_tool("ask_first", {})
        with pytest.raises(RPCError) as undeclared:
            await client.call_tool("ask_first", {}, capabilities={})
    await router.suite.aclose()
    assert tools == {"get_forecast", "confirm", "refuse", "slow", "ask_first"}
    assert allowed.text == "may ask"  # the outer client's capabilities went upstream
    assert (undeclared.value.code, undeclared.value.status) == (-32021, 400)
    assert resources == ["weather://stations"]
    assert contents[0]["text"] == "a,b"
    assert missing.value.code == -32602  # the upstream's "not found", passed on
    assert call.text == "sunny in Lima" and len(call.progress) == 2
    assert router.suite.server_info["name"] == "genmcp-proxy"
    with pytest.raises(TypeError, match="builds its own Suite"):
        mcp_router(proxy=upstream, suite=UPSTREAM)


async def test_a_prompts_input_round_and_completions_go_upstream(upstream: str) -> None:
    outer = gateway(upstream)
    async with MCPTestClient(outer) as client:
        params = {"name": "weather_ask", "arguments": {"region": "north"}}
        asked = (await client.request("prompts/get", params)).unwrap()
        retry = {
            **params,
            "inputResponses": {"who": accept({"name": "ada"})},
            "requestState": asked["requestState"],
        }
        got = (await client.request("prompts/get", retry)).unwrap()
        values = await client.complete({"type": "ref/prompt", "name": "weather_ask"}, "region", "s")
    await outer.aclose()
    assert asked["resultType"] == "input_required"
    assert asked["inputRequests"]["who"]["params"]["message"] == "Who?"
    assert got["messages"][0]["content"]["text"] == "ada in north"
    assert values == ["south"]


@pytest.mark.parametrize("era", [None, "2025-11-25"])
async def test_template_completions_go_upstream_under_the_same_uri(upstream: str, era: Any) -> None:
    outer = gateway(upstream, resources=True, protocol=era)
    async with MCPTestClient(outer) as client:
        templates = [t["uriTemplate"] for t in await client.list_resource_templates()]
        values = await client.complete("weather://station/{id}", "id", "l")
        with pytest.raises(RPCError) as unknown:
            await client.complete("weather://nowhere/{id}", "id", "l")
        with pytest.raises(RPCError) as no_variable:
            await client.complete("weather://station/{id}", "city", "l")
    await outer.aclose()
    assert templates == ["weather://station/{id}"]  # URIs are not namespaced
    assert values == ["lima", "lyon"]
    assert unknown.value.code == no_variable.value.code == -32602


MODES: Final = ("2026-07-28", "legacy")


@pytest.fixture(scope="module")
def gateway_url(upstream: str) -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(mcp_app(gateway(upstream))) + "/mcp"
    finally:
        live.stop_all()


async def sure(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    assert params.message == "Sure?"
    return ElicitResult(action="accept", content={"sure": True})


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_calls_a_remote_mounted_tool(gateway_url: str, mode: str) -> None:
    seen: list[float] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append(value)

    transport = streamable_http_client(gateway_url)
    async with SDKClient(transport, mode=mode, elicitation_callback=sure) as client:
        result = await client.call_tool(
            "weather_get_forecast", {"city": "Rome"}, progress_callback=progress
        )
        asked = await client.call_tool("weather_confirm", {})
    assert result.content[0].model_dump()["text"] == "sunny in Rome"
    assert seen == [1, 2]
    assert asked.content[0].model_dump()["text"] == "accept {'sure': True}"


STDIO: Final = [sys.executable, "-m", "genmcp", "run", "demo_tools:suite", "--transport", "stdio"]
TESTS: Final = str(Path(__file__).resolve().parents[1])


@pytest.mark.timeout(300)  # a hang guard: a process start took 20 s+ under load
async def test_stdio_servers_are_mounted_as_processes_in_both_eras() -> None:
    env = {"GENMCP_SECRET_KEY": "s" * 40}
    mounts = [
        Mount(command=STDIO, namespace=name, protocol=era, cwd=TESTS, env=env)
        for name, era in (("new", None), ("old", "2025-11-25"))
    ]
    outer = Suite(server_name="gateway", server_version="1", mounts=mounts)
    seen: dict[str, Any] = {}
    async with MCPTestClient(outer, timeout=90) as client:  # hang guard: 2 processes start
        tools = {tool["name"] for tool in await client.list_tools()}
        for name in ("new", "old"):
            counted = await client.call_tool(f"{name}_count", {"n": 2}, progress=True)
            asked = await client.call_tool(f"{name}_confirm", {"question": "Sure?"})
            (key, request), *_ = asked.input_requests.items()
            done = await client.call_tool(
                f"{name}_confirm", {"question": "Sure?"},
                input_responses={key: accept({"ok": True})},
                request_state=asked.result["requestState"],
            )  # fmt: skip
            seen[name] = (counted, request, done)
        eras = [mount.upstream.client.era for mount in mounts if mount.upstream is not None]
    await outer.aclose()
    assert {"new_count", "new_confirm", "old_count", "old_confirm"} <= tools
    assert repr(mounts[0]).startswith("Mount(command=[")
    assert eras == ["2026-07-28", "2025-11-25"]
    for counted, request, done in seen.values():
        assert counted.text == "counted to 2" and len(counted.progress) == 2
        assert request["params"]["message"] == "Sure?"
        assert done.structured["confirmed"] is True


def test_a_mount_takes_one_source() -> None:
    with pytest.raises(TypeError, match="one of a Suite"):
        Mount(UPSTREAM, command=STDIO)
    with pytest.raises(TypeError, match="as a list"):
        Mount(command="python server.py")  # type: ignore[arg-type]

"""The middleware chain (genmcp.middleware): order, short-circuits, failures, observation.

Over a real uvicorn server (both eras) and the in-process test client.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI

from demo_tools import make_suite
from genmcp import MCPError, Suite, mcp_router
from genmcp.events import Event
from genmcp.middleware import Call, CallEnd, MCPRequest, Middleware, Next, watch
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServers


def serve(live_server: LiveServers, suite: Suite) -> str:
    app = FastAPI()
    app.include_router(mcp_router(suite=suite), prefix="/mcp")
    return live_server(app)


class Recorder(Middleware):
    """Records what it saw, in a shared log, under its name."""

    def __init__(self, name: str, log: list[str], outcomes: list[CallEnd] | None = None) -> None:
        self.name, self.log, self.outcomes = name, log, outcomes

    async def on_request(self, request: MCPRequest, call_next: Next) -> Call:
        self.log.append(f"{self.name}>{request.method}:{request.era}")
        call = await call_next(request)
        self.log.append(f"{self.name}<{request.method}")
        if self.outcomes is not None:
            watch(call, self.outcomes.append)
        return call

    async def on_call_tool(self, request: MCPRequest, call_next: Next) -> Call:
        self.log.append(f"{self.name}:tool:{request.target}")
        return await self.on_request(request, call_next)


async def test_the_chain_runs_in_order_first_outermost(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    log: list[str] = []

    async def plain(request: MCPRequest, call_next: Next) -> Call:
        log.append(f"plain>{request.method}")
        return await call_next(request)

    suite = make_suite(middleware=[Recorder("a", log), plain, Recorder("b", log)])
    client = modern_client(serve(live_server, suite))
    await client.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    assert log == [
        "a:tool:add", "a>tools/call:modern", "plain>tools/call",
        "b:tool:add", "b>tools/call:modern", "b<tools/call", "a<tools/call",
    ]  # fmt: skip


async def test_a_middleware_can_change_the_request(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    async def doubling(request: MCPRequest, call_next: Next) -> Call:
        if request.method == "tools/call":
            arguments = {k: v * 2 for k, v in request.params["arguments"].items()}
            request = request.replace(params={**request.params, "arguments": arguments})
        return await call_next(request)

    client = modern_client(serve(live_server, make_suite(middleware=[doubling])))
    reply = await client.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    assert reply.result["content"][0]["text"] == "6"


class Gate(Middleware):
    """Answers tools/list itself and refuses the tool `boom`."""

    async def on_list(self, request: MCPRequest, call_next: Next) -> Call:
        return request.respond(
            {"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "private"}
        )

    async def on_call_tool(self, request: MCPRequest, call_next: Next) -> Call:
        if request.target == "boom":
            raise MCPError("invalid_params", "Invalid params: boom is switched off")
        return await call_next(request)


async def test_short_circuits_with_a_result_or_an_error(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    log: list[str] = []
    suite = make_suite(middleware=[Gate(), Recorder("inner", log)])
    client = modern_client(serve(live_server, suite))
    listed = await client.request("tools/list")
    assert listed.result["tools"] == []
    refused = await client.request("tools/call", {"name": "boom", "arguments": {}})
    assert refused.error["code"] == -32602
    assert "switched off" in refused.error["message"]
    assert log == []  # nothing inner ran


async def test_a_failing_middleware_answers_internal_error_and_leaks_nothing(
    live_server: LiveServers,
    modern_client: Callable[..., ModernClient],
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(request: MCPRequest, call_next: Next) -> Call:
        await call_next(request)  # a Call already running inside
        raise RuntimeError("secret detail 4711")

    async def not_a_call(request: MCPRequest, call_next: Next) -> Any:
        return {"oops": True}

    suite = make_suite(middleware=[broken])
    client = modern_client(serve(live_server, suite))
    reply = await client.request("tools/call", {"name": "nap", "arguments": {"seconds": 30}})
    assert reply.error["code"] == -32603
    assert "4711" not in str(reply.body)
    assert any("secret detail 4711" in (r.exc_text or "") for r in caplog.records)
    for _ in range(200):  # the nap inside was disconnected, not left running
        if suite.live_workers == 0:
            break
        await asyncio.sleep(0.01)
    assert suite.live_workers == 0
    other = make_suite(middleware=[not_a_call])
    client = modern_client(serve(live_server, other))
    reply = await client.request("tools/list")
    assert reply.error["code"] == -32603


async def test_the_outcome_of_streamed_and_failed_calls(
    live_server: LiveServers, modern_client: Callable[..., ModernClient]
) -> None:
    outcomes: list[CallEnd] = []
    events: list[Event] = []

    async def events_of(request: MCPRequest, call_next: Next) -> Call:
        return watch(await call_next(request), on_event=events.append)

    suite = make_suite(middleware=[Recorder("r", [], outcomes), events_of])
    client = modern_client(serve(live_server, suite))
    await client.request(
        "tools/call", {"name": "count", "arguments": {"n": 2}}, progress_token="t"
    )
    await client.request("tools/call", {"name": "boom", "arguments": {}})
    for _ in range(100):
        if len(outcomes) == 2:
            break
        await asyncio.sleep(0.01)
    counted, boomed = outcomes
    assert (counted.ended, counted.messages, counted.error) == ("answered", 2, None)
    assert counted.result is not None and not counted.tool_error
    assert len(events) == 2  # the two progress notifications
    assert boomed.error is not None and boomed.error["code"] == -32603


async def test_legacy_requests_and_input_rounds_pass_the_chain(live_server: LiveServers) -> None:
    log: list[str] = []
    outcomes: list[CallEnd] = []
    suite = make_suite(middleware=[Recorder("r", log, outcomes)])
    async with LegacyClient(
        serve(live_server, suite), version="2025-06-18", capabilities={"elicitation": {}}
    ) as client:
        await client.open()
        await client.request("ping")
        async with client.stream(
            "tools/call", {"name": "confirm", "arguments": {"question": "sure?"}}
        ) as exchange:
            asked = await anext(aiter(exchange))
            assert asked["method"] == "elicitation/create"
            accepted = {"action": "accept", "content": {"ok": True}}
            await client.respond(asked["id"], accepted)
            reply = await exchange.drain()
        assert reply.response is not None
    assert log[:4] == [
        "r>initialize:legacy", "r<initialize", "r>ping:legacy", "r<ping",
    ]  # fmt: skip
    assert "r:tool:confirm" in log
    for _ in range(100):
        if len(outcomes) == 3:
            break
        await asyncio.sleep(0.01)
    assert outcomes[-1].messages == 1 and outcomes[-1].ended == "answered"


async def test_the_in_process_test_client_runs_the_chain(caplog: pytest.LogCaptureFixture) -> None:
    from genmcp.testing import MCPTestClient

    log: list[str] = []
    suite = make_suite(middleware=[Recorder("r", log)])
    async with MCPTestClient(suite) as client:
        await client.call_tool("add", {"a": 1, "b": 1})
    assert log == ["r:tool:add", "r>tools/call:modern", "r<tools/call"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_skill_request_s_target_is_its_uri_as_auth_reads_it() -> None:
    """``skills/get`` and ``resources/directory/read`` name a URI: middleware sees it, as the
    OAuth resource does when it checks the skill's scopes (issue 46: middleware saw None)."""
    from collections.abc import Mapping

    from genmcp import Skill
    from genmcp.testing import MCPTestClient

    class Gen(Skill, prefix="mem", scheme="docs"):
        def files(self, arg: Any) -> Mapping[str, bytes]:
            return {"SKILL.md": b"---\nname: gen\ndescription: A skill.\n---\n# Gen\n"}

    seen: list[tuple[str, str | None]] = []

    async def targets(request: MCPRequest, call_next: Next) -> Call:
        seen.append((request.method, request.target))
        return await call_next(request)

    suite = Suite(server_name="s", server_version="1", skills=[Gen], middleware=[targets])
    async with MCPTestClient(suite) as client:
        got = await client.request("skills/get", {"uri": "docs://mem/gen/SKILL.md"})
        listed = await client.request("resources/directory/read", {"uri": "docs://mem/gen"})
    assert got.unwrap() and listed.unwrap()
    assert seen == [
        ("skills/get", "docs://mem/gen/SKILL.md"),
        ("resources/directory/read", "docs://mem/gen"),
    ]

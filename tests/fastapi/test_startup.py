"""Issue 17, item 6: mounting and deployment mistakes say their fix (real uvicorn, httpx)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.exceptions import FastAPIError

from genmcp import (
    Channel,
    InputRequired,
    Result,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_router,
)
from genmcp.fastapi.startup import workers_likely
from genmcp.protocol.jsonrpc import Request
from genmcp.transports.http import rules as http
from support.answers import answer_of
from support.server import LiveServer

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}
HEADERS = {
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/list",
}
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}


class Ask(Tool, name="ask"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        if request.input_responses:
            return Result(call_tool_result(text="done"))
        schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
        return InputRequired({"ok": elicit_request("Sure?", schema)}, state={"n": 1})


def router(**options: Any) -> Any:
    return mcp_router(server_name="m", server_version="1", tools=[Ask], **options)


def test_including_without_a_prefix_names_the_fix() -> None:
    app = FastAPI()
    with pytest.raises(FastAPIError, match=r"include_router\(router, prefix='/mcp'\)"):
        app.include_router(router())


@pytest.mark.parametrize("auth", [None, lambda: {"principal": "p"}])
def test_a_trailing_slash_is_served_not_redirected(auth: Any) -> None:
    app = FastAPI()
    app.include_router(router(auth=auth), prefix="/mcp")
    with LiveServer(app) as base:
        for path in ("/mcp", "/mcp/"):
            reply = httpx.post(base + path, json=LIST, headers=HEADERS)
            assert reply.status_code == 200, path
            assert reply.json()["result"]["tools"][0]["name"] == "ask"


async def test_two_routers_at_one_prefix_fail_at_startup() -> None:
    app = FastAPI()
    app.include_router(router(), prefix="/mcp")
    app.include_router(router(), prefix="/mcp")
    with pytest.raises(RuntimeError, match="two MCP routers are mounted at /mcp"):
        async with app.router.lifespan_context(app):
            pass


def test_a_refused_host_is_logged_with_the_fix(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each refused value is logged once per process, up to a cap: start from none logged, as
    # a fresh process would (test_http_host_origin_matrix.py alone refuses 2,520 values).
    monkeypatch.setattr(http, "_REFUSALS_LOGGED", set())
    app = FastAPI()
    app.include_router(router(), prefix="/mcp")
    with caplog.at_level(logging.WARNING, "genmcp"), LiveServer(app) as base:
        headers = {**HEADERS, "host": "api.shop.example"}
        reply = httpx.post(base + "/mcp", json=LIST, headers=headers)
    assert reply.status_code == 421
    assert "allowed_hosts" in reply.json()["error"]["message"]
    assert "refused a request with Host 'api.shop.example'" in caplog.text
    assert "mcp_router(allowed_hosts=[...]" in caplog.text


@pytest.mark.parametrize(
    ("argv", "env", "count"),
    [
        (["uvicorn", "app:app"], {}, 1),
        (["uvicorn", "app:app", "--workers", "4"], {}, 4),
        (["uvicorn", "app:app", "--workers=3"], {}, 3),
        (["gunicorn", "-w", "2"], {}, 2),
        (["uvicorn"], {"WEB_CONCURRENCY": "2"}, 2),
    ],
)
def test_workers_are_read_from_the_command_line_and_web_concurrency(
    argv: list[str], env: dict[str, str], count: int
) -> None:
    assert workers_likely(argv, env) == count


async def test_several_workers_without_a_key_warn_at_startup(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GENMCP_SECRET_KEY", raising=False)
    monkeypatch.setenv("WEB_CONCURRENCY", "2")
    app = FastAPI()
    app.include_router(router(), prefix="/mcp")
    with caplog.at_level(logging.WARNING, "genmcp"):
        async with app.router.lifespan_context(app):
            pass
    assert "2 worker processes but GENMCP_SECRET_KEY is not set" in caplog.text
    assert "2 worker processes with 2025 sessions in memory" in caplog.text
    assert "Session not found" in caplog.text and "GENMCP_REDIS_URL" in caplog.text


async def test_a_state_from_another_process_says_unknown_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GENMCP_SECRET_KEY", raising=False)
    first = Suite(server_name="s", server_version="1", tools=[Ask])
    params = {"name": "ask", "arguments": {}, "_meta": META}
    asked, _ = await answer_of(first, Request(1, "tools/call", params))
    state = asked["result"]["requestState"]
    await asyncio.sleep(1.05)  # the second process starts later than the token was signed
    second = Suite(server_name="s", server_version="1", tools=[Ask])
    retry = {**params, "requestState": state, "inputResponses": {"ok": {"action": "accept"}}}
    refused, _ = await answer_of(second, Request(2, "tools/call", retry))
    message = refused["error"]["message"]
    assert message.startswith("Invalid requestState (signed with an unknown key)")
    assert "GENMCP_SECRET_KEY" in message


async def test_a_state_from_a_worker_started_at_the_same_time_names_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # two workers start together: the token is signed after both keys exist
    monkeypatch.delenv("GENMCP_SECRET_KEY", raising=False)
    first = Suite(server_name="s", server_version="1", tools=[Ask])
    second = Suite(server_name="s", server_version="1", tools=[Ask])
    params = {"name": "ask", "arguments": {}, "_meta": META}
    asked, _ = await answer_of(first, Request(1, "tools/call", params))
    state = asked["result"]["requestState"]
    retry = {**params, "requestState": state, "inputResponses": {"ok": {"action": "accept"}}}
    refused, _ = await answer_of(second, Request(2, "tools/call", retry))
    message = refused["error"]["message"]
    assert refused["error"]["code"] == -32602, refused
    assert "signed with an unknown key" in message and "GENMCP_SECRET_KEY" in message


async def test_a_shared_broker_without_a_key_warns_at_startup(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    monkeypatch.delenv("GENMCP_SECRET_KEY", raising=False)
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    app = FastAPI()
    app.include_router(router(redis_url=redis_url, redis_prefix="genmcp-test-warn:"), prefix="/mcp")
    with caplog.at_level(logging.WARNING, "genmcp"):
        async with app.router.lifespan_context(app):
            pass
    assert "a shared broker (several processes) but GENMCP_SECRET_KEY is not set" in caplog.text

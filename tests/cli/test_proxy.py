"""`genmcp proxy URL` as a real process: one era's server served to the other era's clients.

Two proxies start side by side: one in front of the official Python SDK's server spoken to
as a 2025-11-25 session (``--upstream-protocol``), called by a 2026-07-28 client (whose
input round answers the SDK's mid-call elicitation); one in front of a genmcp server that
serves 2026-07-28 only, called by a 2025 session client (asked on its own stream). The
command of docs guides/composition.md ("Proxy mode").
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from genmcp import (
    Channel,
    InputRequired,
    Result,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_router,
)
from genmcp.cli import main
from genmcp.client import Client, ClientError
from support.server import LiveServers

GENMCP = [sys.executable, "-m", "genmcp"]


class Confirm(BaseModel):
    ok: bool


def sdk_app() -> Any:
    server = MCPServer("sdk-server", version="9.9")

    @server.tool()
    async def ask(ctx: Context) -> str:  # type: ignore[type-arg]
        answer = await ctx.elicit("Sure?", Confirm)
        return f"{answer.action} {getattr(answer, 'data', None)}"

    return server.streamable_http_app()


class Greet(Tool, name="greet"):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        answer = (request.input_responses or {}).get("who")
        if answer is None:
            return InputRequired({"who": elicit_request("Who?", {"type": "object"})})
        return Result(call_tool_result(text=f"hello {answer['content']['name']}"))


def modern_only_app() -> Any:
    from fastapi import FastAPI

    app = FastAPI()
    router = mcp_router(server_name="modern", server_version="1", tools=[Greet], legacy=False)
    app.include_router(router, prefix="/mcp")
    return app


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def proxies(*upstreams: tuple[str, list[str]]) -> Iterator[list[str]]:
    """`genmcp proxy URL ...` processes, one per upstream; their URLs once they answer."""
    started = []
    for url, extra in upstreams:
        port = free_port()
        process = subprocess.Popen(
            [*GENMCP, "proxy", url, "--port", str(port), *extra], text=True,
            start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        started.append((process, f"http://127.0.0.1:{port}/mcp"))
    try:
        deadline = time.monotonic() + 20
        for process, url in started:
            while True:
                try:
                    httpx.post(url, json={}, timeout=2)
                    break
                except httpx.HTTPError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        output = process.communicate()
                        raise AssertionError(f"never served {url}: {output}") from None
                    time.sleep(0.05)
        yield [url for _, url in started]
    finally:
        for process, _ in started:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT)
            try:
                process.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()


async def test_each_era_reaches_a_server_of_the_other(live_server: LiveServers) -> None:
    sdk = live_server(sdk_app()) + "/mcp"
    modern = live_server(modern_only_app()) + "/mcp"
    with proxies((sdk, ["--upstream-protocol", "2025-11-25"]), (modern, [])) as (old, new):
        async with Client(old, protocol="2026-07-28", capabilities={"elicitation": {}}) as client:
            asked = await client.call_tool("ask", {})
            (key, request), *_ = asked["inputRequests"].items()
            done = await client.call_tool(
                "ask", {}, input_responses={key: {"action": "accept", "content": {"ok": True}}},
                request_state=asked["requestState"],
            )  # fmt: skip
            await client.connect()
            info = client.server_info

        def who(params: dict[str, Any]) -> dict[str, Any]:
            return {"action": "accept", "content": {"name": "Ada"}}

        async with Client(new, protocol="2025-11-25", elicitation=who) as client:
            greeted = await client.call_tool("greet", {})
            session = client.session
        with pytest.raises(ClientError):  # the upstream itself has no 2025 sessions
            async with Client(modern, protocol="2025-11-25") as direct:
                await asyncio.wait_for(direct.list_tools(), 10)

    assert info["name"] == "genmcp-proxy"
    assert request["method"] == "elicitation/create" and request["params"]["message"] == "Sure?"
    assert done["content"][0]["text"] == "accept ok=True"
    assert session is not None and greeted["content"][0]["text"] == "hello Ada"


def test_proxy_refuses_what_is_not_an_http_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proxy", "ftp://example.com/mcp"]) == 2
    assert "expected an http(s) URL" in capsys.readouterr().err

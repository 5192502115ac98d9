"""`genmcp proxy URL` as a real process: one era's server served to the other era's clients.

Two proxies start side by side: one in front of the official Python SDK's server spoken to
as a 2025-11-25 session (``--upstream-protocol``), called by a 2026-07-28 client (whose
input round answers the SDK's mid-call elicitation); one in front of a genmcp server that
serves 2026-07-28 only, called by a 2025 session client (asked on its own stream). The
command of docs guides/composition.md ("Proxy mode") and guides/cli.md ("genmcp proxy").

Then the upstream bounds (``--max-message-bytes``, ``--deadline``: a misbehaving upstream is
a JSON-RPC error naming the bound) and the response cache: two proxy processes on one Redis
(``--redis-url``) ask their upstream once for what either was asked, and an upstream's
``resources/updated`` that only one of them hears empties the other's view too; two on their
own memory (the default without Redis) ask once each, and ``--no-cache`` every time; a
``list_changed`` (both hear it) has both list the new page.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import httpx
import pytest
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from genmcp import (
    Channel,
    InputRequired,
    Result,
    StaticResource,
    Suite,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_app,
    mcp_router,
    resource,
)
from genmcp.cli import main
from genmcp.client import Client, ClientError, RPCError
from support.recorder import Recorder
from support.rogue import Rogue, drip, huge_json
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
    env = {k: v for k, v in os.environ.items() if k != "GENMCP_REDIS_URL"}  # only as told
    for url, extra in upstreams:
        port = free_port()
        process = subprocess.Popen(
            [*GENMCP, "proxy", url, "--port", str(port), *extra], text=True, env=env,
            start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        started.append((process, f"http://127.0.0.1:{port}/mcp"))
    try:
        deadline = time.monotonic() + 60  # a hang guard: two processes start on loaded cores
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


REFUSED: Final = [["--max-pages", "0"], ["--deadline", "-1"], ["--timeout", "0"],
                  ["--redis-url", "localhost:6379"]]  # fmt: skip


@pytest.mark.parametrize("option", REFUSED)
def test_proxy_refuses_bounds_and_urls_it_cannot_use(
    capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    assert main(["proxy", "http://127.0.0.1:1/mcp", *option]) == 2
    assert capsys.readouterr().err.startswith("genmcp: error: proxy: ")


async def test_the_upstream_bounds_are_the_flags(live_server: LiveServers) -> None:
    huge = live_server(Rogue(call=huge_json(300_000))) + "/mcp"
    dripping = live_server(Rogue(call=drip)) + "/mcp"
    # 5 s: the drip never ends; its start-up listing (honest) must fit on loaded cores
    bounds = (huge, ["--max-message-bytes", "100000"]), (dripping, ["--deadline", "5"])
    with proxies(*bounds) as (bounded, deadline):
        async with Client(bounded) as client:
            with pytest.raises(RPCError) as too_big:
                await client.call_tool("big")
            listed = [tool["name"] for tool in await client.list_tools()]
        async with Client(deadline) as client:
            with pytest.raises(RPCError) as too_long:
                await asyncio.wait_for(client.call_tool("big"), 60)  # a hang guard
    assert too_big.value.data == {"upstream": huge, "limit": "max_message_bytes"}
    assert listed == ["big"]  # the proxy keeps serving
    assert (too_long.value.code, too_long.value.data) == (
        -32001, {"upstream": dripping, "limit": "deadline_s"}
    )  # fmt: skip


URI: Final = "docs://page"
HINT: Final = ("public", 60_000)


def counted_upstream(live_server: LiveServers) -> tuple[str, Recorder, Suite, dict[str, str]]:
    """A genmcp upstream whose page may be kept a minute by anyone; its requests recorded."""
    page = {"text": "v1"}

    @resource(URI, name="page", cache_control=HINT)
    def read_page() -> str:
        """The page."""
        return page["text"]

    suite = Suite(server_name="up", server_version="1", resources=[read_page])
    suite.interest.watch(lambda uri, held: None)  # counts the subscribers of each URI
    recorder = Recorder(mcp_app(suite, path="/mcp"))
    return live_server(recorder) + "/mcp", recorder, suite, page


def asked(recorder: Recorder, since: dict[str, int]) -> dict[str, int]:
    return {method: len(recorder.posts(method)) - count for method, count in since.items()}


async def until(check: Any) -> None:
    async with asyncio.timeout(30):  # a hang guard
        while not check():  # noqa: ASYNC110 (the upstream's count: no event to wait on)
            await asyncio.sleep(0.02)


async def lists_new(client: Client) -> bool:
    return "docs://new" in {item["uri"] for item in await client.list_resources()}


@pytest.mark.parametrize("cache", ["redis", "memory", "off"])
async def test_two_proxies_on_one_redis_ask_the_upstream_once_and_invalidate_together(
    live_server: LiveServers, redis_url: str, redis_prefix: str, cache: str
) -> None:
    url, recorder, suite, page = counted_upstream(live_server)
    loop = live_server.last.loop
    extra = {"redis": ["--redis-url", redis_url, "--redis-prefix", redis_prefix],
             "memory": [], "off": ["--no-cache"]}[cache]  # fmt: skip
    with proxies((url, extra), (url, extra)) as (first, second):
        async with Client(first) as one, Client(second) as two:
            since = {"resources/list": len(recorder.posts("resources/list")),
                     "resources/read": len(recorder.posts("resources/read"))}  # fmt: skip
            seen = []
            for client in (one, two, one, two):
                listed = [item["uri"] for item in await client.list_resources()]
                read = await client.read_resource(URI)
                seen.append((listed, read["contents"][0]["text"]))
            before_update = asked(recorder, since)

            # the page changes; only the first proxy subscribes upstream, so only it hears
            async with one.listen(tools=False, prompts=False, resources=False, uris=[URI]) as notes:
                await until(lambda: suite.interest.held(URI) == 1)
                page["text"] = "v2"
                loop.call_soon_threadsafe(suite.resource_updated, URI)
                note = await asyncio.wait_for(anext(notes), 30)
            since = {"resources/read": len(recorder.posts("resources/read"))}
            after = [(await client.read_resource(URI))["contents"][0]["text"]
                     for client in (two, one)]  # fmt: skip
            reads_after = asked(recorder, since)["resources/read"]

            # a page added upstream: its list_changed reaches both proxies' listen streams
            added = StaticResource("docs://new", "new", text="n", cache_control=HINT)
            loop.call_soon_threadsafe(suite.add_resource, added)
            async with asyncio.timeout(30):  # a hang guard: the proxies re-list on their own
                for client in (one, two):
                    while not await lists_new(client):  # noqa: ASYNC110 (no event to wait on)
                        await asyncio.sleep(0.02)

    assert seen == [([URI], "v1")] * 4
    assert note["params"]["uri"] == URI
    expected = {
        "redis": {"resources/list": 1, "resources/read": 1},  # the second proxy: hits
        "memory": {"resources/list": 2, "resources/read": 2},  # once per proxy
        "off": {"resources/list": 4, "resources/read": 4},  # every time
    }
    assert before_update == expected[cache]
    assert (after, reads_after) == {
        "redis": (["v2", "v2"], 1),  # the first proxy's invalidation emptied both views
        "memory": (["v1", "v2"], 1),  # the second kept v1 for its ttlMs: it never heard
        "off": (["v2", "v2"], 2),
    }[cache]


def test_the_commands_the_pages_show_parse() -> None:
    from genmcp.cli import build_parser

    root = Path(__file__).resolve().parents[2] / "docs"
    cli = (root / "guides/cli.md").read_text(encoding="utf-8").split("\n## genmcp proxy\n")[1]
    shown = re.findall(r"^\$ (?:\w+=\S+ )?(genmcp proxy .*)$", cli, re.M)
    composition = (root / "guides/composition.md").read_text(encoding="utf-8")
    shown += [line.split("  #")[0] for line in re.findall(r"^genmcp proxy .*$", composition, re.M)]
    assert len(shown) == 7
    parser = build_parser()
    for command in shown:
        args = parser.parse_args(shlex.split(command)[1:])  # a wrong flag exits (status 2)
        assert args.url.startswith("http")

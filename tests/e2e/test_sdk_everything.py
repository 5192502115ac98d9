"""The official Python SDK client (`mcp==2.3.0`) against examples/everything_server.py.

The same five interactions in 2026-07-28 mode (`Client(url)`: `server/discover`, `_meta` on
every request) and in legacy mode (`Client(url, mode="legacy")`: `initialize`, a session):
list, call, receive progress, cancel, and complete an elicitation. A real uvicorn serves the
example behind a wire recorder, so each test also checks that the interaction took the
era's own path (an `input_required` round trip or a server request on the POST stream;
closing the POST or `notifications/cancelled`). tests/e2e/test_ts_sdk.py does the same with
the official TypeScript client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any, Final

import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.types import ElicitRequestParams, ElicitResult

from support import examples
from support.recorder import Recorder
from support.server import LiveServers

MODERN: Final = "2026-07-28"
LEGACY: Final = "2025-11-25"  # what the SDK offers at initialize
MODES: Final = (MODERN, "legacy")
ANSWER: Final[dict[str, str | int | float | bool | list[str] | None]] = {
    "username": "ada",
    "email": "ada@example.com",
}

everything = examples.load("everything_server")


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Recorder]]:
    recorder = Recorder(everything.app)
    live = LiveServers()
    try:
        yield live(recorder) + "/mcp", recorder
    finally:
        live.stop_all()


@pytest.fixture
def wire(served: tuple[str, Recorder]) -> Recorder:
    recorder = served[1]
    recorder.exchanges.clear()
    return recorder


@pytest.fixture
def sdk(served: tuple[str, Recorder], wire: Recorder) -> Callable[..., Client]:
    """`sdk(mode, **options)`: an SDK Client for the everything server in `mode`."""

    def make(mode: str, **options: Any) -> Client:
        if mode == "legacy":
            options["mode"] = "legacy"
        return Client(served[0], **options)

    return make


def expected_version(mode: str) -> str:
    return MODERN if mode == MODERN else LEGACY


def check_era(wire: Recorder, mode: str) -> None:
    """Every POST spoke the mode's era: `_meta` and no session, or a session after initialize."""
    posts = wire.posts()
    assert posts
    initialized = bool(wire.posts("initialize"))
    assert initialized == (mode == "legacy")
    for post in posts:
        if post.rpc_method == "initialize":
            continue
        assert post.headers["mcp-protocol-version"] == expected_version(mode), post
        assert ("mcp-session-id" in post.headers) == (mode == "legacy"), post


async def eventually(check: Callable[[], bool], within: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.01)


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if block.type == "text"]


@pytest.mark.parametrize("mode", MODES)
async def test_list(sdk: Callable[..., Client], wire: Recorder, mode: str) -> None:
    async with sdk(mode) as client:
        assert client.protocol_version == expected_version(mode)
        assert client.server_info is not None and client.server_info.name == "everything"
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        prompts = {prompt.name for prompt in (await client.list_prompts()).prompts}
        resources = {resource.uri for resource in (await client.list_resources()).resources}
    assert {"test_simple_text", "test_tool_with_progress", "test_elicitation"} <= set(tools)
    assert tools["test_elicitation"].input_schema["required"] == ["message"]
    assert "test_prompt_with_arguments" in prompts
    assert {"test://static-text", "test://static-binary"} <= resources
    check_era(wire, mode)


@pytest.mark.parametrize("mode", MODES)
async def test_call(sdk: Callable[..., Client], wire: Recorder, mode: str) -> None:
    async with sdk(mode) as client:
        simple = await client.call_tool("test_simple_text", {})
        failing = await client.call_tool("test_error_handling", {})
    assert simple.is_error is False
    assert texts(simple) == ["This is a simple text response for testing."]
    assert failing.is_error is True
    assert texts(failing) == ["This tool intentionally returns an error for testing"]
    check_era(wire, mode)


@pytest.mark.parametrize("mode", MODES)
async def test_progress(sdk: Callable[..., Client], wire: Recorder, mode: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with sdk(mode) as client:
        result = await client.call_tool(
            "test_tool_with_progress", {}, progress_callback=on_progress
        )
    assert texts(result) == ["Progress tool finished."]
    assert seen == [(step, 100, f"Completed step {step} of 100") for step in (0, 50, 100)]
    [call] = wire.calls("test_tool_with_progress")
    assert "progressToken" in call.body["params"]["_meta"]
    check_era(wire, mode)


@pytest.mark.parametrize("mode", MODES)
async def test_cancel(sdk: Callable[..., Client], wire: Recorder, mode: str) -> None:
    suite = everything.router.suite
    progressed = asyncio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        progressed.set()

    async with sdk(mode) as client:
        call = asyncio.create_task(
            client.call_tool(
                "test_long_running_operation", {"seconds": 30}, progress_callback=on_progress
            )
        )
        await asyncio.wait_for(progressed.wait(), 5)
        assert suite.live_workers == 1
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        # The tool would run for 30 s: the server cancelled it.
        await eventually(lambda: suite.live_workers == 0)
        after = await client.call_tool("test_simple_text", {})
    assert texts(after) == ["This is a simple text response for testing."]
    [long] = wire.calls("test_long_running_operation")
    cancels = wire.posts("notifications/cancelled")
    if mode == "legacy":
        assert len(cancels) == 1 and cancels[0].status == 202
        assert cancels[0].body["params"]["requestId"] == long.body["id"]
    else:
        assert cancels == []  # 2026-07-28: closing the POST is the cancellation
    check_era(wire, mode)


@pytest.mark.parametrize("mode", MODES)
async def test_elicitation(sdk: Callable[..., Client], wire: Recorder, mode: str) -> None:
    asked: list[ElicitRequestParams] = []

    async def elicit(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept", content=ANSWER)

    async with sdk(mode, elicitation_callback=elicit) as client:
        result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    assert texts(result) == [
        'User response: action=accept, content={"username": "ada", "email": "ada@example.com"}'
    ]
    [params] = asked
    assert params.message == "Who are you?"
    assert params.requested_schema["required"] == ["username", "email"]  # type: ignore[union-attr]
    calls = wire.calls("test_elicitation")
    if mode == "legacy":  # one call; the question went out on its POST stream
        assert len(calls) == 1
        [answer] = [e for e in wire.posts() if e.is_rpc_response]
        assert answer.status == 202 and answer.body["result"]["action"] == "accept"
    else:  # an input_required round, then the retry with the answer
        first, retry = calls
        assert "inputResponses" not in first.body["params"]
        assert retry.body["params"]["inputResponses"]["user"]["content"] == ANSWER
    check_era(wire, mode)

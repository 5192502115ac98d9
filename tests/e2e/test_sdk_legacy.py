"""The official Python SDK client (`mcp==2.3.0`) in legacy (session) mode, at each 2025 revision.

A real uvicorn serves tools written for 2026-07-28; the SDK connects with
`Client(url, mode="legacy")`, which runs the `initialize` handshake and then speaks the
session protocol (`Mcp-Session-Id`, `MCP-Protocol-Version`, server requests on the POST
stream, `notifications/cancelled`, `DELETE` at exit). An ASGI recorder in front of the app
keeps every HTTP exchange, so the tests check the wire as well as what the SDK surfaces.

How the SDK is driven, from reading `mcp/client/` (client.py, session.py,
streamable_http.py):

* `ClientSession.initialize()` always offers `LATEST_HANDSHAKE_VERSION` (2025-11-25), read
  from `mcp.client.session` at call time: patching that name makes the SDK offer 2025-06-18
  or 2025-03-26, and the server echoes a version it serves.
* The SDK validates every result against the negotiated revision
  (`_methods.validate_server_result`), so a field the revision does not know fails here.
* Cancelling the task of a call makes the dispatcher POST `notifications/cancelled` for it
  (in legacy mode the POST itself stays open; the server ends that stream).
* `elicitation_callback` declares the elicitation capability at `initialize`.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

import mcp.client.session
import pytest
from fastapi import FastAPI
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.types import ElicitRequestParams, ElicitResult, LoggingMessageNotificationParams

from genmcp import (
    Channel,
    InputRequired,
    MCPRouter,
    Result,
    Tool,
    ToolRequest,
    call_tool_result,
    elicit_request,
    mcp_router,
)
from support.recorder import Recorder
from support.server import LiveServer

VERSIONS: Final = ("2025-11-25", "2025-06-18", "2025-03-26")
SECRET: Final = "sdk-legacy-test-secret-key-0123456789abcdef"
NAME_SCHEMA: Final = {
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "required": ["name"],
}


# -- tools written for 2026-07-28 ----------------------------------------------------------


class Weather(
    Tool,
    name="weather",
    title="Weather",
    description="Temperature of a city.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}},
    output_schema={"type": "object", "properties": {"temp": {"type": "number"}}},
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        channel.send_log("info", f"weather for {request.arguments['city']}")
        return Result(call_tool_result(structured={"temp": 21.5}))


class Steps(Tool, name="steps", description="Reports progress in three steps."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        for step in (1, 2, 3):
            channel.send_progress(step, 3, f"step {step}")
            await asyncio.sleep(0.01)
        return Result(call_tool_result(text="stepped"))


class Flags:
    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled = threading.Event()


class Slow(Tool, name="slow", description="Runs until cancelled."):
    async def call(self, request: ToolRequest, channel: Channel, flags: Flags) -> Result:
        flags.started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            flags.cancelled.set()
            raise
        return Result(call_tool_result(text="too late"))


class Signup(Tool, name="signup", description="Asks for a name, once for both eras."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        answers = request.input_responses
        if answers is None:
            return InputRequired({"who": elicit_request("Your name?", NAME_SCHEMA)}, {"n": 1})
        answer = answers["who"]
        if answer["action"] != "accept":
            return Result(call_tool_result(text=f"no signup ({answer['action']})"))
        state = request.request_state
        return Result(call_tool_result(text=f"signed up {answer['content']['name']} {state}"))


# -- the server, with a wire recorder -------------------------------------------------------


@dataclass
class Served:
    url: str
    router: MCPRouter
    recorder: Recorder
    flags: Flags


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    flags = Flags()
    router = mcp_router(
        server_name="sdk-legacy",
        server_version="2.0",
        tools=[Weather, Steps, (Slow, flags), Signup],
        secret_key=SECRET,
    )
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    recorder = Recorder(app)
    with LiveServer(recorder) as base:
        yield Served(base + "/mcp", router, recorder, flags)


@pytest.fixture
def sdk(served: Served, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Client]:
    """`sdk(version, **options)`: an SDK Client that offers `version` at initialize."""
    served.recorder.exchanges.clear()
    served.flags.started.clear()
    served.flags.cancelled.clear()

    def make(version: str, **options: Any) -> Client:
        monkeypatch.setattr(mcp.client.session, "LATEST_HANDSHAKE_VERSION", version)
        return Client(served.url, mode="legacy", **options)

    return make


async def eventually(check: Callable[[], bool], within: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.01)


# -- tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_list_and_call_over_a_session_then_delete(
    served: Served, sdk: Callable[..., Client], version: str
) -> None:
    async with sdk(version) as client:
        assert client.protocol_version == version
        assert client.server_info is not None and client.server_info.name == "sdk-legacy"
        tools = await client.list_tools()
        assert sorted(tool.name for tool in tools.tools) == ["signup", "slow", "steps", "weather"]
        weather = next(tool for tool in tools.tools if tool.name == "weather")
        result = await client.call_tool("weather", {"city": "Oslo"})
        assert json.loads(result.content[0].text) == {"temp": 21.5}  # type: ignore[union-attr]
        if version == "2025-03-26":
            assert result.structured_content is None and weather.output_schema is None
        else:
            assert result.structured_content == {"temp": 21.5}
            assert weather.title == "Weather" and weather.output_schema is not None
    wire = served.recorder
    initialize = wire.posts("initialize")[0]
    assert initialize.body["params"]["protocolVersion"] == version
    assert "mcp-session-id" not in initialize.headers
    later = [e for e in wire.exchanges if e is not initialize]
    assert later and all("mcp-session-id" in e.headers for e in later)
    call = wire.posts("tools/call")[0]
    assert call.headers["mcp-protocol-version"] == version
    assert "io.modelcontextprotocol/protocolVersion" not in call.body["params"].get("_meta", {})
    deletes = [e for e in wire.exchanges if e.method == "DELETE"]
    assert [e.status for e in deletes] == [200]


@pytest.mark.parametrize("version", VERSIONS)
async def test_progress_and_logs_reach_the_sdk(sdk: Callable[..., Client], version: str) -> None:
    logs: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async with sdk(version, logging_callback=on_log) as client:
        result = await client.call_tool("steps", {}, progress_callback=on_progress)
        assert result.content[0].text == "stepped"  # type: ignore[union-attr]
        assert progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
        await client.call_tool("weather", {"city": "Rome"})
        assert logs == []
        with pytest.warns(MCPDeprecationWarning):
            await client.set_logging_level("info")
        await client.call_tool("weather", {"city": "Rome"})
        await eventually(lambda: len(logs) == 1)
        assert (logs[0].level, logs[0].data) == ("info", "weather for Rome")


@pytest.mark.parametrize("version", VERSIONS)
async def test_cancelling_a_call_cancels_the_tool(
    served: Served, sdk: Callable[..., Client], version: str
) -> None:
    async with sdk(version) as client:
        call = asyncio.create_task(client.call_tool("slow", {}))
        await eventually(served.flags.started.is_set)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await eventually(served.flags.cancelled.is_set)
        await eventually(lambda: served.router.suite.live_workers == 0)
        assert (await client.call_tool("steps", {})).content[0].text == "stepped"  # type: ignore[union-attr]
    cancels = served.recorder.posts("notifications/cancelled")
    assert len(cancels) == 1 and cancels[0].status == 202
    slow = served.recorder.posts("tools/call")[0]
    assert cancels[0].body["params"]["requestId"] == slow.body["id"]


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18"])
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (ElicitResult(action="accept", content={"name": "Ada"}), "signed up Ada {'n': 1}"),
        (ElicitResult(action="decline"), "no signup (decline)"),
    ],
)
async def test_elicitation_takes_the_one_flow(
    served: Served, sdk: Callable[..., Client], version: str, answer: ElicitResult, expected: str
) -> None:
    asked: list[ElicitRequestParams] = []

    async def elicit(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        return answer

    async with sdk(version, elicitation_callback=elicit) as client:
        result = await client.call_tool("signup", {})
    assert result.content[0].text == expected  # type: ignore[union-attr]
    assert [p.message for p in asked] == ["Your name?"]
    answers = [
        e
        for e in served.recorder.exchanges
        if isinstance(e.body, dict) and "result" in e.body and "method" not in e.body
    ]
    assert len(answers) == 1 and answers[0].status == 202
    assert len(served.recorder.posts("tools/call")) == 1  # the retry stays inside the server


@pytest.mark.parametrize("version", VERSIONS)
async def test_without_elicitation_the_call_fails_with_missing_capability(
    sdk: Callable[..., Client], version: str
) -> None:
    async with sdk(version) as client:
        with pytest.raises(MCPError) as failure:
            await client.call_tool("signup", {})
    assert failure.value.error.code == -32021
    assert failure.value.error.data == {"requiredCapabilities": {"elicitation": {}}}

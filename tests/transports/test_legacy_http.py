"""Legacy session mode (2025-11-25, 2025-06-18, 2025-03-26) on the one `/mcp` endpoint.

Every rule is driven over the wire with raw httpx (`support.legacy_client.LegacyClient`),
against a real uvicorn server; every server message is checked against the official
schema of the negotiated revision, and again with the unknown fields closed (a field the
revision does not know fails the test). The tools below are written once, for 2026-07-28;
nothing in them knows about sessions.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Final

import itsdangerous.timed
import pytest
from fastapi import FastAPI

from genmcp import (
    Channel,
    InputRequired,
    MCPRouter,
    Prompt,
    PromptRequest,
    Result,
    StaticResource,
    Stream,
    Tool,
    ToolRequest,
    call_tool_result,
    create_message_request,
    elicit_request,
    get_prompt_result,
    image,
    list_roots_request,
    mcp_router,
    resource_link,
    text,
    user_message,
)
from genmcp.sealing import Sealer
from support.client import ModernClient
from support.legacy_client import LegacyClient, LegacyReply
from support.server import LiveServer, LiveServers

VERSIONS: Final = ("2025-11-25", "2025-06-18", "2025-03-26")
WITH_ELICITATION: Final = ("2025-11-25", "2025-06-18")
SECRET: Final = "legacy-http-test-secret-key-0123456789abcdef"
ALL_CAPS: Final = {"elicitation": {}, "sampling": {}, "roots": {"listChanged": True}}
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
MISSING_CAPABILITY: Final = -32021
VISIBLE_ASCII: Final = re.compile(r"[\x21-\x7e]+")
NAME_SCHEMA: Final = {"type": "object", "properties": {"name": {"type": "string"}}}


# -- tools written for 2026-07-28 ----------------------------------------------------------


class Rich(
    Tool,
    name="rich",
    title="Rich result",
    description="Structured content, a resource link and block metadata.",
    output_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
    annotations={"readOnlyHint": True},
    meta={"team": "legacy"},
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        blocks = [
            text("hello", annotations={"priority": 0.5, "lastModified": "2026-01-01T00:00:00Z"}),
            image(b"\x89PNG", "image/png", meta={"k": 1}),
            resource_link("file:///a.txt", "a.txt", title="The A file"),
        ]
        return Result(call_tool_result(content=blocks, structured={"n": 1}))


class Chatty(Tool, name="chatty", description="Three progress steps and three logs."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        for step in range(3):
            channel.send_progress(step + 1, 3, f"step {step + 1}")
            channel.send_log("info", {"step": step + 1}, logger="chatty")
            await asyncio.sleep(0.01)
        return Result(call_tool_result(text="done"))


class Calls:
    """What the slow tools saw (the server runs in another thread)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled = threading.Event()
        self.closed = threading.Event()


class Slow(Tool, name="slow", description="Waits until cancelled."):
    async def call(self, request: ToolRequest, channel: Channel, calls: Calls) -> Result:
        calls.started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            calls.cancelled.set()
            raise
        return Result(call_tool_result(text="late"))


class Waiting(Tool, name="waiting", description="Streams until the client goes away."):
    async def call(self, request: ToolRequest, channel: Channel, calls: Calls) -> Stream:
        calls.started.set()
        return Stream({"seen": 0})

    async def handle_close(self, channel: Channel, state: Any, calls: Calls) -> None:
        calls.closed.set()


class Ask(Tool, name="ask", description="Asks the user for a name, then a colour."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        answers = request.input_responses or {}
        state = request.request_state or {}
        if "name" not in state:
            if "name" not in answers:
                return InputRequired({"name": elicit_request("Your name?", NAME_SCHEMA)})
            state = {"name": answers["name"]["content"]["name"]}
        if "colour" not in answers:
            schema = {"type": "object", "properties": {"colour": {"type": "string"}}}
            return InputRequired({"colour": elicit_request("Colour?", schema)}, state)
        colour = answers["colour"]["content"]["colour"]
        return Result(call_tool_result(text=f"{state['name']} likes {colour}"))


class AskAll(Tool, name="ask_all", description="Elicitation, sampling and roots in one round."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        answers = request.input_responses
        if answers is None:
            return InputRequired(
                {
                    "who": elicit_request("Who?", NAME_SCHEMA),
                    "llm": create_message_request("Say hi", 50),
                    "roots": list_roots_request(),
                },
                {"round": 1},
            )
        summary = (
            f"{answers['who']['content']['name']}|{answers['llm']['content']['text']}|"
            f"{answers['roots']['roots'][0]['uri']}|{request.request_state['round']}"
        )
        return Result(call_tool_result(text=summary))


class Confirm(Tool, name="confirm", description="Asks the user to confirm."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        answers = request.input_responses
        if answers is None:
            return InputRequired({"ok": elicit_request("Sure?", NAME_SCHEMA)})
        return Result(call_tool_result(text=f"action: {answers['ok']['action']}"))


def build(calls: Calls, **options: Any) -> tuple[FastAPI, MCPRouter]:
    tools = [Rich, Chatty, (Slow, calls), (Waiting, calls), Ask, AskAll, Confirm]
    router = mcp_router(
        server_name="legacy-test",
        server_version="1.0",
        server_title="Legacy test server",
        tools=tools,
        secret_key=SECRET,
        **options,
    )
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return app, router


@pytest.fixture(scope="module")
def shared_server() -> Iterator[tuple[str, MCPRouter, Calls]]:
    calls = Calls()
    app, router = build(calls)
    with LiveServer(app) as base:  # one server for the module: sessions keep tests apart
        yield base, router, calls


@pytest.fixture
def server(shared_server: tuple[str, MCPRouter, Calls]) -> tuple[str, MCPRouter, Calls]:
    calls = shared_server[2]
    for event in (calls.started, calls.cancelled, calls.closed):
        event.clear()
    return shared_server


@pytest.fixture
async def connect(
    server: tuple[str, MCPRouter, Calls],
) -> AsyncIterator[Callable[..., LegacyClient]]:
    clients: list[LegacyClient] = []

    def make(version: str = "2025-11-25", **options: Any) -> LegacyClient:
        client = LegacyClient(server[0], version=version, **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


async def opened(connect: Callable[..., LegacyClient], version: str, **options: Any) -> Any:
    client = connect(version, **options)
    await client.open()
    return client


async def eventually(check: Callable[[], bool], within: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.01)


def assert_error(reply: LegacyReply, status: int, code: int) -> None:
    assert reply.status == status, reply.body
    assert reply.content_type == "application/json"
    assert reply.error is not None and reply.error["code"] == code, reply.body


# -- initialize -----------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_initialize_negotiates_the_offered_revision_and_seals_a_session(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = connect(version)
    reply = await client.initialize()
    assert reply.status == 200
    assert reply.content_type == "application/json"
    result = reply.result
    assert result["protocolVersion"] == version
    assert set(result["capabilities"]) == {"tools", "logging"}  # only what is configured
    assert "resultType" not in result and "_meta" not in result
    expected_info = {"name": "legacy-test", "version": "1.0"}
    if version != "2025-03-26":
        expected_info["title"] = "Legacy test server"
    assert result["serverInfo"] == expected_info
    session_id = reply.headers["mcp-session-id"]
    assert VISIBLE_ASCII.fullmatch(session_id)
    other = await connect(version).initialize()
    assert other.headers["mcp-session-id"] != session_id


@pytest.mark.parametrize("offered", ["2024-11-05", "2026-07-28", "draft"])
async def test_an_unserved_version_gets_the_newest_legacy_one(
    connect: Callable[..., LegacyClient], offered: str
) -> None:
    client = connect("2025-11-25")
    reply = await client.initialize(version=offered)
    assert reply.status == 200
    assert reply.result["protocolVersion"] == "2025-11-25"


async def test_initialize_with_malformed_params_is_invalid_params(
    connect: Callable[..., LegacyClient],
) -> None:
    client = connect()
    reply = await client.request(
        "initialize", {"protocolVersion": "2025-11-25", "capabilities": []}, validate=False
    )
    assert_error(reply, 200, INVALID_PARAMS)
    assert "mcp-session-id" not in reply.headers


async def test_a_modern_initialize_is_method_not_found(
    server: tuple[str, MCPRouter, Calls],
) -> None:
    async with ModernClient(server[0]) as client:
        reply = await client.request("initialize", {"protocolVersion": "2025-11-25"})
    assert reply.status == 404
    assert reply.error["code"] == METHOD_NOT_FOUND
    assert "mcp-session-id" not in reply.headers


async def test_initialized_is_accepted_with_202_and_no_body(
    connect: Callable[..., LegacyClient],
) -> None:
    client = connect()
    await client.initialize()
    reply = await client.notify("notifications/initialized")
    assert reply.status == 202
    assert reply.body == b""


# -- session ids ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_request_without_a_session_id_is_400(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    reply = await client.request("tools/list", id=7, headers={"Mcp-Session-Id": None})
    assert_error(reply, 400, INVALID_REQUEST)
    assert reply.response["id"] == 7
    bare = await client.request(
        "tools/list", headers={"Mcp-Session-Id": None, "MCP-Protocol-Version": None}
    )
    assert_error(bare, 400, INVALID_REQUEST)


def tampered(token: str) -> str:
    # Not the last character: its low bits are base64 padding, ignored when decoding.
    at = len(token) - 10
    flipped = "A" if token[at] != "A" else "B"
    return token[:at] + flipped + token[at + 1 :]


async def test_unknown_tampered_or_foreign_session_ids_are_404(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-06-18")
    assert client.session_id is not None
    foreign = Sealer(["another-secret-key-0123456789abcdefghijkl"]).seal(
        "session", {"k": "x", "v": "2025-06-18", "c": {}, "i": {}, "p": "", "t": 0}
    )
    other_purpose = Sealer([SECRET]).seal("request_state", {"k": "x"})
    for session_id in ("abc", tampered(client.session_id), foreign, other_purpose):
        reply = await client.request("tools/list", headers={"Mcp-Session-Id": session_id})
        assert_error(reply, 404, INVALID_REQUEST)
    assert (await client.request("tools/list")).status == 200


async def test_an_expired_session_id_is_404(
    server: tuple[str, MCPRouter, Calls],
    connect: Callable[..., LegacyClient],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    legacy = server[1].endpoint.legacy
    assert legacy is not None
    real = itsdangerous.timed.TimestampSigner.get_timestamp
    epoch = await legacy.registry.epoch(legacy.session_max_age_s)
    with monkeypatch.context() as patch:
        patch.setattr(
            itsdangerous.timed.TimestampSigner,
            "get_timestamp",
            lambda self: real(self) - int(legacy.session_max_age_s) - 5,
        )
        old = legacy.ids.new("2025-06-18", {}, {"name": "c", "version": "1"}, None, epoch)
    fresh = legacy.ids.new("2025-06-18", {}, {"name": "c", "version": "1"}, None, epoch)
    client = connect("2025-06-18")
    client.version = "2025-06-18"
    client.session_id = old
    assert_error(await client.request("tools/list"), 404, INVALID_REQUEST)
    client.session_id = fresh
    assert (await client.request("tools/list")).status == 200


@pytest.mark.parametrize("version", VERSIONS)
async def test_delete_ends_the_session_and_its_id_is_404_afterwards(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    assert (await client.request("ping")).status == 200
    deleted = await client.delete()
    assert deleted.status == 200
    assert_error(await client.request("ping"), 404, INVALID_REQUEST)
    assert (await client.notify("notifications/initialized")).status == 404
    assert (await client.delete()).status == 404
    async with client.get_stream() as stream:
        assert stream.reply.status == 404
    again = await opened(connect, version)
    assert (await again.request("ping")).status == 200


async def test_delete_without_a_session_is_400_and_with_a_modern_header_405(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-11-25")
    missing = await client.delete(headers={"Mcp-Session-Id": None})
    assert missing.status == 400
    modern = await client.delete(headers={"MCP-Protocol-Version": "2026-07-28"})
    assert modern.status == 405
    assert "DELETE" in modern.headers["allow"]
    assert (await client.request("ping")).status == 200


# -- MCP-Protocol-Version -------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_protocol_version_header_rules(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    assert (await client.request("tools/list")).status == 200
    absent = await client.request("tools/list", headers={"MCP-Protocol-Version": None})
    assert absent.status == 200  # the negotiated version is assumed
    other = next(v for v in VERSIONS if v != version)
    mismatch = await client.request("tools/list", headers={"MCP-Protocol-Version": other})
    assert_error(mismatch, 400, INVALID_REQUEST)
    bogus = await client.request(
        "tools/list", headers={"MCP-Protocol-Version": "v999"}, validate=False
    )
    assert bogus.status == 400


# -- ping, logging ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_ping_and_set_level_answer_empty_results(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    ping = await client.request("ping")
    assert (ping.status, ping.result) == (200, {})
    level = await client.request("logging/setLevel", {"level": "debug"})
    assert (level.status, level.result) == (200, {})
    bad = await client.request("logging/setLevel", {"level": "loud"})
    assert_error(bad, 200, INVALID_PARAMS)


@pytest.mark.parametrize("version", VERSIONS)
async def test_logs_reach_the_call_stream_only_at_the_level_set(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    silent = await client.request("tools/call", {"name": "chatty"})
    assert [n for n in silent.notifications if n["method"] == "notifications/message"] == []
    await client.request("logging/setLevel", {"level": "info"})
    loud = await client.request("tools/call", {"name": "chatty"})
    logs = [n["params"] for n in loud.notifications if n["method"] == "notifications/message"]
    assert logs == [{"level": "info", "logger": "chatty", "data": {"step": i}} for i in (1, 2, 3)]
    assert loud.result["content"] == [{"type": "text", "text": "done"}]
    await client.request("logging/setLevel", {"level": "error"})
    quiet = await client.request("tools/call", {"name": "chatty"})
    assert quiet.notifications == []
    other = await opened(connect, version)  # the level belongs to its session
    assert (await other.request("tools/call", {"name": "chatty"})).notifications == []


# -- results per revision -------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_tools_list_carries_only_the_fields_of_the_revision(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    reply = await client.request("tools/list")
    assert set(reply.result) == {"tools"}
    tools = {tool["name"]: tool for tool in reply.result["tools"]}
    assert set(tools) == {"rich", "chatty", "slow", "waiting", "ask", "ask_all", "confirm"}
    rich = tools["rich"]
    assert rich["annotations"] == {"readOnlyHint": True}
    if version == "2025-03-26":
        assert set(rich) == {"name", "description", "inputSchema", "annotations"}
    else:
        assert rich["title"] == "Rich result"
        assert rich["outputSchema"]["properties"] == {"n": {"type": "integer"}}
        assert rich["_meta"] == {"team": "legacy"}


@pytest.mark.parametrize("version", VERSIONS)
async def test_tools_call_results_are_translated_per_revision(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    reply = await client.request("tools/call", {"name": "rich"})
    assert reply.status == 200
    result = reply.result
    assert "resultType" not in result and "_meta" not in result
    serialized, first, picture, link = result["content"]
    assert first["text"] == "hello"
    assert serialized == {"type": "text", "text": '{"n":1}'}
    if version == "2025-03-26":
        assert "structuredContent" not in result
        assert first["annotations"] == {"priority": 0.5}
        assert picture == {"type": "image", "data": "iVBORw==", "mimeType": "image/png"}
        assert link == {"type": "text", "text": "Resource link: The A file <file:///a.txt>"}
    else:
        assert result["structuredContent"] == {"n": 1}
        assert first["annotations"]["lastModified"] == "2026-01-01T00:00:00Z"
        assert picture["_meta"] == {"k": 1}
        assert link["type"] == "resource_link" and link["uri"] == "file:///a.txt"


@pytest.mark.parametrize("version", VERSIONS)
async def test_errors_of_requests_travel_with_http_200(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    assert_error(await client.request("tools/call", {"name": "nope"}), 200, INVALID_PARAMS)
    for method in ("server/discover", "subscriptions/listen", "tasks/get", "no/such"):
        assert_error(await client.request(method, {}), 200, METHOD_NOT_FOUND)
    subscribe = await client.request("resources/subscribe", {"uri": "file:///a"})
    assert_error(subscribe, 200, METHOD_NOT_FOUND)  # no resources configured here


# -- progress and cancellation --------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_progress_goes_out_on_the_call_stream(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    params = {"name": "chatty", "_meta": {"progressToken": "tok-1"}}
    reply = await client.request("tools/call", params)
    assert reply.is_sse
    progress = [n["params"] for n in reply.notifications]
    assert progress == [
        {"progressToken": "tok-1", "progress": i, "total": 3, "message": f"step {i}"}
        for i in (1, 2, 3)
    ]
    assert reply.messages[-1] is reply.response


@pytest.mark.parametrize("version", VERSIONS)
async def test_cancelled_cancels_the_call_and_ends_its_stream_unanswered(
    server: tuple[str, MCPRouter, Calls], connect: Callable[..., LegacyClient], version: str
) -> None:
    _, router, calls = server
    client = await opened(connect, version)
    other = await opened(connect, version)
    call = asyncio.create_task(client.request("tools/call", {"name": "slow"}, id="call-1"))
    await eventually(calls.started.is_set)
    stray = await other.notify("notifications/cancelled", {"requestId": "call-1"})
    assert stray.status == 202
    await asyncio.sleep(0.05)
    assert not calls.cancelled.is_set()  # another session cannot cancel it
    cancel = await client.notify(
        "notifications/cancelled", {"requestId": "call-1", "reason": "user"}
    )
    assert cancel.status == 202
    reply = await asyncio.wait_for(call, 5)
    assert reply.status == 200
    assert reply.response is None
    await eventually(calls.cancelled.is_set)  # the stream may end before the tool sees it
    await eventually(lambda: router.suite.live_workers == 0)


async def test_cancelled_while_streaming_runs_handle_close(
    server: tuple[str, MCPRouter, Calls], connect: Callable[..., LegacyClient]
) -> None:
    _, router, calls = server
    client = await opened(connect, "2025-06-18")
    call = asyncio.create_task(client.request("tools/call", {"name": "waiting"}, id=5))
    await eventually(calls.started.is_set)
    await client.notify("notifications/cancelled", {"requestId": 5})
    reply = await asyncio.wait_for(call, 5)
    assert reply.response is None
    await eventually(calls.closed.is_set)
    await eventually(lambda: router.suite.live_workers == 0)


# -- the one flow: input requests on the call stream ----------------------------------------


async def answer_all(
    client: LegacyClient, exchange: Any, answers: dict[str, Any]
) -> list[dict[str, Any]]:
    """Answer each server request (by method) as it arrives; return the requests seen."""
    seen = []
    async for message in exchange:
        if "method" in message and "id" in message:
            seen.append(message)
            accepted = await client.respond(message["id"], answers[message["method"]])
            assert accepted.status == 202 and accepted.body == b""
    return seen


@pytest.mark.parametrize("version", WITH_ELICITATION)
async def test_elicitation_rounds_go_out_on_the_call_stream(
    server: tuple[str, MCPRouter, Calls], connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version, capabilities={"elicitation": {}})
    replies = iter(
        [
            {"action": "accept", "content": {"name": "Ada"}},
            {"action": "accept", "content": {"colour": "green"}},
        ]
    )
    seen = []
    async with client.stream("tools/call", {"name": "ask"}) as exchange:
        async for message in exchange:
            if "id" in message and "method" in message:
                seen.append(message)
                assert (await client.respond(message["id"], next(replies))).status == 202
        reply = exchange.reply
    assert reply.is_sse
    assert [m["method"] for m in seen] == ["elicitation/create", "elicitation/create"]
    first = seen[0]["params"]
    assert first["message"] == "Your name?" and first["requestedSchema"] == NAME_SCHEMA
    assert ("mode" in first) is False
    assert isinstance(seen[0]["id"], str) and seen[0]["id"] != seen[1]["id"]
    assert reply.result["content"] == [{"type": "text", "text": "Ada likes green"}]
    assert server[1].suite.live_workers == 0


async def test_one_round_can_ask_for_input_sample_and_roots(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-11-25", capabilities=ALL_CAPS)
    answers = {
        "elicitation/create": {"action": "accept", "content": {"name": "Bo"}},
        "sampling/createMessage": {
            "role": "assistant",
            "content": {"type": "text", "text": "hi!"},
            "model": "m",
            "_meta": {"kept": True},
        },
        "roots/list": {"roots": [{"uri": "file:///work", "name": "work"}]},
    }
    async with client.stream("tools/call", {"name": "ask_all"}) as exchange:
        seen = await answer_all(client, exchange, answers)
    assert sorted(m["method"] for m in seen) == sorted(answers)
    sampling = next(m for m in seen if m["method"] == "sampling/createMessage")
    assert sampling["params"]["maxTokens"] == 50
    roots = next(m for m in seen if m["method"] == "roots/list")
    assert "params" not in roots
    assert exchange.reply.result["content"][0]["text"] == "Bo|hi!|file:///work|1"


@pytest.mark.parametrize("version", VERSIONS)
async def test_without_the_capability_the_call_fails_with_32021(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version, capabilities={"sampling": {}})
    reply = await client.request("tools/call", {"name": "ask"})
    assert_error(reply, 200, MISSING_CAPABILITY)
    assert reply.error["data"]["requiredCapabilities"] == {"elicitation": {}}
    assert reply.requests == []


async def test_2025_03_26_has_no_elicitation_even_when_declared(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-03-26", capabilities=ALL_CAPS)
    reply = await client.request("tools/call", {"name": "ask"})
    assert_error(reply, 200, MISSING_CAPABILITY)
    assert "elicitation" in reply.error["data"]["requiredCapabilities"]


async def test_an_error_answer_to_an_elicitation_is_a_cancel(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-06-18", capabilities={"elicitation": {}})
    async with client.stream("tools/call", {"name": "confirm"}, id="e1") as exchange:
        async for message in exchange:
            if "id" in message and "method" in message:
                error = {"code": -1, "message": "user closed the dialog"}
                assert (await client.respond(message["id"], error=error)).status == 202
    reply = exchange.reply
    assert reply.response["id"] == "e1"
    assert reply.result["content"][0]["text"] == "action: cancel"


async def test_an_error_answer_to_sampling_is_a_client_fault(
    connect: Callable[..., LegacyClient],
) -> None:
    caps = {"elicitation": {}, "sampling": {}, "roots": {}}
    client = await opened(connect, "2025-06-18", capabilities=caps)
    async with client.stream("tools/call", {"name": "ask_all"}, id="s1") as exchange:
        async for message in exchange:
            if message.get("method") == "sampling/createMessage":
                error = {"code": -1, "message": "no model for you"}
                assert (await client.respond(message["id"], error=error)).status == 202
    reply = exchange.reply
    assert reply.status == 200 and reply.response["id"] == "s1"
    assert reply.error["code"] == -32600  # the client's fault, never -32603
    assert "no model for you" in reply.error["message"]


async def test_answers_are_bound_to_their_session(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-11-25", capabilities={"elicitation": {}})
    intruder = await opened(connect, "2025-11-25")
    async with client.stream("tools/call", {"name": "ask"}) as exchange:
        request = await anext(aiter(exchange))
        assert request["method"] == "elicitation/create"
        forged = {"action": "accept", "content": {"name": "Mallory"}}
        assert (await intruder.respond(request["id"], forged)).status == 202
        assert (await client.respond("not-asked", forged)).status == 202
        await client.respond(request["id"], {"action": "accept", "content": {"name": "Ann"}})
        second = await anext(aiter(exchange))
        await client.respond(second["id"], {"action": "accept", "content": {"colour": "red"}})
        reply = await exchange.drain()
    assert reply.result["content"][0]["text"] == "Ann likes red"


async def test_a_client_going_away_mid_round_ends_the_call(
    server: tuple[str, MCPRouter, Calls], connect: Callable[..., LegacyClient]
) -> None:
    router = server[1]
    client = await opened(connect, "2025-11-25", capabilities={"elicitation": {}})
    async with client.stream("tools/call", {"name": "ask"}) as exchange:
        request = await anext(aiter(exchange))
        assert request["method"] == "elicitation/create"
    await eventually(lambda: broker_topics(router) == 0)
    assert router.suite.live_workers == 0


# -- the GET stream, batches, stray messages ------------------------------------------------


class Extra(Tool, name="extra", description="Added at run time."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="extra"))


@pytest.mark.parametrize("version", VERSIONS)
async def test_get_streams_list_changes_until_delete(
    server: tuple[str, MCPRouter, Calls], connect: Callable[..., LegacyClient], version: str
) -> None:
    router = server[1]
    client = await opened(connect, version)
    assert (await client.request("tools/list")).status == 200
    async with client.get_stream() as stream:
        assert stream.reply.status == 200
        assert stream.reply.is_sse
        await eventually(lambda: broker_topics(router) >= 3)
        router.suite.add_tool(Extra)
        try:
            first = await asyncio.wait_for(anext(aiter(stream)), 5)
        finally:
            router.suite.remove_tool("extra")
        assert first == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
        assert (await client.delete()).status == 200
        rest = await asyncio.wait_for(stream.drain(), 5)
    assert rest.messages == [first, first]  # added, then removed
    await eventually(lambda: broker_topics(router) == 0)


def broker_topics(router: MCPRouter) -> int:
    legacy = router.endpoint.legacy
    assert legacy is not None
    topics: int = legacy.broker.topics  # type: ignore[attr-defined]
    return topics - legacy.signals.topics  # less the one process-wide cancel subscription


async def test_a_newer_get_replaces_the_open_one(connect: Callable[..., LegacyClient]) -> None:
    client = await opened(connect, "2025-06-18")
    async with client.get_stream() as first:
        assert first.reply.status == 200
        async with client.get_stream() as second:
            assert second.reply.status == 200
            ended = await asyncio.wait_for(first.drain(), 5)
            assert ended.messages == []
            assert not second.done


async def test_get_without_a_session_is_400_and_with_a_modern_header_405(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-11-25")
    async with client.get_stream(headers={"Mcp-Session-Id": None}) as missing:
        assert missing.reply.status == 400
    async with client.get_stream(headers={"MCP-Protocol-Version": "2026-07-28"}) as modern:
        assert modern.reply.status == 405


async def test_batches_are_rejected_with_a_clear_error(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-03-26")
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    ]
    reply = await client.post_raw(batch)
    assert reply.status == 400
    assert reply.error["code"] == INVALID_REQUEST
    assert "batch" in reply.error["message"]


async def test_notifications_and_stray_responses_are_accepted(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-11-25")
    for method in ("notifications/roots/list_changed", "notifications/cancelled"):
        assert (await client.notify(method, {"requestId": 99})).status == 202
    assert (await client.respond("never-asked", {"roots": []})).status == 202


async def test_a_modern_request_with_a_session_id_stays_modern(
    server: tuple[str, MCPRouter, Calls], connect: Callable[..., LegacyClient]
) -> None:
    legacy = await opened(connect, "2025-11-25")
    assert legacy.session_id is not None
    async with ModernClient(server[0]) as client:
        reply = await client.request(
            "tools/call", {"name": "rich"}, headers={"Mcp-Session-Id": legacy.session_id}
        )
    assert reply.status == 200
    assert reply.result["resultType"] == "complete"
    assert reply.result["structuredContent"] == {"n": 1}
    assert "mcp-session-id" not in reply.headers


async def test_legacy_can_be_turned_off(live_server: LiveServers) -> None:
    base = live_server(build(Calls(), legacy=False)[0])
    client = LegacyClient(base, version="2025-11-25", validate=False)
    try:
        reply = await client.initialize()
        assert reply.status != 200
        assert client.session_id is None
        async with client.get_stream(headers={"Mcp-Session-Id": "x"}) as stream:
            assert stream.reply.status == 405
            assert stream.reply.headers["allow"] == "POST"
    finally:
        await client.aclose()


# -- prompts and resources ------------------------------------------------------------------


class Greeting(
    Prompt,
    name="greeting",
    title="Greeting",
    description="Asks whom to greet.",
    arguments=[{"name": "tone", "title": "Tone", "description": "How to greet"}],
):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        answers = request.input_responses
        if answers is None:
            return InputRequired({"who": elicit_request("Greet whom?", NAME_SCHEMA)})
        who = answers["who"]["content"]["name"]
        return Result(get_prompt_result([user_message(text(f"Hello {who}"))]))


NOTES: Final = StaticResource(
    uri="test://notes",
    name="notes",
    title="The notes",
    text="some notes",
    mime_type="text/plain",
    icons=[{"src": "https://example.com/n.png"}],
)
OTHER: Final = StaticResource(uri="test://other", name="other", text="other")


@pytest.fixture(scope="module")
def catalog_server() -> Iterator[tuple[str, MCPRouter]]:
    router = mcp_router(
        server_name="legacy-catalog",
        server_version="1.0",
        prompts=[Greeting],
        resources=[NOTES, OTHER],
        secret_key=SECRET,
    )
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    with LiveServer(app) as base:
        yield base, router


@pytest.mark.parametrize("version", VERSIONS)
async def test_resources_and_prompts_are_translated_per_revision(
    catalog_server: tuple[str, MCPRouter], version: str
) -> None:
    async with LegacyClient(catalog_server[0], version=version) as client:
        init = await client.open()
        assert {"prompts", "resources", "logging"} <= set(init.result["capabilities"])
        listed = (await client.request("resources/list")).result
        assert set(listed) == {"resources"}
        notes = next(r for r in listed["resources"] if r["uri"] == "test://notes")
        assert ("title" in notes) is (version != "2025-03-26")
        assert ("icons" in notes) is (version == "2025-11-25")
        read = (await client.request("resources/read", {"uri": "test://notes"})).result
        assert read == {
            "contents": [{"uri": "test://notes", "mimeType": "text/plain", "text": "some notes"}]
        }
        prompts = (await client.request("prompts/list")).result["prompts"]
        argument = prompts[0]["arguments"][0]
        assert ("title" in prompts[0]) is ("title" in argument) is (version != "2025-03-26")


@pytest.mark.parametrize("version", VERSIONS)
async def test_an_unknown_resource_is_the_2025_not_found_code(
    catalog_server: tuple[str, MCPRouter], version: str
) -> None:
    async with LegacyClient(catalog_server[0], version=version) as client:
        await client.open()
        reply = await client.request("resources/read", {"uri": "test://missing"})
    assert reply.status == 200
    assert reply.error["code"] == -32002
    assert reply.error["data"] == {"uri": "test://missing"}


@pytest.mark.parametrize("version", WITH_ELICITATION)
async def test_prompts_get_takes_the_same_input_flow(
    catalog_server: tuple[str, MCPRouter], version: str
) -> None:
    async with LegacyClient(
        catalog_server[0], version=version, capabilities={"elicitation": {}}
    ) as client:
        await client.open()
        answers = {"elicitation/create": {"action": "accept", "content": {"name": "Cy"}}}
        async with client.stream("prompts/get", {"name": "greeting"}) as exchange:
            seen = await answer_all(client, exchange, answers)
        assert [m["method"] for m in seen] == ["elicitation/create"]
        result = exchange.reply.result
        assert result["messages"] == [
            {"role": "user", "content": {"type": "text", "text": "Hello Cy"}}
        ]


@pytest.mark.parametrize("version", VERSIONS)
async def test_resource_updates_reach_only_the_sessions_that_subscribed(
    catalog_server: tuple[str, MCPRouter], version: str
) -> None:
    router = catalog_server[1]
    async with (
        LegacyClient(catalog_server[0], version=version) as watcher,
        LegacyClient(catalog_server[0], version=version) as bystander,
    ):
        await watcher.open()
        await bystander.open()
        subscribed = await watcher.request("resources/subscribe", {"uri": "test://notes"})
        assert (subscribed.status, subscribed.result) == (200, {})
        await watcher.request("resources/subscribe", {"uri": "test://other"})
        await watcher.request("resources/unsubscribe", {"uri": "test://other"})
        async with watcher.get_stream() as stream, bystander.get_stream() as quiet:
            await eventually(lambda: broker_topics(router) >= 5)  # changes + 2 x (end, get)
            router.suite.resource_updated("test://other")
            router.suite.resource_updated("test://notes")
            update = await asyncio.wait_for(anext(aiter(stream)), 5)
            assert update == {
                "jsonrpc": "2.0",
                "method": "notifications/resources/updated",
                "params": {"uri": "test://notes"},
            }
            await watcher.delete()
            await bystander.delete()
            assert (await asyncio.wait_for(quiet.drain(), 5)).messages == []
            assert (await asyncio.wait_for(stream.drain(), 5)).messages == [update]

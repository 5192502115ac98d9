"""The legacy (2025) server the session tests drive: tools written once for 2026-07-28, and helpers.

Shared by tests/sessions/test_server.py, test_session_ids.py, test_rounds.py and
test_get_stream.py (their fixtures are in conftest.py beside them).

Every rule is driven over the wire with raw httpx (`support.legacy_client.LegacyClient`),
against a real uvicorn server; every server message is checked against the official
schema of the negotiated revision, and again with the unknown fields closed (a field the
revision does not know fails the test). The tools are written once, for 2026-07-28;
nothing in them knows about sessions.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from typing import Any, Final

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
from support.legacy_client import LegacyClient, LegacyReply

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


def broker_topics(router: MCPRouter) -> int:
    legacy = router.endpoint.legacy
    assert legacy is not None
    topics: int = legacy.broker.topics  # type: ignore[attr-defined]
    return topics - legacy.signals.topics  # less the one process-wide cancel subscription


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


def catalog_app() -> tuple[FastAPI, MCPRouter]:
    """A server of one prompt and two static resources."""
    router = mcp_router(
        server_name="legacy-catalog",
        server_version="1.0",
        prompts=[Greeting],
        resources=[NOTES, OTHER],
        secret_key=SECRET,
    )
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return app, router

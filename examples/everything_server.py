"""Everything server: one genmcp server with everything the MCP conformance suite exercises.

``make conformance`` (scripts/conformance.sh) starts it on a loopback port and runs the
official suite against ``http://127.0.0.1:PORT/mcp`` at the 2025-11-25, 2026-07-28,
2025-06-18 and 2025-03-26 revisions; ``tests/e2e`` drives it with the official Python and
TypeScript SDK clients. It is also a tour of genmcp:

- tools: plain results, content blocks, progress, logs, tool errors, cancellation, and the
  multi round-trip ``InputRequired`` flow, which genmcp serves to 2026-07-28 clients as an
  ``InputRequiredResult`` and to session (2025) clients as server-to-client requests on the
  call's own stream; each tool below is written once for both;
- tasks (the ``io.modelcontextprotocol/tasks`` extension): tools that run detached, ask for
  input while they run, fail and get cancelled, for the suite's ``tasks-*`` scenarios;
- resources (``StaticResource`` and a template ``ResourceRepo``), prompts (one of them asks
  for input too) and argument completion;
- skills (the ``io.modelcontextprotocol/skills`` extension, SEP-2640): the folder
  ``examples/skills`` served by a ``SkillRepo``, for the suite's ``sep-2640-*`` scenarios:
  ``skills/list``, ``skills/get``, ``resources/directory/read`` and each file as a resource;
- tools that change the served tool and prompt lists, so that open
  ``subscriptions/listen`` streams (and 2025 session GET streams) hear about it.

The session behaviours of the 2025 revisions (``initialize``, ``ping``,
``logging/setLevel``, ``resources/subscribe``, ``DELETE``) need no code here: genmcp serves
them on the same endpoint; ``test_reconnection`` (scenario server-sse-polling) closes its own
stream mid-call with ``channel.close_stream()`` and the client gets the result by resuming
with ``Last-Event-ID``. docs/guides/quality.md, "Conformance", lists what passes. With
``GENMCP_REDIS_URL`` set, its processes share one Redis (``make conformance-scaled`` runs
three behind nginx; the resuming ``GET`` may land on another process than the call).

Run it::

    .venv/bin/python examples/everything_server.py --port 3001
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import math
import os
import struct
import wave
import zlib
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from genmcp import (
    Error,
    InputRequired,
    Prompt,
    ResourceRepo,
    Result,
    SkillRepo,
    StaticResource,
    Suite,
    TaskOptions,
    Tool,
    audio,
    call_tool_result,
    create_message_request,
    elicit_request,
    embedded_resource,
    get_prompt_result,
    image,
    list_roots_request,
    mcp_router,
    read_resource_result,
    text_contents,
    user_message,
)
from genmcp.sessions import LegacyServer

# --------------------------------------------------------------------------- media


def tiny_png() -> bytes:
    """A valid 1x1 red PNG, built in code (no binary files in the repository)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00" + bytes((255, 0, 0)))  # filter byte + one pixel
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def tiny_wav(seconds: float = 0.05, rate: int = 8000, hertz: float = 440.0) -> bytes:
    """A valid mono 16-bit WAV holding a short sine tone."""
    frames = b"".join(
        struct.pack("<h", int(8000 * math.sin(2 * math.pi * hertz * i / rate)))
        for i in range(int(seconds * rate))
    )
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames)
    return buffer.getvalue()


PNG = tiny_png()
WAV = tiny_wav()


# --------------------------------------------------------------------------- answers


def accepted(answer: Any) -> dict[str, Any] | None:
    """The content of an accepted elicitation answer (an ElicitResult), else None."""
    if isinstance(answer, dict) and answer.get("action") == "accept":
        content = answer.get("content")
        return content if isinstance(content, dict) else {}
    return None


def sampled_text(answer: Any) -> str:
    """The text of a sampling answer (a CreateMessageResult; content is a block or a list)."""
    content = answer.get("content") if isinstance(answer, dict) else None
    blocks = content if isinstance(content, list) else [content]
    texts = [
        b["text"]
        for b in blocks
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]
    return " ".join(texts) if texts else "(no text)"


def responses(request: Any) -> dict[str, Any]:
    """The client's answers on a retry (empty on the first round)."""
    return request.input_responses or {}


NAME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "required": ["name"],
}


def ask_name(message: str = "What is your name?") -> dict[str, Any]:
    return elicit_request(message, NAME_SCHEMA)


# --------------------------------------------------------------------------- content tools


class SimpleText(
    Tool,
    name="test_simple_text",
    description="Returns a simple text response.",
):
    async def call(self, request, channel, arg):
        return Result(call_tool_result(text="This is a simple text response for testing."))


class ImageContent(Tool, name="test_image_content", description="Returns a PNG image."):
    async def call(self, request, channel, arg):
        return Result(call_tool_result(content=[image(PNG, "image/png")]))


class AudioContent(Tool, name="test_audio_content", description="Returns a WAV sound."):
    async def call(self, request, channel, arg):
        return Result(call_tool_result(content=[audio(WAV, "audio/wav")]))


class EmbeddedResource(
    Tool,
    name="test_embedded_resource",
    description="Returns an embedded text resource.",
):
    async def call(self, request, channel, arg):
        block = embedded_resource(
            "test://embedded-resource",
            text="This is an embedded resource content.",
            mime_type="text/plain",
        )
        return Result(call_tool_result(content=[block]))


class MultipleContentTypes(
    Tool,
    name="test_multiple_content_types",
    description="Returns text, an image and an embedded JSON resource.",
):
    async def call(self, request, channel, arg):
        resource = embedded_resource(
            "test://mixed-content-resource",
            text=json.dumps({"test": "data", "value": 123}),
            mime_type="application/json",
        )
        return Result(
            call_tool_result(
                text="Multiple content types test:",
                content=[image(PNG, "image/png"), resource],
            )
        )


class ErrorHandling(
    Tool,
    name="test_error_handling",
    description="Always fails as a tool error (isError), not a protocol error.",
):
    async def call(self, request, channel, arg):
        return Result(
            call_tool_result(error="This tool intentionally returns an error for testing")
        )


class JsonSchema202012(
    Tool,
    name="json_schema_2020_12_tool",
    description="Tool with JSON Schema 2020-12 features",
    input_schema={
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"},
                },
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": False,
    },
):
    """tools/list must show this schema verbatim (scenario json-schema-2020-12)."""

    async def call(self, request, channel, arg):
        return Result(call_tool_result(text=f"contact: {json.dumps(request.arguments)}"))


class XMcpHeader(
    Tool,
    name="test_x_mcp_header",
    description="Echoes its region argument, which clients mirror into the "
    "Mcp-Param-Region header.",
    input_schema={
        "type": "object",
        "properties": {
            "region": {
                "type": "string",
                "description": "Mirrored into the Mcp-Param-Region header",
                "x-mcp-header": "Region",
            }
        },
    },
):
    """Arms the SEP-2243 checks (http-custom-header-server-validation); genmcp validates."""

    async def call(self, request, channel, arg):
        return Result(call_tool_result(text=f"region={request.arguments.get('region', '<none>')}"))


# --------------------------------------------------------------------------- progress and logs


class ToolWithProgress(
    Tool,
    name="test_tool_with_progress",
    description="Reports progress 0, 50 and 100 of 100, 50 ms apart.",
):
    async def call(self, request, channel, arg):
        for step in (0, 50, 100):
            if step:
                await asyncio.sleep(0.05)
            # Sent only when the client asked for progress (a progressToken in _meta).
            channel.send_progress(step, total=100, message=f"Completed step {step} of 100")
        return Result(call_tool_result(text="Progress tool finished."))


class ToolWithLogging(
    Tool,
    name="test_tool_with_logging",
    description="Sends three info log messages, 50 ms apart.",
):
    async def call(self, request, channel, arg):
        for i, line in enumerate(
            ("Tool execution started", "Tool processing data", "Tool execution completed")
        ):
            if i:
                await asyncio.sleep(0.05)
            # Sent only at or above the level the client asked for (logging/setLevel on a
            # session, _meta "io.modelcontextprotocol/logLevel" on 2026-07-28): never unasked.
            channel.send_log("info", line, logger="everything")
        return Result(call_tool_result(text="Tool with logging executed successfully"))


class LoggingTool(
    ToolWithLogging,
    name="test_logging_tool",
    description="Logs only when the request sets a log level (2026-07-28).",
):
    """Same behaviour; server-stateless checks that no log goes out unasked."""


class LongRunning(
    Tool,
    name="test_long_running_operation",
    description="Reports progress every 100 ms for `seconds` (default 30), then finishes; "
    "cancel it to stop it early.",
    input_schema={
        "type": "object",
        "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 300, "default": 30}},
    },
):
    """Not a conformance fixture: the SDK interop tests (tests/e2e) cancel it.

    Cancelling needs no code: a 2025 client's ``notifications/cancelled``, or a 2026-07-28
    client closing its POST, cancels this task (``asyncio.CancelledError`` at the ``await``).
    """

    async def call(self, request, channel, arg):
        seconds = request.arguments.get("seconds", 30)
        steps = max(1, math.ceil(seconds * 10))
        for step in range(steps):
            channel.send_progress(step, total=steps, message=f"step {step + 1} of {steps}")
            await asyncio.sleep(0.1)
        return Result(call_tool_result(text=f"Finished after {seconds} s."))


class Reconnection(
    Tool,
    name="test_reconnection",
    description="Closes its response stream mid-call, then answers (SSE polling, SEP-1699).",
):
    """For server-sse-polling: a 2025-11-25 client's POST stream opens with a priming event
    (an id and a ``retry:`` delay), ends with no result, and the client's ``GET`` with
    ``Last-Event-ID`` (to any process) delivers the result. Elsewhere the result comes on
    the stream as usual."""

    async def call(self, request, channel, arg):
        channel.close_stream()  # the call runs on; what follows goes to the session's log
        await asyncio.sleep(0.1)  # the client reconnects meanwhile
        return Result(call_tool_result(text="Reconnection test completed successfully"))


# --------------------------------------------------------------------------- asking the client


class Sampling(
    Tool,
    name="test_sampling",
    description="Asks the client's LLM to answer a prompt.",
    input_schema={
        "type": "object",
        "properties": {
            "prompt": {"type": "string", "description": "The prompt to send to the LLM"}
        },
        "required": ["prompt"],
    },
):
    async def call(self, request, channel, arg):
        answer = responses(request).get("llm")
        if answer is None:
            return InputRequired({"llm": create_message_request(request.arguments["prompt"], 100)})
        return Result(call_tool_result(text=f"LLM response: {sampled_text(answer)}"))


class Elicitation(
    Tool,
    name="test_elicitation",
    description="Asks the user for a username and an email address.",
    input_schema={
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "The message to show the user"}
        },
        "required": ["message"],
    },
):
    SCHEMA: dict[str, Any] = {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }

    async def call(self, request, channel, arg):
        answer = responses(request).get("user")
        if answer is None:
            return InputRequired(
                {"user": elicit_request(request.arguments["message"], self.SCHEMA)}
            )
        return Result(call_tool_result(text=f"User response: {describe_elicitation(answer)}"))


def describe_elicitation(answer: Any) -> str:
    action = answer.get("action") if isinstance(answer, dict) else None
    return f"action={action}, content={json.dumps(accepted(answer) or {})}"


class ElicitationDefaults(
    Tool,
    name="test_elicitation_sep1034_defaults",
    description="Elicitation whose fields all have defaults (SEP-1034).",
):
    SCHEMA: dict[str, Any] = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verified", "default": True},
        },
    }

    async def call(self, request, channel, arg):
        answer = responses(request).get("profile")
        if answer is None:
            ask = elicit_request("Please provide user information", self.SCHEMA)
            return InputRequired({"profile": ask})
        return Result(
            call_tool_result(text=f"Elicitation completed: {describe_elicitation(answer)}")
        )


class ElicitationEnums(
    Tool,
    name="test_elicitation_sep1330_enums",
    description="Elicitation with every enum form (SEP-1330).",
):
    SCHEMA: dict[str, Any] = {
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Simple enum without titles",
                "enum": ["option1", "option2", "option3"],
            },
            "titledSingle": {
                "type": "string",
                "description": "Enum with titled options",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"},
                ],
            },
            "legacyEnum": {
                "type": "string",
                "description": "Legacy enum with enumNames",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Multi-select without titles",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array",
                "description": "Multi-select with titled options",
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"},
                    ]
                },
            },
        },
    }

    async def call(self, request, channel, arg):
        answer = responses(request).get("choices")
        if answer is None:
            ask = elicit_request("Please select values using each enum form", self.SCHEMA)
            return InputRequired({"choices": ask})
        return Result(
            call_tool_result(text=f"Elicitation completed: {describe_elicitation(answer)}")
        )


class MissingCapability(
    Tool,
    name="test_missing_capability",
    description="Needs the client's sampling capability (-32021 without it).",
):
    async def call(self, request, channel, arg):
        channel.require_capability({"sampling": {}})  # a protocol error, HTTP 400 on 2026-07-28
        return Result(call_tool_result(text="The client declared sampling."))


class StreamingElicitation(
    Tool,
    name="test_streaming_elicitation",
    description="Streams, then asks for input the 2026-07-28 way "
    "(an InputRequiredResult, never a request on the stream).",
):
    async def call(self, request, channel, arg):
        answer = responses(request).get("user_name")
        if answer is not None:
            name = (accepted(answer) or {}).get("name", "stranger")
            return Result(call_tool_result(text=f"Hello, {name}!"))
        channel.start_stream()
        channel.send_progress(0, total=1, message="about to ask for a name")
        channel.send_log("info", "asking for a name", logger="everything")
        return InputRequired({"user_name": ask_name()})


# ------------------------------------------------------------- multi round-trip (SEP-2322)


class InputRequiredElicitation(
    Tool,
    name="test_input_required_result_elicitation",
    description="Asks for a name, then greets.",
):
    async def call(self, request, channel, arg):
        answer = responses(request).get("user_name")
        if answer is None:  # first round, or a retry with missing or wrong keys: ask (again)
            return InputRequired({"user_name": ask_name()})
        name = (accepted(answer) or {}).get("name", "stranger")
        return Result(call_tool_result(text=f"Hello, {name}!"))


class InputRequiredSampling(
    Tool,
    name="test_input_required_result_sampling",
    description="Asks the client's LLM a question.",
):
    async def call(self, request, channel, arg):
        answer = responses(request).get("capital_question")
        if answer is None:
            ask = create_message_request("What is the capital of France?", 100)
            return InputRequired({"capital_question": ask})
        return Result(call_tool_result(text=f"Model said: {sampled_text(answer)}"))


class InputRequiredListRoots(
    Tool,
    name="test_input_required_result_list_roots",
    description="Asks for the client's roots and counts them.",
):
    async def call(self, request, channel, arg):
        answer = responses(request).get("client_roots")
        if answer is None:
            return InputRequired({"client_roots": list_roots_request()})
        roots = answer.get("roots") if isinstance(answer, dict) else None
        uris = [r.get("uri") for r in roots or [] if isinstance(r, dict)]
        return Result(call_tool_result(text=f"Client exposed {len(uris)} root(s): {uris}"))


class InputRequiredRequestState(
    Tool,
    name="test_input_required_result_request_state",
    description="Round-trips its state through the client.",
):
    STATE = {"waiting_for": "confirm"}

    async def call(self, request, channel, arg):
        # genmcp seals the state into requestState and verifies it on the way back, so
        # request_state is exactly what round 1 returned (or None on a fresh call).
        if "confirm" in responses(request) and request.request_state == self.STATE:
            return Result(call_tool_result(text="state-ok: confirmation received"))
        confirm = elicit_request(
            "Please confirm",
            {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
        )
        return InputRequired({"confirm": confirm}, state=self.STATE)


class InputRequiredTamperedState(
    InputRequiredRequestState,
    name="test_input_required_result_tampered_state",
    description="Same flow; a modified requestState is rejected "
    "(-32602) by genmcp before call runs.",
):
    """Nothing to write: integrity protection of requestState is genmcp's job."""


class InputRequiredMultipleInputs(
    Tool,
    name="test_input_required_result_multiple_inputs",
    description="Asks for a name, a sampled greeting and the roots "
    "at once; finishes when all three are answered.",
):
    @staticmethod
    def wanted() -> dict[str, dict[str, Any]]:
        return {
            "user_name": ask_name(),
            "greeting": create_message_request("Generate a greeting", 50),
            "client_roots": list_roots_request(),
        }

    async def call(self, request, channel, arg):
        wanted = self.wanted()
        # Answers gathered in earlier rounds travel in the (signed) state.
        got: dict[str, Any] = dict((request.request_state or {}).get("answers", {}))
        got.update({k: v for k, v in responses(request).items() if k in wanted})
        missing = {k: v for k, v in wanted.items() if k not in got}
        if missing:
            return InputRequired(missing, state={"answers": got})
        name = (accepted(got["user_name"]) or {}).get("name", "stranger")
        roots = got["client_roots"].get("roots") or []
        greeting = sampled_text(got["greeting"])
        return Result(
            call_tool_result(
                text=f"All inputs received: {name}, {greeting!r}, {len(roots)} root(s)."
            )
        )


class InputRequiredMultiRound(
    Tool,
    name="test_input_required_result_multi_round",
    description="Three rounds: a name, then a colour, then the answer.",
):
    COLOR_SCHEMA: dict[str, Any] = {
        "type": "object",
        "properties": {"color": {"type": "string"}},
        "required": ["color"],
    }

    async def call(self, request, channel, arg):
        state = request.request_state or {"step": 1}
        got = responses(request)
        if state["step"] == 1:
            if "step1" not in got:
                return InputRequired({"step1": ask_name("Step 1: What is your name?")}, state=state)
            name = (accepted(got["step1"]) or {}).get("name", "stranger")
            state = {"step": 2, "name": name}
        if "step2" not in got or "name" not in state:
            ask = elicit_request("Step 2: What is your favorite color?", self.COLOR_SCHEMA)
            return InputRequired({"step2": ask}, state=state)
        color = (accepted(got["step2"]) or {}).get("color", "no colour")
        return Result(call_tool_result(text=f"{state['name']} likes {color}."))


class InputRequiredCapabilities(
    Tool,
    name="test_input_required_result_capabilities",
    description="Asks only through the input methods the client declared for this request.",
):
    async def call(self, request, channel, arg):
        if responses(request):
            return Result(call_tool_result(text=f"Answered: {sorted(responses(request))}"))
        declared = channel.client_capabilities
        asks: dict[str, dict[str, Any]] = {}
        if "sampling" in declared:
            asks["sample"] = create_message_request("Say hello", 50)
        if "elicitation" in declared:
            asks["ask"] = ask_name()
        if "roots" in declared:
            asks["roots"] = list_roots_request()
        if not asks:
            return Result(call_tool_result(text="The client declared no input method."))
        return InputRequired(asks, state={"asked": sorted(asks)})


# --------------------------------------------------------------------------- resources


class TemplateData(
    ResourceRepo,
    template="test://template/{id}/data",
    name="template-data",
    description="JSON data for any id",
    mime_type="application/json",
):
    """Every URI matching the template; ``request.params`` holds the (decoded) ``id``."""

    async def read(self, request, channel, arg):
        item_id = request.params["id"]
        data = {"id": item_id, "templateTest": True, "data": f"Data for ID: {item_id}"}
        contents = text_contents(request.uri, json.dumps(data), mime_type="application/json")
        return Result(read_resource_result(contents))


RESOURCES = [
    StaticResource(
        uri="test://static-text",
        name="static-text",
        description="A static text resource",
        text="This is the content of the static text resource.",
        mime_type="text/plain",
    ),
    StaticResource(
        uri="test://static-binary",
        name="static-binary",
        description="A static binary resource (a PNG image)",
        blob=PNG,
        mime_type="image/png",
    ),
    StaticResource(
        uri="test://watched-resource",
        name="watched-resource",
        description="A resource clients subscribe to",
        text="Watched resource content.",
        mime_type="text/plain",
    ),
    TemplateData,
]
# A URI nobody serves (test://nope) is "resource not found": -32602 with data.uri.


# --------------------------------------------------------------------------- prompts


class SimplePrompt(Prompt, name="test_simple_prompt", description="A prompt without arguments"):
    async def get(self, request, channel, arg):
        return Result(get_prompt_result("This is a simple prompt for testing."))


class PromptWithArguments(
    Prompt,
    name="test_prompt_with_arguments",
    description="A prompt with two required arguments",
    arguments=[
        {"name": "arg1", "description": "First test argument", "required": True},
        {"name": "arg2", "description": "Second test argument", "required": True},
    ],
):
    SUGGESTIONS = ("paris", "park", "peru", "world")

    async def get(self, request, channel, arg):
        arg1, arg2 = request.arguments["arg1"], request.arguments["arg2"]
        return Result(get_prompt_result(f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"))

    async def complete(self, argument, value, context, arg):
        # completion/complete: the values that extend what the user typed, best first.
        return [word for word in self.SUGGESTIONS if word.startswith(value)]


class PromptWithEmbeddedResource(
    Prompt,
    name="test_prompt_with_embedded_resource",
    description="A prompt that embeds a resource",
    arguments=[{"name": "resourceUri", "description": "URI to embed", "required": True}],
):
    async def get(self, request, channel, arg):
        resource = embedded_resource(
            request.arguments["resourceUri"],
            text="Embedded resource content for testing.",
            mime_type="text/plain",
        )
        return Result(
            get_prompt_result(
                [user_message(resource), user_message("Please process the embedded resource.")]
            )
        )


class PromptWithImage(Prompt, name="test_prompt_with_image", description="A prompt with an image"):
    async def get(self, request, channel, arg):
        return Result(
            get_prompt_result(
                [user_message(image(PNG, "image/png")), user_message("Please analyze the image.")]
            )
        )


class InputRequiredPrompt(
    Prompt,
    name="test_input_required_result_prompt",
    description="Asks the user for context before building the prompt.",
):
    """``InputRequired`` works on ``prompts/get`` (and ``resources/read``) as on tools."""

    CONTEXT_SCHEMA: dict[str, Any] = {
        "type": "object",
        "properties": {"context": {"type": "string"}},
        "required": ["context"],
    }

    async def get(self, request, channel, arg):
        answer = responses(request).get("user_context")
        if answer is None:
            ask = elicit_request("What should the prompt be about?", self.CONTEXT_SCHEMA)
            return InputRequired({"user_context": ask})
        context = (accepted(answer) or {}).get("context", "anything")
        return Result(get_prompt_result(f"Write about {context}."))


PROMPTS = [
    SimplePrompt,
    PromptWithArguments,
    PromptWithEmbeddedResource,
    PromptWithImage,
    InputRequiredPrompt,
]


# ------------------------------------------------------------- changing what is served


class DynamicTool(
    Tool, name="test_dynamic_tool", description="Comes and goes with test_trigger_tool_change."
):
    async def call(self, request, channel, arg):
        return Result(call_tool_result(text="The dynamic tool is here."))


class DynamicPrompt(
    Prompt,
    name="test_dynamic_prompt",
    description="Comes and goes with test_trigger_prompt_change.",
):
    async def get(self, request, channel, arg):
        return Result(get_prompt_result("The dynamic prompt is here."))


class TriggerToolChange(
    Tool,
    name="test_trigger_tool_change",
    description="Adds test_dynamic_tool, or removes it when it is there.",
):
    """``arg`` is the Suite itself; every change notifies the listening clients once.

    Read after write (docs/guides/scaling-out.md): the change is logged and published to the
    other processes before the call answers, so a call to the new tool that lands on
    another process right after it is served there."""

    async def call(self, request, channel, suite):
        removed = suite.remove_tool("test_dynamic_tool")
        if not removed:
            suite.add_tool(DynamicTool)
        await suite.catalog_synced()
        return Result(
            call_tool_result(text=f"{'Removed' if removed else 'Added'} test_dynamic_tool.")
        )


class TriggerPromptChange(
    Tool,
    name="test_trigger_prompt_change",
    description="Adds test_dynamic_prompt, or removes it when it is there.",
):
    async def call(self, request, channel, suite):
        removed = suite.remove_prompt("test_dynamic_prompt")
        if not removed:
            suite.add_prompt(DynamicPrompt)
        await suite.catalog_synced()  # read after write, as above
        return Result(
            call_tool_result(text=f"{'Removed' if removed else 'Added'} test_dynamic_prompt.")
        )


# ------------------------------------------------------------------ tasks (SEP-2663)
#
# A tool with task_support="optional" or "required" runs as a task when the request declares
# the io.modelcontextprotocol/tasks extension: the client gets a task id at once and polls
# tasks/get. The tools below are written exactly like any other: genmcp stores their result
# (or error) on the task, turns InputRequired into an input_required task answered with
# tasks/update, and cancels them (asyncio.CancelledError at the await) on tasks/cancel.


class Greet(Tool, name="greet", description="Says hello (never a task).", input_schema=NAME_SCHEMA):
    async def call(self, request, channel, arg):
        return Result(call_tool_result(text=f"Hello, {request.arguments['name']}!"))


class SlowCompute(
    Tool,
    name="slow_compute",
    description="Sleeps `seconds`, then answers; runs as a task when the client allows it.",
    task_support="optional",
    input_schema={
        "type": "object",
        "properties": {
            "seconds": {"type": "number", "minimum": 0, "maximum": 3600},
            "label": {"type": "string"},
        },
    },
):
    async def call(self, request, channel, arg):
        seconds = request.arguments.get("seconds", 1)
        await asyncio.sleep(seconds)
        label = request.arguments.get("label", "job")
        return Result(call_tool_result(text=f"{label}: computed after {seconds} s"))


class FailingJob(
    Tool,
    name="failing_job",
    description="A task-only job that ends with a tool error (isError) after 0.5 s.",
    task_support="required",
):
    async def call(self, request, channel, arg):
        await asyncio.sleep(0.5)
        return Result(call_tool_result(error="failing_job failed, as it always does"))


class ProtocolErrorJob(
    Tool,
    name="protocol_error_job",
    description="A task that fails with a JSON-RPC error (the task ends failed).",
    task_support="optional",
):
    async def call(self, request, channel, arg):
        await asyncio.sleep(0.1)
        return Error("protocol_error_job: the job broke down", code=-32603)


class ConfirmDelete(
    Tool,
    name="confirm_delete",
    description="Asks the user to confirm, then 'deletes' `filename`.",
    task_support="optional",
    input_schema={
        "type": "object",
        "properties": {"filename": {"type": "string"}},
        "required": ["filename"],
    },
):
    async def call(self, request, channel, arg):
        filename = request.arguments["filename"]
        answer = responses(request).get("confirm")
        if answer is None:
            schema = {"type": "object", "properties": {"confirm": {"type": "boolean"}}}
            return InputRequired({"confirm": elicit_request(f"Delete {filename}?", schema)})
        if (accepted(answer) or {}).get("confirm"):
            return Result(call_tool_result(text=f"Deleted {filename}"))
        return Result(call_tool_result(text=f"Kept {filename}"))


class MultiInput(
    Tool,
    name="multi_input",
    description="Asks two questions at once; answers once both are answered.",
    task_support="optional",
):
    async def call(self, request, channel, arg):
        got = responses(request)
        if "name" not in got or "confirm" not in got:
            schema = {"type": "object", "properties": {"confirm": {"type": "boolean"}}}
            return InputRequired(
                {"name": ask_name(), "confirm": elicit_request("Proceed?", schema)}
            )
        name = (accepted(got["name"]) or {}).get("name", "stranger")
        return Result(call_tool_result(text=f"{name} answered both"))


class ToolWithTask(
    Tool,
    name="test_tool_with_task",
    description="Asks for a name first (multi round-trip), then greets as a task.",
    task_support="required",
):
    def wants_task(self, request, arg):
        # The exchange of InputRequired rounds ends before the task is created (SEP-2663).
        return "user_name" in responses(request)

    async def call(self, request, channel, arg):
        answer = responses(request).get("user_name")
        if answer is None:
            return InputRequired({"user_name": ask_name()})
        await asyncio.sleep(0.2)
        name = (accepted(answer) or {}).get("name", "stranger")
        return Result(call_tool_result(text=f"Hello, {name}! (from a task)"))


TASK_TOOLS = [
    Greet,
    SlowCompute,
    FailingJob,
    ProtocolErrorJob,
    ConfirmDelete,
    MultiInput,
    ToolWithTask,
]


TOOLS = [
    SimpleText,
    ImageContent,
    AudioContent,
    EmbeddedResource,
    MultipleContentTypes,
    ErrorHandling,
    ToolWithProgress,
    ToolWithLogging,
    LoggingTool,
    Sampling,
    Elicitation,
    ElicitationDefaults,
    ElicitationEnums,
    MissingCapability,
    StreamingElicitation,
    InputRequiredElicitation,
    InputRequiredSampling,
    InputRequiredListRoots,
    InputRequiredRequestState,
    InputRequiredTamperedState,
    InputRequiredMultipleInputs,
    InputRequiredMultiRound,
    InputRequiredCapabilities,
    JsonSchema202012,
    XMcpHeader,
    LongRunning,
    Reconnection,
    *TASK_TOOLS,
]


def _shared() -> tuple[Any, Any, dict[str, Any]]:
    """With GENMCP_REDIS_URL set (scripts/scaled.py), a Redis broker, session registry and
    task store shared by every process of this server; else (None, None, {}): one process."""
    url = os.environ.get("GENMCP_REDIS_URL")
    if not url:
        return None, None, {}
    from genmcp.scaleout import RedisBroker, RedisSessionRegistry
    from genmcp.storage.redis.tasks import RedisTaskStore

    prefix = os.environ.get("GENMCP_REDIS_PREFIX", "everything:")
    tasks = {
        "task_store": RedisTaskStore.from_url(url, prefix=prefix),
        "task_options": TaskOptions(ttl_ms=600_000, poll_interval_ms=200),
    }
    broker = RedisBroker.from_url(url, prefix=prefix)
    return broker, RedisSessionRegistry.from_url(url, prefix=prefix), tasks


BROKER, REGISTRY, TASKS = _shared()


SKILLS = [(SkillRepo, str(Path(__file__).resolve().parent / "skills"))]
"""examples/skills: two skills (one with subdirectories), the same on every process."""


def build_suite() -> Suite:
    suite = Suite(
        server_name="everything",
        server_version="1.0.0",
        tools=TOOLS,
        prompts=PROMPTS,
        resources=RESOURCES,
        skills=SKILLS,
        broker=BROKER,
        **TASKS,
    )
    # The trigger tools change what this very Suite serves: it is their provider argument.
    suite.add_tool((TriggerToolChange, suite))
    suite.add_tool((TriggerPromptChange, suite))
    return suite


SUITE = build_suite()
router = mcp_router(
    suite=SUITE, legacy=True if REGISTRY is None else LegacyServer(SUITE, registry=REGISTRY)
)
app = FastAPI(title="genmcp everything server")
app.include_router(router, prefix="/mcp")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=3001, help="port (default 3001)")
    args = parser.parse_args()
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":
    main()

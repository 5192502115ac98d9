"""Tests for genmcp.protocol.v2607: builder shapes, errors, capabilities, official schema."""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker

from genmcp.protocol import v2607 as v

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "support/spec/schema/2026-07-28/schema.json"

PNG = b"\x89PNG\r\n\x1a\n\x00\x01\xfe\xff"
PNG_B64 = base64.b64encode(PNG).decode("ascii")
ANN = {"audience": ["user"], "priority": 0.5}
META = {"com.example/trace": "abc"}
FORM_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
TOOL = {"name": "lookup", "inputSchema": {"type": "object"}}


# ---------------------------------------------------------------------------- constants


def test_constants() -> None:
    assert v.PROTOCOL_VERSION == "2026-07-28"
    assert v.META_PROTOCOL_VERSION == "io.modelcontextprotocol/protocolVersion"
    assert v.META_CLIENT_CAPABILITIES == "io.modelcontextprotocol/clientCapabilities"
    assert v.META_CLIENT_INFO == "io.modelcontextprotocol/clientInfo"
    assert v.META_LOG_LEVEL == "io.modelcontextprotocol/logLevel"
    assert v.META_SERVER_INFO == "io.modelcontextprotocol/serverInfo"
    assert v.META_SUBSCRIPTION_ID == "io.modelcontextprotocol/subscriptionId"
    assert v.LOG_LEVELS == (
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    )


def test_all_names_exist() -> None:
    assert len(set(v.__all__)) == len(v.__all__)
    assert all(hasattr(v, name) for name in v.__all__)


# ---------------------------------------------------------------------------- content blocks

BLOCK_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("text-min", v.text("hi"), {"type": "text", "text": "hi"}),
    (
        "text-full",
        v.text("hi", annotations=ANN, meta=META),
        {"type": "text", "text": "hi", "annotations": ANN, "_meta": META},
    ),
    ("text-empty", v.text(""), {"type": "text", "text": ""}),
    (
        "image-bytes",
        v.image(PNG, "image/png"),
        {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
    ),
    (
        "image-b64-str",
        v.image(PNG_B64, "image/png", annotations=ANN, meta=META),
        {
            "type": "image",
            "data": PNG_B64,
            "mimeType": "image/png",
            "annotations": ANN,
            "_meta": META,
        },
    ),
    (
        "image-bytearray",
        v.image(bytearray(PNG), "image/png"),
        {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
    ),
    (
        "audio-bytes",
        v.audio(b"RIFF", "audio/wav", meta=META),
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav", "_meta": META},
    ),
    (
        "link-min",
        v.resource_link("file:///a.txt", "a.txt"),
        {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
    ),
    (
        "link-full",
        v.resource_link(
            "file:///a.txt",
            "a.txt",
            title="A",
            description="the A file",
            mime_type="text/plain",
            size=0,
            icons=[{"src": "https://example.com/a.png", "sizes": ["48x48"]}],
            annotations=ANN,
            meta=META,
        ),
        {
            "type": "resource_link",
            "uri": "file:///a.txt",
            "name": "a.txt",
            "title": "A",
            "description": "the A file",
            "mimeType": "text/plain",
            "size": 0,
            "icons": [{"src": "https://example.com/a.png", "sizes": ["48x48"]}],
            "annotations": ANN,
            "_meta": META,
        },
    ),
    (
        "resource-text",
        v.embedded_resource("file:///a.txt", text="hello", mime_type="text/plain"),
        {
            "type": "resource",
            "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"},
        },
    ),
    (
        "resource-empty-text",
        v.embedded_resource("file:///a.txt", text=""),
        {"type": "resource", "resource": {"uri": "file:///a.txt", "text": ""}},
    ),
    (
        "resource-blob-bytes",
        v.embedded_resource("file:///a.png", blob=PNG, annotations=ANN, meta=META),
        {
            "type": "resource",
            "resource": {"uri": "file:///a.png", "blob": PNG_B64},
            "annotations": ANN,
            "_meta": META,
        },
    ),
    (
        "resource-blob-str",
        v.embedded_resource("file:///a.png", blob=PNG_B64),
        {"type": "resource", "resource": {"uri": "file:///a.png", "blob": PNG_B64}},
    ),
]


@pytest.mark.parametrize(
    ("built", "expected"), [c[1:] for c in BLOCK_CASES], ids=[c[0] for c in BLOCK_CASES]
)
def test_block_shapes(built: dict[str, Any], expected: dict[str, Any]) -> None:
    assert built == expected


def test_base64_round_trips() -> None:
    assert base64.b64decode(v.image(PNG, "image/png")["data"]) == PNG
    assert base64.b64decode(v.audio(memoryview(PNG), "audio/x")["data"]) == PNG
    assert base64.b64decode(v.embedded_resource("u:x", blob=PNG)["resource"]["blob"]) == PNG


@pytest.mark.parametrize(
    "build",
    [
        lambda d: v.image(d, "image/png"),
        lambda d: v.audio(d, "audio/wav"),
        lambda d: v.embedded_resource("file:///x", blob=d),
    ],
    ids=["image", "audio", "resource"],
)
@pytest.mark.parametrize("bad", ["not base64!", "abc", "aGk-_w==", "\u00e9\u00e9\u00e9\u00e9"])
def test_str_data_must_be_base64(build: Any, bad: str) -> None:
    with pytest.raises(ValueError, match="base64"):
        build(bad)


@pytest.mark.parametrize("bad", [123, None, ["a"]])
def test_data_of_wrong_type(bad: Any) -> None:
    with pytest.raises(TypeError, match="bytes or a base64 str"):
        v.image(bad, "image/png")


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"text": "a", "blob": b"a"}, {"text": "", "blob": ""}],
    ids=["none", "both", "both-empty"],
)
def test_embedded_resource_needs_exactly_one(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="exactly one of text= or blob="):
        v.embedded_resource("file:///x", **kwargs)


def test_builders_copy_their_inputs() -> None:
    ann = {"priority": 1}
    icons = [{"src": "https://example.com/i.png"}]
    block = v.resource_link("u:x", "x", icons=icons, annotations=ann)
    ann["priority"] = 0
    icons[0]["src"] = "changed"
    assert block["annotations"] == {"priority": 1}
    assert block["icons"] == [{"src": "https://example.com/i.png"}]
    assert v.text("a") is not v.text("a")


# ---------------------------------------------------------------------------- call_tool_result

RESULT_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("empty", {}, {"content": []}),
    ("text", {"text": "done"}, {"content": [{"type": "text", "text": "done"}]}),
    (
        "error",
        {"error": "no such city"},
        {"content": [{"type": "text", "text": "no such city"}], "isError": True},
    ),
    (
        "error-and-text",
        {"error": "failed", "text": "details"},
        {
            "content": [{"type": "text", "text": "failed"}, {"type": "text", "text": "details"}],
            "isError": True,
        },
    ),
    (
        "structured-mirrored",
        {"structured": {"temp": 21.5, "city": "Zürich"}},
        {
            "content": [{"type": "text", "text": '{"temp":21.5,"city":"Zürich"}'}],
            "structuredContent": {"temp": 21.5, "city": "Zürich"},
        },
    ),
    (
        "structured-with-text",
        {"structured": [1, 2], "text": "two numbers"},
        {"content": [{"type": "text", "text": "two numbers"}], "structuredContent": [1, 2]},
    ),
    (
        "structured-scalar",
        {"structured": 0},
        {"content": [{"type": "text", "text": "0"}], "structuredContent": 0},
    ),
    (
        "structured-false",
        {"structured": False},
        {"content": [{"type": "text", "text": "false"}], "structuredContent": False},
    ),
    (
        "structured-and-error",
        {"structured": {"code": 7}, "error": "upstream down"},
        {
            "content": [
                {"type": "text", "text": "upstream down"},
                {"type": "text", "text": '{"code":7}'},
            ],
            "structuredContent": {"code": 7},
            "isError": True,
        },
    ),
    (
        "content-appended",
        {"text": "see image", "content": [v.image(PNG, "image/png")]},
        {
            "content": [
                {"type": "text", "text": "see image"},
                {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
            ]
        },
    ),
    (
        "content-only-meta",
        {"content": (v.text("a"), v.text("b")), "meta": META},
        {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "_meta": META},
    ),
]


@pytest.mark.parametrize(
    ("kwargs", "expected"), [c[1:] for c in RESULT_CASES], ids=[c[0] for c in RESULT_CASES]
)
def test_call_tool_result(kwargs: dict[str, Any], expected: dict[str, Any]) -> None:
    result = v.call_tool_result(**kwargs)
    assert result == expected
    assert "resultType" not in result
    assert next(iter(result)) == "content"


def test_call_tool_result_structured_none_is_unset() -> None:
    assert v.call_tool_result(structured=None) == {"content": []}


@pytest.mark.parametrize(("structured", "exc"), [(float("nan"), ValueError), ({1, 2}, TypeError)])
def test_call_tool_result_rejects_non_json(structured: Any, exc: type[Exception]) -> None:
    with pytest.raises(exc):
        v.call_tool_result(structured=structured)


# ---------------------------------------------------------------------------- input requests


def test_elicit_form() -> None:
    assert v.elicit_request("Delete 3 files?", FORM_SCHEMA) == {
        "method": "elicitation/create",
        "params": {"message": "Delete 3 files?", "requestedSchema": FORM_SCHEMA},
    }


def test_elicit_url() -> None:
    assert v.elicit_request("Sign in", url="https://example.com/login") == {
        "method": "elicitation/create",
        "params": {"mode": "url", "message": "Sign in", "url": "https://example.com/login"},
    }


@pytest.mark.parametrize(
    ("schema", "url"), [(None, None), (FORM_SCHEMA, "https://example.com")], ids=["none", "both"]
)
def test_elicit_needs_exactly_one(schema: Any, url: Any) -> None:
    with pytest.raises(ValueError, match="exactly one of requested_schema or url="):
        v.elicit_request("m", schema, url=url)


def test_create_message_minimal_and_str_messages() -> None:
    user_hi = {"role": "user", "content": {"type": "text", "text": "hi"}}
    assistant = {"role": "assistant", "content": {"type": "text", "text": "hello"}}
    assert v.create_message_request(["hi", assistant], 100) == {
        "method": "sampling/createMessage",
        "params": {"messages": [user_hi, assistant], "maxTokens": 100},
    }
    assert v.create_message_request("hi", 5)["params"]["messages"] == [user_hi]


def test_create_message_all_options() -> None:
    request = v.create_message_request(
        ["Summarize"],
        256,
        system_prompt="Be brief.",
        model_preferences={"hints": [{"name": "claude"}], "speedPriority": 0.2},
        temperature=0.0,
        stop_sequences=("END",),
        metadata={"k": "v"},
        include_context="none",
        tools=[TOOL],
        tool_choice="required",
    )
    assert request["params"] == {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Summarize"}}],
        "maxTokens": 256,
        "systemPrompt": "Be brief.",
        "modelPreferences": {"hints": [{"name": "claude"}], "speedPriority": 0.2},
        "temperature": 0.0,
        "stopSequences": ["END"],
        "metadata": {"k": "v"},
        "includeContext": "none",
        "tools": [TOOL],
        "toolChoice": {"mode": "required"},
    }
    mapping_choice = v.create_message_request("x", 1, tool_choice={"mode": "auto"})
    assert mapping_choice["params"]["toolChoice"] == {"mode": "auto"}


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10", None])
def test_create_message_max_tokens(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        v.create_message_request("x", bad)


def test_list_roots() -> None:
    assert v.list_roots_request() == {"method": "roots/list"}


# ---------------------------------------------------------------------------- input_required


def test_input_required_result_shapes() -> None:
    requests = {"confirm": v.elicit_request("ok?", FORM_SCHEMA), "ws": v.list_roots_request()}
    assert v.input_required_result(requests, "v1.state") == {
        "resultType": "input_required",
        "inputRequests": requests,
        "requestState": "v1.state",
    }
    assert v.input_required_result(requests) == {
        "resultType": "input_required",
        "inputRequests": requests,
    }
    assert v.input_required_result(request_state="") == {
        "resultType": "input_required",
        "requestState": "",
    }
    assert v.input_required_result({}, "s") == {"resultType": "input_required", "requestState": "s"}


@pytest.mark.parametrize(("requests", "state"), [(None, None), ({}, None)], ids=["none", "empty"])
def test_input_required_result_needs_something(requests: Any, state: Any) -> None:
    with pytest.raises(ValueError, match="needs input_requests, request_state, or both"):
        v.input_required_result(requests, state)


def test_input_required_result_rejects_bad_requests() -> None:
    with pytest.raises(ValueError, match="unknown method 'ping'"):
        v.input_required_result({"k": {"method": "ping"}})
    with pytest.raises(TypeError, match="request_state must be a str"):
        v.input_required_result({"k": v.list_roots_request()}, b"state")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- capabilities

FORM = v.elicit_request("m", FORM_SCHEMA)
FORM_EXPLICIT = {
    "method": "elicitation/create",
    "params": {"mode": "form", "message": "m", "requestedSchema": FORM_SCHEMA},
}
URL = v.elicit_request("m", url="https://example.com/x")
SAMPLE = v.create_message_request("hi", 10)
SAMPLE_TOOLS = v.create_message_request("hi", 10, tools=[TOOL])
SAMPLE_CHOICE = v.create_message_request("hi", 10, tool_choice="none")
SAMPLE_CONTEXT = v.create_message_request("hi", 10, include_context="thisServer")
SAMPLE_NO_CONTEXT = v.create_message_request("hi", 10, include_context="none")
ROOTS = v.list_roots_request()

REQUIRED_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("nothing", {}, {}),
    ("form", {"a": FORM}, {"elicitation": {}}),
    ("form-explicit-mode", {"a": FORM_EXPLICIT}, {"elicitation": {}}),
    ("url", {"a": URL}, {"elicitation": {"url": {}}}),
    ("form+url", {"a": FORM, "b": URL}, {"elicitation": {"form": {}, "url": {}}}),
    ("sampling", {"a": SAMPLE}, {"sampling": {}}),
    ("sampling-tools", {"a": SAMPLE_TOOLS}, {"sampling": {"tools": {}}}),
    ("sampling-tool-choice", {"a": SAMPLE_CHOICE}, {"sampling": {"tools": {}}}),
    ("sampling-context", {"a": SAMPLE_CONTEXT}, {"sampling": {"context": {}}}),
    ("sampling-context-none", {"a": SAMPLE_NO_CONTEXT}, {"sampling": {}}),
    ("sampling+tools", {"a": SAMPLE, "b": SAMPLE_TOOLS}, {"sampling": {"tools": {}}}),
    ("roots", {"a": ROOTS}, {"roots": {}}),
    ("roots-null-params", {"a": {"method": "roots/list", "params": None}}, {"roots": {}}),
    (
        "all",
        {"a": FORM, "b": URL, "c": SAMPLE_TOOLS, "d": ROOTS},
        {"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}}, "roots": {}},
    ),
]


@pytest.mark.parametrize(
    ("requests", "expected"), [c[1:] for c in REQUIRED_CASES], ids=[c[0] for c in REQUIRED_CASES]
)
def test_required_capabilities(requests: dict[str, Any], expected: dict[str, Any]) -> None:
    assert v.required_capabilities(requests) == expected


@pytest.mark.parametrize(
    ("requests", "match"),
    [
        ({"a": {"method": "tools/call"}}, "unknown method 'tools/call'"),
        ({"a": {}}, "unknown method None"),
        ({"a": "roots/list"}, "must be an object"),
        ({"a": {"method": "roots/list", "params": []}}, "params must be an object"),
        (
            {"a": {"method": "elicitation/create", "params": {"mode": "sms"}}},
            "unknown elicitation mode 'sms'",
        ),
        (["roots/list"], "must be an object mapping"),
    ],
)
def test_required_capabilities_errors(requests: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        v.required_capabilities(requests)
    with pytest.raises(ValueError, match=match):
        v.missing_capabilities(requests, {})


MISSING_CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any] | None]] = [
    ("nothing-needed", {}, {}, None),
    ("form-declared-empty", {"a": FORM}, {"elicitation": {}}, None),
    ("form-declared-form", {"a": FORM}, {"elicitation": {"form": {}}}, None),
    ("form-declared-both", {"a": FORM}, {"elicitation": {"form": {}, "url": {}}}, None),
    ("form-undeclared", {"a": FORM}, {}, {"elicitation": {}}),
    ("form-url-only", {"a": FORM}, {"elicitation": {"url": {}}}, {"elicitation": {"form": {}}}),
    ("form-not-object", {"a": FORM}, {"elicitation": True}, {"elicitation": {}}),
    ("url-declared", {"a": URL}, {"elicitation": {"url": {}}}, None),
    ("url-empty-elicitation", {"a": URL}, {"elicitation": {}}, {"elicitation": {"url": {}}}),
    ("url-form-only", {"a": URL}, {"elicitation": {"form": {}}}, {"elicitation": {"url": {}}}),
    ("url-undeclared", {"a": URL}, {}, {"elicitation": {"url": {}}}),
    ("url-null", {"a": URL}, {"elicitation": {"url": None}}, {"elicitation": {"url": {}}}),
    ("form+url-none", {"a": FORM, "b": URL}, {}, {"elicitation": {"form": {}, "url": {}}}),
    ("form+url-form-ok", {"a": FORM, "b": URL}, {"elicitation": {}}, {"elicitation": {"url": {}}}),
    ("sampling-declared", {"a": SAMPLE}, {"sampling": {}}, None),
    ("sampling-undeclared", {"a": SAMPLE}, {"roots": {}}, {"sampling": {}}),
    ("tools-declared", {"a": SAMPLE_TOOLS}, {"sampling": {"tools": {}}}, None),
    ("tools-undeclared", {"a": SAMPLE_TOOLS}, {"sampling": {}}, {"sampling": {"tools": {}}}),
    ("tools-no-sampling", {"a": SAMPLE_TOOLS}, {}, {"sampling": {"tools": {}}}),
    ("context-undeclared", {"a": SAMPLE_CONTEXT}, {"sampling": {}}, {"sampling": {"context": {}}}),
    ("roots-declared", {"a": ROOTS}, {"roots": {}}, None),
    ("roots-undeclared", {"a": ROOTS}, {"sampling": {}}, {"roots": {}}),
    (
        "mixed",
        {"a": FORM, "b": SAMPLE_TOOLS, "c": ROOTS},
        {"elicitation": {}, "sampling": {}},
        {"sampling": {"tools": {}}, "roots": {}},
    ),
]


@pytest.mark.parametrize(
    ("requests", "caps", "expected"),
    [c[1:] for c in MISSING_CASES],
    ids=[c[0] for c in MISSING_CASES],
)
def test_missing_capabilities(
    requests: dict[str, Any], caps: dict[str, Any], expected: dict[str, Any] | None
) -> None:
    assert v.missing_capabilities(requests, caps) == expected


def test_missing_equals_required_for_a_bare_client() -> None:
    for _, requests, required in REQUIRED_CASES:
        assert v.missing_capabilities(requests, {}) == (required or None)


# ---------------------------------------------------------------------------- official schema


def _byte_format(value: object) -> bool:
    if isinstance(value, str):
        base64.b64decode(value, validate=True)
    return True


@pytest.fixture(scope="module")
def defs() -> dict[str, Any]:
    if not SCHEMA_PATH.is_file():  # kept in the repository: missing is a broken checkout
        pytest.fail(f"no official schema at {SCHEMA_PATH}")
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    found = schema.get("$defs") or schema.get("definitions")
    assert isinstance(found, dict)
    return found


def _validator(defs: dict[str, Any], name: str) -> Draft202012Validator:
    assert name in defs, f"schema has no definition {name!r}"
    checker = FormatChecker()
    checker.checks("byte", raises=(binascii.Error, ValueError))(_byte_format)
    wrapper = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": defs,
        "$ref": f"#/$defs/{name}",
    }
    return Draft202012Validator(wrapper, format_checker=checker)


def _complete(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "resultType": "complete"}


SCHEMA_CASES: list[tuple[str, str, dict[str, Any]]] = [
    *[("ContentBlock", name, block) for name, block, _ in BLOCK_CASES],
    ("TextContent", "text", v.text("hi", annotations=ANN, meta=META)),
    ("ImageContent", "image", v.image(PNG, "image/png")),
    ("AudioContent", "audio", v.audio(PNG, "audio/wav")),
    ("ResourceLink", "link", {c[0]: c[1] for c in BLOCK_CASES}["link-full"]),
    ("EmbeddedResource", "resource-text", v.embedded_resource("file:///a", text="t")),
    ("EmbeddedResource", "resource-blob", v.embedded_resource("file:///a", blob=PNG)),
    *[
        ("CallToolResult", name, _complete(v.call_tool_result(**kw)))
        for name, kw, _ in RESULT_CASES
    ],
    ("ElicitRequest", "form", FORM),
    ("ElicitRequest", "form-explicit", FORM_EXPLICIT),
    ("ElicitRequest", "url", URL),
    ("ElicitRequestFormParams", "form", FORM["params"]),
    ("ElicitRequestURLParams", "url", URL["params"]),
    ("CreateMessageRequest", "minimal", SAMPLE),
    ("CreateMessageRequest", "tools", SAMPLE_TOOLS),
    (
        "CreateMessageRequest",
        "full",
        v.create_message_request(
            ["a", {"role": "assistant", "content": v.text("b")}],
            64,
            system_prompt="s",
            model_preferences={"hints": [{"name": "m"}], "costPriority": 1},
            temperature=0.7,
            stop_sequences=["x"],
            metadata={"k": [1]},
            include_context="thisServer",
            tools=[TOOL],
            tool_choice="auto",
        ),
    ),
    ("ListRootsRequest", "roots", ROOTS),
    *[
        ("InputRequest", name, req)
        for name, req in [
            ("form", FORM),
            ("url", URL),
            ("sampling", SAMPLE_TOOLS),
            ("roots", ROOTS),
        ]
    ],
    (
        "InputRequiredResult",
        "all-kinds",
        v.input_required_result({"a": FORM, "b": URL, "c": SAMPLE, "d": ROOTS}, "v1.x.y.z"),
    ),
    ("InputRequiredResult", "state-only", v.input_required_result(request_state="v1.x")),
    *[
        ("ClientCapabilities", name, v.required_capabilities(reqs))
        for name, reqs, _ in REQUIRED_CASES
    ],
]


@pytest.mark.parametrize(
    ("definition", "instance"),
    [(c[0], c[2]) for c in SCHEMA_CASES],
    ids=[f"{c[0]}-{c[1]}" for c in SCHEMA_CASES],
)
def test_matches_official_schema(
    defs: dict[str, Any], definition: str, instance: dict[str, Any]
) -> None:
    errors = [e.message for e in _validator(defs, definition).iter_errors(instance)]
    assert errors == []


@pytest.mark.parametrize(
    ("definition", "instance"),
    [
        ("CallToolResult", v.call_tool_result(text="no resultType")),
        ("ImageContent", {**v.image(PNG, "image/png"), "data": "not base64!"}),
        ("ElicitRequest", {"method": "elicitation/create", "params": {"message": "m"}}),
        ("InputRequest", {"method": "ping"}),
    ],
    ids=["missing-resultType", "bad-base64", "elicit-without-schema", "unknown-method"],
)
def test_schema_harness_rejects_invalid(
    defs: dict[str, Any], definition: str, instance: dict[str, Any]
) -> None:
    assert not _validator(defs, definition).is_valid(instance)

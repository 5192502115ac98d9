"""protocol.input_requests: nested input requests, and the capabilities they need."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field

from genmcp.protocol.input_requests import (
    create_message_request,
    elicit_request,
    input_required_result,
    list_roots_request,
    missing_capabilities,
    required_capabilities,
)

FORM = elicit_request("Name?", {"type": "object", "properties": {"n": {"type": "string"}}})
URL = elicit_request("Sign in", url="https://h.example/login")
SAMPLE = create_message_request("Hi", 10)
TOOLS = create_message_request("Hi", 10, tool_choice="auto")
CONTEXT = create_message_request("Hi", 10, include_context="thisServer")
ROOTS = list_roots_request()


def test_elicit_request_in_form_and_url_mode() -> None:
    schema = {"type": "object"}
    form = elicit_request("Name?", schema)
    assert form == {
        "method": "elicitation/create",
        "params": {"message": "Name?", "requestedSchema": {"type": "object"}},
    }
    assert form["params"]["requestedSchema"] is not schema
    assert URL["params"] == {"mode": "url", "message": "Sign in", "url": "https://h.example/login"}
    for both_or_neither in ({}, {"requested_schema": schema, "url": "https://x"}):
        with pytest.raises(ValueError, match="exactly one of requested_schema or url="):
            elicit_request("m", **both_or_neither)


def test_create_message_request() -> None:
    assert SAMPLE == {
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}],
            "maxTokens": 10,
        },
    }
    full = create_message_request(
        ["a", {"role": "assistant", "content": {"type": "text", "text": "b"}}],
        5,
        system_prompt="s",
        model_preferences={"intelligencePriority": 1},
        temperature=0.0,
        stop_sequences=("x",),
        metadata={"k": 1},
        include_context="none",
        tools=[{"name": "t", "inputSchema": {"type": "object"}}],
        tool_choice={"mode": "required"},
    )["params"]
    assert [m["role"] for m in full["messages"]] == ["user", "assistant"]
    assert (full["systemPrompt"], full["temperature"], full["stopSequences"]) == ("s", 0.0, ["x"])
    assert full["toolChoice"] == {"mode": "required"} and full["includeContext"] == "none"
    assert TOOLS["params"]["toolChoice"] == {"mode": "auto"}


@pytest.mark.parametrize("max_tokens", [0, -1, True, 1.5, "10"])
def test_max_tokens_must_be_a_positive_int(max_tokens: Any) -> None:
    with pytest.raises(ValueError, match="max_tokens must be a positive int"):
        create_message_request("Hi", max_tokens)


def test_input_required_result() -> None:
    requests = {"name": FORM, "roots": ROOTS}
    assert input_required_result(requests, "sealed") == {
        "resultType": "input_required",
        "inputRequests": {"name": FORM, "roots": ROOTS},
        "requestState": "sealed",
    }
    assert input_required_result(request_state="s") == {
        "resultType": "input_required",
        "requestState": "s",
    }
    assert "requestState" not in input_required_result(requests)


@pytest.mark.parametrize(
    ("requests", "state", "error", "message"),
    [
        (None, None, ValueError, "needs input_requests, request_state, or both"),
        ({}, None, ValueError, "needs input_requests"),
        (None, b"state", TypeError, "request_state must be a str, not bytes"),
        ({"x": {"method": "tools/call"}}, None, ValueError, "input request 'x': unknown method"),
        ({"x": "elicit"}, None, ValueError, "input request 'x' must be an object, not str"),
        ({"x": {"method": "roots/list", "params": []}}, None, ValueError, "params must be an"),
        ({"x": {"method": "elicitation/create", "params": {"mode": "sms"}}}, None, ValueError,
         "unknown elicitation mode 'sms'"),
    ],
)  # fmt: skip
def test_input_required_result_refuses(
    requests: Any, state: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        input_required_result(requests, state)


@pytest.mark.parametrize(
    ("requests", "capabilities"),
    [
        ({}, {}),
        ({"a": FORM}, {"elicitation": {}}),
        ({"a": URL}, {"elicitation": {"url": {}}}),
        ({"a": FORM, "b": URL}, {"elicitation": {"form": {}, "url": {}}}),
        ({"a": SAMPLE}, {"sampling": {}}),
        ({"a": TOOLS, "b": CONTEXT}, {"sampling": {"context": {}, "tools": {}}}),
        ({"a": ROOTS, "b": {"method": "roots/list", "params": None}}, {"roots": {}}),
    ],
)
def test_required_capabilities(requests: dict[str, Any], capabilities: dict[str, Any]) -> None:
    assert required_capabilities(requests) == capabilities


@pytest.mark.parametrize(
    ("requests", "declared", "missing"),
    [
        ({"a": FORM}, {"elicitation": {}}, None),  # {} means form, for older clients
        ({"a": FORM}, {"elicitation": {"form": {}}}, None),
        ({"a": FORM}, {"elicitation": {"url": {}}}, {"elicitation": {"form": {}}}),  # url only
        ({"a": FORM}, {}, {"elicitation": {}}),
        ({"a": FORM}, {"elicitation": True}, {"elicitation": {}}),  # not an object: undeclared
        ({"a": URL}, {"elicitation": {}}, {"elicitation": {"url": {}}}),
        ({"a": FORM, "b": URL}, {}, {"elicitation": {"form": {}, "url": {}}}),
        ({"a": TOOLS}, {"sampling": {}}, {"sampling": {"tools": {}}}),
        ({"a": TOOLS}, {"sampling": {"tools": {}}}, None),
        ({"a": CONTEXT}, {"sampling": {"tools": {}}}, {"sampling": {"context": {}}}),
        ({"a": ROOTS, "b": SAMPLE}, {"roots": {}}, {"sampling": {}}),
        ({"a": ROOTS}, {"roots": {"listChanged": True}}, None),
    ],
)
def test_missing_capabilities(
    requests: dict[str, Any], declared: dict[str, Any], missing: dict[str, Any] | None
) -> None:
    assert missing_capabilities(requests, declared) == missing


def test_elicit_request_takes_a_pydantic_model_as_the_form() -> None:
    class Confirm(BaseModel):
        yes: bool = Field(description="Sure?")
        note: str = ""

    assert elicit_request("Go?", Confirm)["params"] == {
        "message": "Go?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "yes": {"description": "Sure?", "title": "Yes", "type": "boolean"},
                "note": {"default": "", "title": "Note", "type": "string"},
            },
            "required": ["yes"],
        },
    }

    class Nested(BaseModel):
        inner: Confirm

    with pytest.raises(ValueError, match="primitive fields only"):
        elicit_request("Go?", Nested)

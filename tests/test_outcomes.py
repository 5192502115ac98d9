"""outcomes.py: ``typed_input`` (what ``request.input(Model)`` returns), ``InputDeclined`` and
``HookRequest``, the fields every hook's request has."""

from __future__ import annotations

from dataclasses import fields

import pytest
from pydantic import BaseModel

from genmcp import InputDeclined, MCPError, PromptRequest, ResourceRequest, ToolRequest
from genmcp.outcomes import HookRequest, typed_input


class Confirm(BaseModel):
    yes: bool


class Size(BaseModel):
    n: int


def test_none_before_the_client_answered() -> None:
    assert typed_input(None, Confirm) is None
    assert typed_input({}, Confirm) is None
    assert typed_input({"other": {"action": "accept"}}, Confirm, "confirm") is None


def test_an_accepted_answer_is_the_model() -> None:
    answer = {"action": "accept", "content": {"yes": True}}
    assert typed_input({"confirm": answer}, Confirm) == Confirm(yes=True)
    request = ToolRequest("t", {}, {}, {"confirm": answer})
    assert request.input(Confirm) == Confirm(yes=True)
    assert request.input(Confirm, "confirm") == Confirm(yes=True)


def test_several_answers_need_a_key_or_the_models_name() -> None:
    answers = {
        "Confirm": {"action": "accept", "content": {"yes": False}},
        "size": {"action": "accept", "content": {"n": 3}},
    }
    assert typed_input(answers, Confirm) == Confirm(yes=False)
    assert typed_input(answers, Size, "size") == Size(n=3)
    with pytest.raises(ValueError, match=r"name the key, request.input\(Model, 'key'\)"):
        typed_input(answers, Size)


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_refusal_raises_input_declined(action: str) -> None:
    with pytest.raises(InputDeclined) as caught:
        typed_input({"confirm": {"action": action}}, Confirm)
    assert (caught.value.key, caught.value.action) == ("confirm", action)
    assert caught.value.to_error()["data"] == {"key": "confirm", "action": action}


def test_content_that_does_not_fit_is_the_clients_fault() -> None:
    with pytest.raises(MCPError) as caught:
        typed_input({"confirm": {"action": "accept", "content": {"yes": "perhaps"}}}, Confirm)
    assert caught.value.reason == "bad_input_responses" and caught.value.client_fault
    assert "'confirm' does not fit Confirm" in caught.value.message


def test_the_three_requests_share_the_fields_hook_request_declares() -> None:
    shared = [f.name for f in fields(HookRequest)]
    assert shared == ["meta", "input_responses", "request_state"]
    requests = [
        ToolRequest("t", {}),
        PromptRequest("p", {"code": "x"}),
        ResourceRequest("test://r", {}),
    ]
    for request in requests:
        assert isinstance(request, HookRequest)
        assert [f.name for f in fields(request)][:3] == shared  # declared once, in the base
        assert (request.meta, request.input_responses, request.request_state) == ({}, None, None)
    prompt = PromptRequest("p", {}, meta={"k": 1}, input_responses={"a": 1}, request_state="s")
    assert (prompt.meta, prompt.input_responses, prompt.request_state) == ({"k": 1}, {"a": 1}, "s")
    with pytest.raises(TypeError):
        PromptRequest("p", {}, {"k": 1})  # type: ignore[call-arg]  # keyword-only
    assert ToolRequest("t", {}, {"k": 1}, None, "s").request_state == "s"  # the hot path's

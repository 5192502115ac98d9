"""genmcp.testing.params: the params MCPTestClient's helpers send, and answers to input."""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.testing.params import answer, call_params, complete_params, listen_params


def test_call_params_carry_only_what_was_given() -> None:
    assert call_params("add", None, None, None) == {"name": "add"}
    assert call_params("add", {"a": 1}, {"k": {"action": "accept"}}, "sealed") == {
        "name": "add",
        "arguments": {"a": 1},
        "inputResponses": {"k": {"action": "accept"}},
        "requestState": "sealed",
    }


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("greet", {"type": "ref/prompt", "name": "greet"}),
        ("notes://{id}", {"type": "ref/resource", "uri": "notes://{id}"}),
        ({"type": "ref/prompt", "name": "x"}, {"type": "ref/prompt", "name": "x"}),
    ],
)
def test_complete_params_read_a_ref_from_a_name_or_a_uri(ref: Any, expected: Any) -> None:
    params = complete_params(ref, "who", "a", None)
    assert params == {"ref": expected, "argument": {"name": "who", "value": "a"}}


def test_complete_params_carry_the_context() -> None:
    params = complete_params("greet", "who", "", {"lang": "en"})
    assert params["context"] == {"arguments": {"lang": "en"}}


def test_listen_params_name_each_wanted_kind() -> None:
    assert listen_params(tools=False, prompts=False, resources=False, uris=()) == {
        "notifications": {}
    }
    assert listen_params(tools=True, prompts=True, resources=True, uris=("a://b",)) == {
        "notifications": {
            "toolsListChanged": True,
            "promptsListChanged": True,
            "resourcesListChanged": True,
            "resourceSubscriptions": ["a://b"],
        }
    }


async def test_answer_by_key_by_callable_and_awaited() -> None:
    request = {"method": "elicitation/create", "params": {}}

    async def later(key: str, seen: Any) -> Any:
        return {"key": key}

    assert await answer({"k": 1}, "k", request) == 1
    assert await answer({"k": lambda seen: seen["method"]}, "k", request) == "elicitation/create"
    assert await answer(later, "k", request) == {"key": "k"}


async def test_an_unanswered_key_fails_naming_it() -> None:
    with pytest.raises(AssertionError, match="no answer given for input request 'x'"):
        await answer({"k": 1}, "x", {"method": "roots/list"})

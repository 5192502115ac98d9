"""protocol.prompts: the prompt message and result builders, and ``completion/complete``.

The schema check of the builders moved here from test_prompt.py; then prompt arguments,
the completion cap, the request parser (hostile input) and hook results.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from genmcp import (
    assistant_message,
    complete_result,
    get_prompt_result,
    image,
    prompt_message,
    user_message,
)
from genmcp.errors import CallbackReturnError, MCPError
from genmcp.protocol.prompts import as_complete_result, parse_complete_params, prompt_argument
from support import schema

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
)


def test_prompt_builders_match_the_schema() -> None:
    schema.require_schema()
    result = get_prompt_result(
        ["hi", assistant_message(image(PNG, "image/png"))], description="d", meta={"k": 1}
    )
    schema.validate({**result, "resultType": "complete"}, "GetPromptResult")
    assert result["messages"][0] == {"role": "user", "content": {"type": "text", "text": "hi"}}
    with pytest.raises(ValueError, match="role"):
        prompt_message("system", "hi")
    with pytest.raises(TypeError, match="content"):
        user_message({"text": "no type"})
    with pytest.raises(TypeError, match="prompt message"):
        get_prompt_result([{"content": "no role"}])
    capped = complete_result(str(n) for n in range(150))
    schema.validate({**capped, "resultType": "complete"}, "CompleteResult")
    assert capped["completion"]["total"] == 150 and capped["completion"]["hasMore"] is True
    assert complete_result(["a"], total=1) == {"completion": {"values": ["a"], "total": 1}}
    with pytest.raises(TypeError, match="strings"):
        complete_result([1])  # type: ignore[list-item]


def test_messages_take_a_str_or_a_content_block() -> None:
    block = {"type": "text", "text": "x", "annotations": {"priority": 1}}
    assert assistant_message(block) == {"role": "assistant", "content": block}
    assert assistant_message(block)["content"] is not block
    assert get_prompt_result("hi") == {
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]
    }
    with pytest.raises(TypeError, match="content"):
        user_message({"type": 1})


def test_prompt_argument() -> None:
    assert prompt_argument("a") == {"name": "a"}
    assert prompt_argument("a", title="A", description="d", required=False) == {
        "name": "a",
        "title": "A",
        "description": "d",
        "required": False,
    }


@pytest.mark.parametrize(
    ("values", "options", "completion"),
    [
        (["a", "b"], {}, {"values": ["a", "b"]}),
        ([], {}, {"values": []}),
        (["a"], {"total": 5}, {"values": ["a"], "total": 5, "hasMore": True}),  # derived
        (["a"], {"total": 5, "has_more": False}, {"values": ["a"], "total": 5, "hasMore": False}),
        (["a"], {"has_more": True}, {"values": ["a"], "hasMore": True}),
        ([str(n) for n in range(100)], {}, {"values": [str(n) for n in range(100)]}),
    ],
)
def test_complete_result(values: list[str], options: dict[str, Any], completion: Any) -> None:
    assert complete_result(values, **options) == {"completion": completion}


def test_complete_result_counts_past_the_cap() -> None:
    capped = complete_result((str(n) for n in range(101)), total=None)["completion"]
    assert (len(capped["values"]), capped["total"], capped["hasMore"]) == (100, 101, True)
    assert complete_result((str(n) for n in range(101)), total=7)["completion"]["total"] == 7


def complete_params(**changes: Any) -> dict[str, Any]:
    params: dict[str, Any] = {
        "ref": {"type": "ref/prompt", "name": "p"},
        "argument": {"name": "style", "value": "b"},
    }
    params.update(changes)
    return {key: value for key, value in params.items() if value is not None}


def test_parse_complete_params() -> None:
    assert parse_complete_params(complete_params()) == ("ref/prompt", "p", "style", "b", {})
    resource = complete_params(
        ref={"type": "ref/resource", "uri": "a://{x}"}, context={"arguments": {"y": "1"}}
    )
    assert parse_complete_params(resource) == ("ref/resource", "a://{x}", "style", "b", {"y": "1"})
    assert parse_complete_params(complete_params(context={}))[4] == {}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"ref": None}, "needs params.ref"),
        ({"ref": "p"}, "needs params.ref"),
        ({"ref": {"type": "ref/prompt", "uri": "p"}}, "ref must be"),
        ({"ref": {"type": "ref/tool", "name": "p"}}, "ref must be"),
        ({"ref": {"type": "ref/resource", "uri": 5}}, "ref must be"),
        ({"argument": None}, "needs params.argument"),
        ({"argument": {"name": "a"}}, "needs params.argument"),
        ({"argument": {"name": "a", "value": 1}}, "needs params.argument"),
        ({"context": []}, "context must be an object"),
        ({"context": {"arguments": []}}, "context.arguments must map names to strings"),
        ({"context": {"arguments": {"a": 1}}}, "context.arguments must map names to strings"),
    ],
)
def test_a_malformed_complete_request_is_invalid_params(
    changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(MCPError) as caught:
        parse_complete_params(complete_params(**changes))
    assert caught.value.reason == "invalid_params"
    assert caught.value.message.startswith("Invalid params: completion/complete ")
    assert message in caught.value.message


def test_a_hooks_completion_is_kept_or_refused() -> None:
    assert as_complete_result(["a", "b"], kind="Prompt", owner="P") == {
        "completion": {"values": ["a", "b"]}
    }
    made = complete_result(["a"], total=3)
    assert as_complete_result(made, kind="Prompt", owner="P") == made
    for wrong in ("ab", [1], {"completion": {"values": ["x"] * 101}}, None, {"values": ["a"]}):
        with pytest.raises(CallbackReturnError):
            as_complete_result(wrong, kind="Prompt", owner="P")

"""SamplingAdapter's shared parts: the model a request's hints choose, content as blocks."""

from __future__ import annotations

import pytest

from genmcp.client import RPCError
from genmcp.client.sampling.adapter import (
    assistant_result,
    blocks,
    options_of,
    pick_model,
    single_or_list,
    tool_mode,
)


def test_the_first_hint_naming_a_model_wins() -> None:
    models = ["gpt-4o", "gpt-4o-mini", "o3"]
    hints = {"hints": [{"name": "claude"}, {"name": "mini"}, {"name": "o3"}]}
    assert pick_model(hints, models, "gpt-4o") == "gpt-4o-mini"
    assert pick_model({"hints": [{"name": "sonnet"}]}, models, "gpt-4o") == "gpt-4o"
    assert pick_model(None, models, "o3") == "o3"
    assert pick_model({"hints": "mini"}, models, "o3") == "o3"  # not a list: ignored


def test_content_is_a_block_or_a_list() -> None:
    text = {"type": "text", "text": "a"}
    assert blocks(text) == [text]
    assert blocks([text, text]) == [text, text]
    with pytest.raises(RPCError) as caught:
        blocks("a")
    assert caught.value.code == -32602
    assert single_or_list([text], {}) == text
    assert single_or_list([text], {"tools": [{"name": "t"}]}) == [text]


def test_tool_mode_is_one_mcp_names_or_none() -> None:
    assert tool_mode({"toolChoice": {"mode": "required"}}) == "required"
    assert tool_mode({"toolChoice": {"mode": "any"}}) is None
    assert tool_mode({"toolChoice": {"mode": ["auto"]}}) is None
    assert tool_mode({"toolChoice": "auto"}) is None
    assert tool_mode({}) is None


def test_options_are_the_given_temperature_and_stop_sequences() -> None:
    given = {"temperature": 0, "stopSequences": ("END",)}
    assert options_of(given, "stop") == {"temperature": 0, "stop": ["END"]}
    assert options_of({"temperature": None, "stopSequences": []}, "stop") == {}


def test_an_empty_answer_is_one_empty_text_block() -> None:
    empty = assistant_result([], {}, None, None)
    assert empty == {"role": "assistant", "content": {"type": "text", "text": ""}, "model": ""}
    text = {"type": "text", "text": "a"}
    tools = {"tools": [{"name": "t"}]}
    found = assistant_result([text], tools, "m", "endTurn")
    assert found == {"role": "assistant", "content": [text], "model": "m", "stopReason": "endTurn"}

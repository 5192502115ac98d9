"""SamplingAdapter's shared parts: the model a request's hints choose, content as blocks."""

from __future__ import annotations

import pytest

from genmcp.client import RPCError
from genmcp.client.sampling.adapter import blocks, pick_model, single_or_list


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

"""client.inputs: what a client declares from its callbacks, and how it answers a request."""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.client import RPCError
from genmcp.client.inputs import Inputs, with_defaults


async def test_callbacks_are_the_capabilities_and_answer_their_method() -> None:
    async def sample(params: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "model": "m", "content": {"type": "text", "text": "hi"}}

    inputs = Inputs(
        elicitation=lambda params: {"action": "decline"},
        sampling=sample,
        roots=[{"uri": "file:///a", "name": "a"}],
    )

    assert inputs.capabilities() == {"elicitation": {}, "sampling": {}, "roots": {}}
    assert await inputs.answer({"method": "elicitation/create", "params": {}}) == {
        "action": "decline"
    }
    assert (await inputs.answer({"method": "sampling/createMessage"}))["model"] == "m"
    assert await inputs.answer({"method": "roots/list"}) == {
        "roots": [{"uri": "file:///a", "name": "a"}]
    }
    assert await inputs.answer({"method": "ping"}) == {}


async def test_roots_may_come_from_a_coroutine_and_nothing_answers_what_is_missing() -> None:
    async def roots() -> list[dict[str, str]]:
        return [{"uri": "file:///b"}]

    inputs = Inputs(roots=roots)

    assert inputs.capabilities() == {"roots": {}}
    assert await inputs.answer({"method": "roots/list"}) == {"roots": [{"uri": "file:///b"}]}
    assert not inputs.answers("elicitation/create") and inputs.answers("roots/list")
    with pytest.raises(RPCError) as missing:
        await inputs.answer({"method": "elicitation/create", "params": {}})
    assert missing.value.code == -32601


async def test_a_callback_returning_junk_is_a_type_error() -> None:
    inputs = Inputs(elicitation=lambda params: "yes")
    with pytest.raises(TypeError, match="not a result dict"):
        await inputs.answer({"method": "elicitation/create", "params": {}})


def test_an_accepted_form_gets_the_defaults_of_what_it_left_out() -> None:
    params = {"requestedSchema": {"type": "object", "properties": {
        "name": {"type": "string", "default": "Ann"}, "age": {"type": "integer", "default": 3},
        "note": {"type": "string"}}}}  # fmt: skip

    accepted = with_defaults(params, {"action": "accept", "content": {"age": 9}})
    declined = with_defaults(params, {"action": "decline"})

    assert accepted == {"action": "accept", "content": {"age": 9, "name": "Ann"}}
    assert declined == {"action": "decline"}

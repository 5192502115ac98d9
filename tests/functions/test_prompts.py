"""functions/prompts.py: ``@prompt`` reads its arguments from the signature, typed and checked."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import Field

from genmcp import (
    Channel,
    MCPError,
    Prompt,
    PromptRequest,
    Suite,
    assistant_message,
    prompt,
)
from genmcp.testing import MCPTestClient, RPCError


def languages(value: str, context: dict[str, str], channel: Channel) -> list[str]:
    return [name for name in ("python", "perl", "rust") if name.startswith(value)]


@prompt(complete={"language": languages}, title="Review")
def review(
    code: Annotated[str, Field(description="The code to review")],
    language: str = "python",
    strictness: Literal["low", "high"] = "low",
) -> str:
    """Review some code."""
    return f"Review this {language} ({strictness}):\n{code}"


@prompt
async def dialogue(topic: str, turns: int, request: PromptRequest) -> list[object]:
    """A scripted exchange."""
    return [f"Talk about {topic}", assistant_message(f"{turns} turns, {request.name}")]


def suite() -> Suite:
    return Suite(server_name="p", server_version="1", prompts=[review, dialogue])


def test_the_decorator_makes_an_ordinary_prompt_class() -> None:
    assert issubclass(review, Prompt) and review.__name__ == "review"


async def test_arguments_are_listed_from_the_signature() -> None:
    async with MCPTestClient(suite()) as client:
        prompts = {p["name"]: p for p in await client.list_prompts()}
    assert prompts["review"]["title"] == "Review"
    assert prompts["review"]["description"] == "Review some code."
    assert prompts["review"]["arguments"] == [
        {"name": "code", "description": "The code to review", "required": True},
        {"name": "language", "required": False},
        {"name": "strictness", "required": False},
    ]


async def test_a_plain_str_or_list_return_is_the_messages() -> None:
    async with MCPTestClient(suite()) as client:
        one = await client.get_prompt("review", {"code": "x = 1", "strictness": "high"})
        two = await client.get_prompt("dialogue", {"topic": "tea", "turns": "3"})
    assert one["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Review this python (high):\nx = 1"}}
    ]
    assert [m["role"] for m in two["messages"]] == ["user", "assistant"]
    assert two["messages"][1]["content"]["text"] == "3 turns, dialogue"  # cast to int


async def test_arguments_that_do_not_fit_their_type_are_refused() -> None:
    async with MCPTestClient(suite()) as client:
        with pytest.raises(RPCError) as caught:
            await client.get_prompt("dialogue", {"topic": "tea", "turns": "many"})
        assert caught.value.code == -32602 and "turns" in caught.value.message
        with pytest.raises(RPCError) as missing:
            await client.get_prompt("review", {})
        assert missing.value.code == -32602


async def test_completers_get_the_value_context_and_channel() -> None:
    async with MCPTestClient(suite()) as client:
        assert await client.complete("review", "language", "p") == ["python", "perl"]
        assert await client.complete("review", "strictness", "") == []


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: prompt(lambda a: a, arguments=[]), "reads arguments from the signature"),
        (lambda: prompt(complete={"b": languages})(lambda a: a), "does not take"),
        (lambda: prompt(complete={"a": lambda a, value: []})(lambda a: a), "takes a"),
    ],
)
def test_refusals_name_the_fix(make: object, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        make()  # type: ignore[operator]


def test_an_mcp_error_stays_one() -> None:
    assert issubclass(type(MCPError("invalid_params")), Exception)

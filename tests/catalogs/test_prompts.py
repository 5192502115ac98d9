"""``catalogs.prompts``: the prompt catalog of a Suite, driven in-process (MCPTestClient).

What the catalog checks when it is built (argument declarations), ``prompts/list`` sorted by
name and paginated, ``prompts/get`` (unknown prompt, argument validation, a hook returning
what a prompt may not), and completions of a prompt's own arguments. The same over a real
server, against the official schema: tests/test_prompt.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp import (
    Channel,
    Prompt,
    PromptRequest,
    Result,
    Suite,
    get_prompt_result,
    text,
    user_message,
)
from genmcp.testing import MCPTestClient


class Greet(
    Prompt,
    name="greet",
    description="Greets someone.",
    arguments=[{"name": "who", "required": True}, {"name": "tone"}],
):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Result:
        who, tone = request.arguments["who"], request.arguments.get("tone", "plain")
        return Result(get_prompt_result([user_message(text(f"{tone} hello {who}"))]))

    async def complete(
        self, argument: str, value: str, context: dict[str, str], arg: Any
    ) -> list[str]:
        return [t for t in ("warm", "wry", "plain") if t.startswith(value)]


class Broken(Prompt, name="broken"):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return {"messages": "not a list"}


def named(name: str) -> type[Prompt]:
    async def get(self: Any, request: PromptRequest, channel: Channel, arg: Any) -> Result:
        return Result(get_prompt_result([]))

    return type(f"P_{name}", (Prompt,), {"get": get}, name=name)


def suite(*prompts: Any, **options: Any) -> Suite:
    return Suite(
        server_name="p", server_version="1", secret_key="p" * 48, prompts=list(prompts), **options
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([{"name": "a"}, {"name": "a"}], "an argument name appears twice"),
        ([{"title": "no name"}], "a prompt argument is a mapping with a name"),
        ([{"name": "a", "type": "string"}], "unknown prompt argument key(s) type"),
    ],
)
def test_argument_declarations_are_checked_when_the_suite_is_built(
    arguments: list[Any], message: str
) -> None:
    declared = type("Declared", (Prompt,), {}, name="declared", arguments=arguments)
    with pytest.raises(ValueError, match="Declared") as raised:
        suite(declared)
    assert message in str(raised.value)


async def test_prompts_are_listed_by_name_in_pages() -> None:
    async with MCPTestClient(
        suite(*(named(n) for n in ("c", "a", "e", "b", "d")), page_size=2)
    ) as client:
        names, cursor = [], None
        while True:
            result = (
                await client.request("prompts/list", {} if cursor is None else {"cursor": cursor})
            ).result
            names.append([p["name"] for p in result["prompts"]])
            cursor = result.get("nextCursor")
            if cursor is None:
                break
    assert names == [["a", "b"], ["c", "d"], ["e"]]


async def test_get_answers_with_the_hooks_messages_and_checks_the_arguments() -> None:
    async with MCPTestClient(suite(Greet)) as client:
        got = (
            await client.request(
                "prompts/get", {"name": "greet", "arguments": {"who": "Cy", "tone": "warm"}}
            )
        ).result
        assert got["messages"] == [
            {"role": "user", "content": {"type": "text", "text": "warm hello Cy"}}
        ]
        missing = (await client.request("prompts/get", {"name": "greet", "arguments": {}})).error
        assert missing is not None and missing["code"] == -32602
        assert "greet" in missing["message"] and missing["data"]["name"] == "greet"
        unknown = (await client.request("prompts/get", {"name": "nope"})).error
        assert (
            unknown is not None
            and unknown["code"] == -32602
            and unknown["data"] == {"name": "nope"}
        )


async def test_a_get_hook_returning_what_a_prompt_may_not_is_a_server_error() -> None:
    async with MCPTestClient(suite(Broken)) as client:
        error = (await client.request("prompts/get", {"name": "broken"})).error
    assert error is not None and error["code"] == -32603


async def test_completions_cover_the_prompts_own_arguments_only() -> None:
    ref = {"type": "ref/prompt", "name": "greet"}
    async with MCPTestClient(suite(Greet, named("plain"))) as client:
        done = await client.request(
            "completion/complete", {"ref": ref, "argument": {"name": "tone", "value": "w"}}
        )
        assert done.result["completion"]["values"] == ["warm", "wry"]
        other = await client.request(
            "completion/complete", {"ref": ref, "argument": {"name": "mood", "value": ""}}
        )
        assert (
            other.error is not None
            and "has no argument 'mood' (it has: who, tone)" in other.error["message"]
        )

"""functions/completion.py and the ``complete`` hook's two signatures (``behaviour.py``).

A completer gets ``value``, ``context``, ``argument``, the channel and dependencies injected;
a class ``complete`` may take the channel (``argument, value, context, channel, arg``) or be
written the older way (``argument, value, context, arg``); any other arity fails when the
Suite is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import pytest
from fastapi import Depends, FastAPI

from genmcp import Channel, Prompt, PromptRequest, Suite, mcp_router, prompt
from genmcp.behaviour import complete_takes_channel
from genmcp.testing import MCPTestClient

SEEN: list[Any] = []


def names(request_state: Any = None) -> list[str]:
    return ["ada", "alan", "grace"]


async def by_name(
    value: str,
    context: Mapping[str, str],
    argument: str,
    channel: Channel,
    known: Annotated[list[str], Depends(names)],
) -> list[str]:
    SEEN.append((argument, dict(context), channel.assigns.get("principal")))
    return [name for name in known if name.startswith(value)]


@prompt(complete={"who": by_name})
def greet(who: str, greeting: str = "hello") -> str:
    return f"{greeting} {who}"


class New(Prompt, name="new", arguments=[{"name": "a"}]):
    def get(self, request: PromptRequest, channel: Channel, arg: Any) -> str:
        return "x"

    def complete(
        self, argument: str, value: str, context: Mapping[str, str], channel: Channel, arg: Any
    ) -> list[str]:
        return [f"{value}-{channel.assigns.get('principal')}"]


class Old(Prompt, name="old", arguments=[{"name": "a"}]):
    def get(self, request: PromptRequest, channel: Channel, arg: Any) -> str:
        return "x"

    def complete(self, argument: str, value: str, context: Mapping[str, str], arg: Any) -> Any:
        return [f"{value}-old"]


class Wrong(Prompt, name="wrong", arguments=[{"name": "a"}]):
    def get(self, request: PromptRequest, channel: Channel, arg: Any) -> str:
        return "x"

    def complete(self, argument: str, value: str) -> list[str]:  # type: ignore[override]
        return []


async def test_a_completer_gets_what_it_names_and_its_dependencies() -> None:
    SEEN.clear()
    app = FastAPI()
    router = mcp_router(server_name="c", server_version="1", prompts=[greet],
                        auth=lambda: {"principal": "ada"})  # fmt: skip
    app.include_router(router, prefix="/mcp")
    async with MCPTestClient(app) as client:
        values = await client.complete("greet", "who", "a", {"greeting": "hi"})
    assert values == ["ada", "alan"]
    assert SEEN == [("who", {"greeting": "hi"}, "ada")]


async def test_both_complete_signatures_work() -> None:
    suite = Suite(server_name="c", server_version="1", prompts=[New, Old])
    async with MCPTestClient(suite, assigns={"principal": "bob"}) as client:
        assert await client.complete("new", "a", "v") == ["v-bob"]
        assert await client.complete("old", "a", "v") == ["v-old"]


def test_a_complete_of_another_arity_fails_when_the_suite_is_built() -> None:
    with pytest.raises(TypeError, match=r"Wrong.complete takes 2 argument\(s\)"):
        Suite(server_name="c", server_version="1", prompts=[Wrong])
    assert complete_takes_channel(New()) and not complete_takes_channel(Old())

"""catalogs.completion: ``completion/complete`` routed to the prompt or template it names.

Through the real ``Suite.handle`` and the relay (``support.answers``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from genmcp import (
    Channel,
    Prompt,
    PromptRequest,
    ResourceRepo,
    ResourceRequest,
    Result,
    Suite,
    get_prompt_result,
    read_resource_result,
    resource_template,
    text_contents,
)
from genmcp.protocol.jsonrpc import Request
from genmcp.protocol.methods import COMPLETION_COMPLETE
from support.answers import answer_of

KEY = "c" * 48
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


class Greet(Prompt, name="greet", arguments=[{"name": "language"}]):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return Result(get_prompt_result("hi"))

    def complete(self, argument: str, value: str, context: Mapping[str, str], arg: Any) -> Any:
        return [lang for lang in ("en", "es", "eo") if lang.startswith(value)]


class Plain(Prompt, name="plain"):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return Result(get_prompt_result("plain"))


class Cities(ResourceRepo, prefix="city://"):
    def templates(self, arg: Any) -> Any:
        return [resource_template("city://{name}", "city")]

    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
        return Result(read_resource_result(text_contents(request.uri, "x")))

    def complete(self, argument: str, value: str, context: Mapping[str, str], arg: Any) -> Any:
        return [city for city in ("paris", "porto", "oslo") if city.startswith(value)]


async def complete(suite: Suite, ref: dict[str, Any], name: str, value: str) -> dict[str, Any]:
    params = {"ref": ref, "argument": {"name": name, "value": value}, "_meta": META}
    response, _ = await answer_of(suite, Request(1, COMPLETION_COMPLETE, params))
    return response


def suite(**catalogs: Any) -> Suite:
    return Suite(server_name="s", server_version="1", secret_key=KEY, **catalogs)


async def test_a_prompt_reference_reaches_the_prompts_complete_hook() -> None:
    response = await complete(
        suite(prompts=[Greet]), {"type": "ref/prompt", "name": "greet"}, "language", "e"
    )
    result = response["result"]
    assert result["completion"]["values"] == ["en", "es", "eo"]
    assert result["resultType"] == "complete"


async def test_a_template_reference_reaches_its_repository() -> None:
    response = await complete(
        suite(resources=[Cities]), {"type": "ref/resource", "uri": "city://{name}"}, "name", "p"
    )
    assert response["result"]["completion"]["values"] == ["paris", "porto"]


async def test_without_a_completing_prompt_or_repository_the_method_is_not_served() -> None:
    response = await complete(
        suite(prompts=[Plain]), {"type": "ref/prompt", "name": "plain"}, "x", ""
    )
    assert response["error"]["code"] == -32601


@pytest.mark.parametrize(
    "ref",
    [{"type": "ref/prompt", "name": "nope"}, {"type": "ref/other", "name": "greet"}, "greet"],
)
async def test_a_bad_reference_is_invalid_params(ref: Any) -> None:
    response = await complete(suite(prompts=[Greet]), ref, "language", "e")
    assert response["error"]["code"] == -32602

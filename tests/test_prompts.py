"""Prompts and completions over a real server: listing, get, argument checks, MRTR, errors.

Every server message is checked against the official 2026-07-28 schema by ModernClient.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import pytest
from fastapi import FastAPI

from genmcp import (
    Channel,
    InputRequired,
    MCPRouter,
    Prompt,
    PromptRequest,
    Result,
    Suite,
    assistant_message,
    audio,
    complete_result,
    elicit_request,
    embedded_resource,
    get_prompt_result,
    image,
    mcp_router,
    resource_link,
    user_message,
)
from support import examples
from support.client import ModernClient

KEY = "p" * 48
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
)


def serve(live_server: Any, **options: Any) -> tuple[str, MCPRouter]:
    router = mcp_router(server_name="prompts", server_version="1", secret_key=KEY, **options)
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return live_server(app), router


class Simple(Prompt, name="test_simple_prompt", description="A simple prompt."):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return Result(get_prompt_result("This is a simple prompt for testing."))


class WithArguments(
    Prompt,
    name="test_prompt_with_arguments",
    title="With arguments",
    description="A prompt with arguments.",
    arguments=[
        {"name": "arg1", "description": "First argument", "required": True},
        {"name": "arg2", "description": "Second argument", "required": True},
        {"name": "arg3", "title": "Third"},
    ],
    cache_control=("public", 10_000),
):
    def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:  # in a thread
        a = request.arguments
        return Result(
            get_prompt_result(
                [user_message(f"Prompt with arguments: arg1='{a['arg1']}', arg2='{a['arg2']}'")],
                description="Filled in.",
            )
        )

    async def complete(
        self, argument: str, value: str, context: Mapping[str, str], arg: Any
    ) -> Any:
        if argument == "arg2":  # depends on what the client already filled in
            return [f"{context.get('arg1', '?')}-{value}"]
        if argument == "arg3":
            return complete_result(["x"], total=7, has_more=True)
        return [word for word in ("paris", "park", "peru", "rome") if word.startswith(value)]


class Media(Prompt, name="test_prompt_with_media"):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return Result(
            get_prompt_result(
                [
                    user_message(image(PNG, "image/png")),
                    user_message(audio(b"RIFF....WAVE", "audio/wav")),
                    user_message(embedded_resource("test://a", text="A", mime_type="text/plain")),
                    user_message(resource_link("test://b", "b")),
                    assistant_message("Noted."),
                ]
            )
        )


class AskFirst(Prompt, name="test_input_required_result_prompt"):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        answer = (request.input_responses or {}).get("context")
        if answer is None:
            ask = elicit_request(
                "What context?",
                {"type": "object", "properties": {"context": {"type": "string"}}},
            )
            return InputRequired({"context": ask}, state={"asked": True})
        context = (answer.get("content") or {}).get("context", "")
        return Result(get_prompt_result(f"Context: {context} ({request.request_state})"))


PROMPTS = [Simple, WithArguments, Media, AskFirst]


# -- prompts/list -----------------------------------------------------------------------


async def test_prompts_list_is_sorted_paginated_and_describes_arguments(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, prompts=PROMPTS, page_size=3)
    client: ModernClient = modern_client(base)
    first = await client.request("prompts/list")
    names = [p["name"] for p in first.result["prompts"]]
    assert names == [
        "test_input_required_result_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_media",
    ]
    assert first.result["prompts"][1] == {
        "name": "test_prompt_with_arguments",
        "title": "With arguments",
        "description": "A prompt with arguments.",
        "arguments": [
            {"name": "arg1", "description": "First argument", "required": True},
            {"name": "arg2", "description": "Second argument", "required": True},
            {"name": "arg3", "title": "Third"},
        ],
    }
    second = await client.request("prompts/list", {"cursor": first.result["nextCursor"]})
    assert [p["name"] for p in second.result["prompts"]] == ["test_simple_prompt"]
    assert "nextCursor" not in second.result
    for page in (first.result, second.result):
        assert (page["cacheScope"], page["ttlMs"]) == ("private", 0)  # merged: one is private
    forged = await client.request("prompts/list", {"cursor": "v1.abc.def.ghi"})
    assert forged.error["code"] == -32602
    other = await client.request("resources/templates/list")
    assert other.error["code"] == -32601  # no resources here


# -- prompts/get -----------------------------------------------------------------------


async def test_prompts_get_returns_messages_of_every_content_kind(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, prompts=PROMPTS)
    client: ModernClient = modern_client(base)
    simple = await client.request("prompts/get", {"name": "test_simple_prompt"})
    assert simple.result["messages"] == [
        {
            "role": "user",
            "content": {"type": "text", "text": "This is a simple prompt for testing."},
        }
    ]
    assert simple.result["resultType"] == "complete"
    filled = await client.request(
        "prompts/get",
        {"name": "test_prompt_with_arguments", "arguments": {"arg1": "hello", "arg2": "world"}},
    )
    assert filled.result["messages"][0]["content"]["text"] == (
        "Prompt with arguments: arg1='hello', arg2='world'"
    )
    assert filled.result["description"] == "Filled in."
    media = await client.request("prompts/get", {"name": "test_prompt_with_media"})
    kinds = [(m["role"], m["content"]["type"]) for m in media.result["messages"]]
    assert kinds == [
        ("user", "image"),
        ("user", "audio"),
        ("user", "resource"),
        ("user", "resource_link"),
        ("assistant", "text"),
    ]


@pytest.mark.parametrize(
    ("params", "needle", "errors"),
    [
        (
            {"name": "test_prompt_with_arguments", "arguments": {"arg1": "a"}},
            "arg2: required argument missing",
            [{"type": "missing", "loc": ["arg2"], "msg": "required argument missing"}],
        ),
        (
            {"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": 2}},
            "arg2: must be a string",
            [{"type": "string_type", "loc": ["arg2"], "msg": "must be a string"}],
        ),
        (
            {
                "name": "test_prompt_with_arguments",
                "arguments": {"arg1": "a", "arg2": "b", "x": ""},
            },
            "x: not an argument",
            [{"type": "unknown_argument", "loc": ["x"], "msg": "not an argument of this prompt"}],
        ),
    ],
)
async def test_bad_arguments_are_invalid_params_naming_each_one(
    params: dict[str, Any], needle: str, errors: list[Any]
) -> None:
    suite = Suite(server_name="s", server_version="1", secret_key=KEY, prompts=PROMPTS)
    reply = await ask(suite, "prompts/get", params)
    assert reply["error"]["code"] == -32602
    assert needle in reply["error"]["message"]
    assert "test_prompt_with_arguments" in reply["error"]["message"]
    assert reply["error"]["data"]["errors"] == errors


async def test_unknown_prompts_and_malformed_gets_are_invalid_params(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, prompts=PROMPTS)
    client: ModernClient = modern_client(base)
    unknown = await client.request("prompts/get", {"name": "nope"})
    assert unknown.status == 200 and unknown.error["code"] == -32602
    assert unknown.error["data"] == {"name": "nope"}
    suite = Suite(server_name="s", server_version="1", secret_key=KEY, prompts=PROMPTS)
    for params in [{}, {"name": 3}, {"name": "test_simple_prompt", "arguments": ["a"]}]:
        # in-process: over HTTP the Mcp-Name header check (-32020) answers first
        malformed = await ask(suite, "prompts/get", params)
        assert malformed["error"]["code"] == -32602, params


async def test_prompts_get_can_ask_for_input_first(live_server: Any, modern_client: Any) -> None:
    base, _ = serve(live_server, prompts=PROMPTS)
    client: ModernClient = modern_client(base)
    caps = {"elicitation": {}}
    name = "test_input_required_result_prompt"
    first = await client.request("prompts/get", {"name": name}, capabilities=caps)
    assert first.result["resultType"] == "input_required"
    assert first.result["inputRequests"]["context"]["method"] == "elicitation/create"
    answers = {"context": {"action": "accept", "content": {"context": "tests"}}}
    retry = {"name": name, "inputResponses": answers, "requestState": first.result["requestState"]}
    second = await client.request("prompts/get", retry, capabilities=caps)
    assert second.result["messages"][0]["content"]["text"] == "Context: tests ({'asked': True})"
    other = await client.request(
        "prompts/get", {**retry, "name": "test_simple_prompt"}, capabilities=caps
    )
    assert other.error["code"] == -32602 and other.error["data"] == {"reason": "rebound"}


class Broken(Prompt, name="broken"):
    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        return {"messages": []}  # not wrapped in Result


async def test_an_undocumented_get_return_is_an_internal_error() -> None:
    suite = Suite(server_name="s", server_version="1", secret_key=KEY, prompts=[Broken])
    reply = await ask(suite, "prompts/get", {"name": "broken"})
    assert reply["error"]["code"] == -32603
    assert suite.live_workers == 0


# -- completion/complete ----------------------------------------------------------------


async def test_prompt_arguments_complete_through_the_hook_with_context(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, prompts=PROMPTS)
    client: ModernClient = modern_client(base)
    ref = {"type": "ref/prompt", "name": "test_prompt_with_arguments"}

    async def complete(name: str, value: str, **context: str) -> Any:
        params: dict[str, Any] = {"ref": ref, "argument": {"name": name, "value": value}}
        if context:
            params["context"] = {"arguments": context}
        return await client.request("completion/complete", params)

    assert (await complete("arg1", "pa")).result["completion"] == {"values": ["paris", "park"]}
    assert (await complete("arg2", "x", arg1="rome")).result["completion"]["values"] == ["rome-x"]
    assert (await complete("arg3", "")).result["completion"] == {
        "values": ["x"],
        "total": 7,
        "hasMore": True,
    }
    wrong = await complete("arg9", "")
    assert wrong.error["code"] == -32602 and "arg1, arg2, arg3" in wrong.error["message"]
    simple = await client.request(
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}},
    )
    assert simple.error["code"] == -32602


async def test_malformed_completion_requests_are_invalid_params() -> None:
    suite = Suite(server_name="s", server_version="1", secret_key=KEY, prompts=PROMPTS)
    ref = {"type": "ref/prompt", "name": "test_prompt_with_arguments"}
    for params in [
        {},
        {"ref": {"type": "ref/tool", "name": "x"}, "argument": {"name": "a", "value": ""}},
        {"ref": ref},
        {"ref": ref, "argument": {"name": "arg1"}},
        {"ref": ref, "argument": {"name": "arg1", "value": ""}, "context": []},
        {"ref": ref, "argument": {"name": "arg1", "value": ""}, "context": {"arguments": {"a": 1}}},
    ]:
        reply = await ask(suite, "completion/complete", params)
        assert reply["error"]["code"] == -32602, params


async def test_completions_are_advertised_only_when_a_hook_exists(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, prompts=[Simple])
    client: ModernClient = modern_client(base)
    discover = await client.request("server/discover")
    assert discover.result["capabilities"] == {"prompts": {"listChanged": True}}
    reply = await client.request(
        "completion/complete",
        {
            "ref": {"type": "ref/prompt", "name": "test_simple_prompt"},
            "argument": {"name": "a", "value": ""},
        },
    )
    assert reply.status == 404 and reply.error["code"] == -32601
    with_hook = Suite(server_name="s", server_version="1", secret_key=KEY, prompts=PROMPTS)
    assert with_hook.capabilities["completions"] == {}


# -- the example --------------------------------------------------------------------------

resources_prompts = examples.load("resources_prompts")


async def test_the_example_prompt_embeds_a_file_and_completes_its_arguments(
    live_server: Any, modern_client: Any
) -> None:
    client: ModernClient = modern_client(live_server(resources_prompts.app))
    reply = await client.request(
        "prompts/get", {"name": "summarize_file", "arguments": {"path": "app.py", "style": "brief"}}
    )
    embedded, instruction = reply.result["messages"]
    assert embedded["content"]["resource"]["uri"] == "docs://app.py"
    assert "AddTool" in embedded["content"]["resource"]["text"]
    assert instruction["content"]["text"] == "Summarize app.py above (brief)."
    escape = await client.request(
        "prompts/get", {"name": "summarize_file", "arguments": {"path": "../pyproject.toml"}}
    )
    assert escape.error["code"] == -32602
    ref = {"type": "ref/prompt", "name": "summarize_file"}
    styles = await client.request(
        "completion/complete", {"ref": ref, "argument": {"name": "style", "value": "b"}}
    )
    assert styles.result["completion"]["values"] == ["brief", "bullet points"]


# -- building prompts --------------------------------------------------------------------


def test_misconfigured_prompts_fail_when_the_suite_is_built() -> None:
    def build(*prompts: Any) -> Suite:
        return Suite(server_name="s", server_version="1", secret_key=KEY, prompts=prompts)

    class Nameless(Prompt):
        pass

    class BadArgument(Prompt, name="bad", arguments=[{"name": "a", "requird": True}]):
        pass

    class Twice(Prompt, name="twice", arguments=[{"name": "a"}, {"name": "a"}]):
        pass

    for prompt, match in [
        (Nameless, "non-blank name"),
        (BadArgument, "requird"),
        (Twice, "twice"),
        (int, "not a Prompt"),
    ]:
        with pytest.raises((ValueError, TypeError), match=match):
            build(prompt)
    with pytest.raises(ValueError, match="already served"):
        build(Simple, Simple)
    with pytest.raises(TypeError, match="unknown Prompt option"):
        type("Bad", (Prompt,), {}, nam="x")


# -- in-process helper ---------------------------------------------------------------------


async def ask(suite: Suite, method: str, params: dict[str, Any]) -> dict[str, Any]:
    from genmcp.protocol.jsonrpc import Request
    from support.answers import answer_of

    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    response, _status = await answer_of(suite, Request(1, method, {**params, "_meta": meta}))
    return response

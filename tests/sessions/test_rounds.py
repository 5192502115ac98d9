"""The one flow of input requests in a legacy session: elicitation, sampling and roots rounds go
out on the call stream (for tools and prompts), bound to their session, refused without the
capability.

How every rule here is driven and checked: session_kit.py.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from genmcp import (
    MCPRouter,
)
from support.legacy_client import LegacyClient
from tests.sessions.session_kit import (
    ALL_CAPS,
    MISSING_CAPABILITY,
    NAME_SCHEMA,
    VERSIONS,
    WITH_ELICITATION,
    Calls,
    answer_all,
    assert_error,
    broker_topics,
    eventually,
    opened,
)

# -- the one flow: input requests on the call stream ----------------------------------------


@pytest.mark.parametrize("version", WITH_ELICITATION)
async def test_elicitation_rounds_go_out_on_the_call_stream(
    server: tuple[str, MCPRouter, Calls], connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version, capabilities={"elicitation": {}})
    replies = iter(
        [
            {"action": "accept", "content": {"name": "Ada"}},
            {"action": "accept", "content": {"colour": "green"}},
        ]
    )
    seen = []
    async with client.stream("tools/call", {"name": "ask"}) as exchange:
        async for message in exchange:
            if "id" in message and "method" in message:
                seen.append(message)
                assert (await client.respond(message["id"], next(replies))).status == 202
        reply = exchange.reply
    assert reply.is_sse
    assert [m["method"] for m in seen] == ["elicitation/create", "elicitation/create"]
    first = seen[0]["params"]
    assert first["message"] == "Your name?" and first["requestedSchema"] == NAME_SCHEMA
    assert ("mode" in first) is False
    assert isinstance(seen[0]["id"], str) and seen[0]["id"] != seen[1]["id"]
    assert reply.result["content"] == [{"type": "text", "text": "Ada likes green"}]
    assert server[1].suite.live_workers == 0


async def test_one_round_can_ask_for_input_sample_and_roots(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-11-25", capabilities=ALL_CAPS)
    answers = {
        "elicitation/create": {"action": "accept", "content": {"name": "Bo"}},
        "sampling/createMessage": {
            "role": "assistant",
            "content": {"type": "text", "text": "hi!"},
            "model": "m",
            "_meta": {"kept": True},
        },
        "roots/list": {"roots": [{"uri": "file:///work", "name": "work"}]},
    }
    async with client.stream("tools/call", {"name": "ask_all"}) as exchange:
        seen = await answer_all(client, exchange, answers)
    assert sorted(m["method"] for m in seen) == sorted(answers)
    sampling = next(m for m in seen if m["method"] == "sampling/createMessage")
    assert sampling["params"]["maxTokens"] == 50
    roots = next(m for m in seen if m["method"] == "roots/list")
    assert "params" not in roots
    assert exchange.reply.result["content"][0]["text"] == "Bo|hi!|file:///work|1"


@pytest.mark.parametrize("version", VERSIONS)
async def test_without_the_capability_the_call_fails_with_32021(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version, capabilities={"sampling": {}})
    reply = await client.request("tools/call", {"name": "ask"})
    assert_error(reply, 200, MISSING_CAPABILITY)
    assert reply.error["data"]["requiredCapabilities"] == {"elicitation": {}}
    assert reply.requests == []


async def test_2025_03_26_has_no_elicitation_even_when_declared(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-03-26", capabilities=ALL_CAPS)
    reply = await client.request("tools/call", {"name": "ask"})
    assert_error(reply, 200, MISSING_CAPABILITY)
    assert "elicitation" in reply.error["data"]["requiredCapabilities"]


async def test_an_error_answer_to_an_elicitation_is_a_cancel(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-06-18", capabilities={"elicitation": {}})
    async with client.stream("tools/call", {"name": "confirm"}, id="e1") as exchange:
        async for message in exchange:
            if "id" in message and "method" in message:
                error = {"code": -1, "message": "user closed the dialog"}
                assert (await client.respond(message["id"], error=error)).status == 202
    reply = exchange.reply
    assert reply.response["id"] == "e1"
    assert reply.result["content"][0]["text"] == "action: cancel"


async def test_an_error_answer_to_sampling_is_a_client_fault(
    connect: Callable[..., LegacyClient],
) -> None:
    caps = {"elicitation": {}, "sampling": {}, "roots": {}}
    client = await opened(connect, "2025-06-18", capabilities=caps)
    async with client.stream("tools/call", {"name": "ask_all"}, id="s1") as exchange:
        async for message in exchange:
            if message.get("method") == "sampling/createMessage":
                error = {"code": -1, "message": "no model for you"}
                assert (await client.respond(message["id"], error=error)).status == 202
    reply = exchange.reply
    assert reply.status == 200 and reply.response["id"] == "s1"
    assert reply.error["code"] == -32600  # the client's fault, never -32603
    assert "no model for you" in reply.error["message"]


async def test_answers_are_bound_to_their_session(
    connect: Callable[..., LegacyClient],
) -> None:
    client = await opened(connect, "2025-11-25", capabilities={"elicitation": {}})
    intruder = await opened(connect, "2025-11-25")
    async with client.stream("tools/call", {"name": "ask"}) as exchange:
        request = await anext(aiter(exchange))
        assert request["method"] == "elicitation/create"
        forged = {"action": "accept", "content": {"name": "Mallory"}}
        assert (await intruder.respond(request["id"], forged)).status == 202
        assert (await client.respond("not-asked", forged)).status == 202
        await client.respond(request["id"], {"action": "accept", "content": {"name": "Ann"}})
        second = await anext(aiter(exchange))
        await client.respond(second["id"], {"action": "accept", "content": {"colour": "red"}})
        reply = await exchange.drain()
    assert reply.result["content"][0]["text"] == "Ann likes red"


async def test_a_client_going_away_mid_round_ends_the_call(
    server: tuple[str, MCPRouter, Calls], connect: Callable[..., LegacyClient]
) -> None:
    router = server[1]
    client = await opened(connect, "2025-11-25", capabilities={"elicitation": {}})
    async with client.stream("tools/call", {"name": "ask"}) as exchange:
        request = await anext(aiter(exchange))
        assert request["method"] == "elicitation/create"
    # The stream's end unsubscribes first and cancels the call after; both settle.
    await eventually(lambda: broker_topics(router) == 0 and router.suite.live_workers == 0)


@pytest.mark.parametrize("version", WITH_ELICITATION)
async def test_prompts_get_takes_the_same_input_flow(
    catalog_server: tuple[str, MCPRouter], version: str
) -> None:
    async with LegacyClient(
        catalog_server[0], version=version, capabilities={"elicitation": {}}
    ) as client:
        await client.open()
        answers = {"elicitation/create": {"action": "accept", "content": {"name": "Cy"}}}
        async with client.stream("prompts/get", {"name": "greeting"}) as exchange:
            seen = await answer_all(client, exchange, answers)
        assert [m["method"] for m in seen] == ["elicitation/create"]
        result = exchange.reply.result
        assert result["messages"] == [
            {"role": "user", "content": {"type": "text", "text": "Hello Cy"}}
        ]

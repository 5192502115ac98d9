"""``sessions.session_methods``: ``ping``, ``logging/setLevel``, ``resources/(un)subscribe``.

Over the wire (a real uvicorn server, ``session_kit``): ping and setLevel answer empty
results, a bad level is -32602, and the level set decides which logs reach a call's stream.
Directly, on the real parts (the in-memory registry, the Suite's ``Interest``): which methods
the session answers (subscribing only while resources are served), a subscription kept in the
registry and held in the interest, and a subscribe without a URI refused.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from genmcp.errors import MCPError
from genmcp.protocol import methods
from genmcp.protocol.jsonrpc import Request
from genmcp.sessions.lookup import LOG_LEVEL
from genmcp.sessions.session_methods import SUBSCRIBED, SessionMethods
from genmcp.sessions.sessions import Session
from genmcp.storage.memory import MemorySessionRegistry
from genmcp.sync.interest import Interest
from support.legacy_client import LegacyClient
from tests.sessions.session_kit import INVALID_PARAMS, VERSIONS, assert_error, opened

# -- over the wire ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
async def test_ping_and_set_level_answer_empty_results(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    ping = await client.request("ping")
    assert (ping.status, ping.result) == (200, {})
    level = await client.request("logging/setLevel", {"level": "debug"})
    assert (level.status, level.result) == (200, {})
    bad = await client.request("logging/setLevel", {"level": "loud"})
    assert_error(bad, 200, INVALID_PARAMS)


@pytest.mark.parametrize("version", VERSIONS)
async def test_logs_reach_the_call_stream_only_at_the_level_set(
    connect: Callable[..., LegacyClient], version: str
) -> None:
    client = await opened(connect, version)
    silent = await client.request("tools/call", {"name": "chatty"})
    assert [n for n in silent.notifications if n["method"] == "notifications/message"] == []
    await client.request("logging/setLevel", {"level": "info"})
    loud = await client.request("tools/call", {"name": "chatty"})
    logs = [n["params"] for n in loud.notifications if n["method"] == "notifications/message"]
    assert logs == [{"level": "info", "logger": "chatty", "data": {"step": i}} for i in (1, 2, 3)]
    assert loud.result["content"] == [{"type": "text", "text": "done"}]
    await client.request("logging/setLevel", {"level": "error"})
    quiet = await client.request("tools/call", {"name": "chatty"})
    assert quiet.notifications == []
    other = await opened(connect, version)  # the level belongs to its session
    assert (await other.request("tools/call", {"name": "chatty"})).notifications == []


# -- the session's methods themselves, on the real parts ----------------------------------


def session() -> Session:
    return Session("k1", "2025-11-25", {}, {"name": "c", "version": "1"}, time.time() + 600)


def own(capabilities: dict[str, Any]) -> tuple[SessionMethods, MemorySessionRegistry, list[Any]]:
    """The methods over a fresh registry and interest; the list gets what the interest tells."""
    registry, interest, told = MemorySessionRegistry(), Interest(), []
    interest.watch(lambda uri, held: told.append((uri, held)))
    return SessionMethods(registry, interest, lambda: capabilities), registry, told


def test_subscribing_is_a_method_only_while_resources_are_served() -> None:
    capabilities: dict[str, Any] = {"tools": {}}
    methods_of, _, _ = own(capabilities)
    assert methods_of.answers(methods.PING) and methods_of.answers(methods.LOGGING_SET_LEVEL)
    assert not methods_of.answers(methods.RESOURCES_SUBSCRIBE)
    assert not methods_of.answers(methods.TOOLS_LIST)
    capabilities["resources"] = {"subscribe": True}  # a resource added at run time
    assert methods_of.answers(methods.RESOURCES_SUBSCRIBE)
    assert methods_of.answers(methods.RESOURCES_UNSUBSCRIBE)


async def test_the_level_is_kept_in_the_registry() -> None:
    methods_of, registry, _ = own({})
    request = Request(1, methods.LOGGING_SET_LEVEL, {"level": "notice"})
    answer = await methods_of.answer(session(), request)
    assert answer.response == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert await registry.get("k1", LOG_LEVEL) == "notice"


async def test_a_subscription_is_kept_and_held_until_unsubscribed() -> None:
    methods_of, registry, told = own({"resources": {}})
    for uri in ("x://a", "x://b"):
        await methods_of.answer(session(), Request(2, methods.RESOURCES_SUBSCRIBE, {"uri": uri}))
    assert await registry.members("k1", SUBSCRIBED) == {"x://a", "x://b"}
    request = Request(3, methods.RESOURCES_UNSUBSCRIBE, {"uri": "x://a"})
    await methods_of.answer(session(), request)
    assert await registry.members("k1", SUBSCRIBED) == {"x://b"}
    assert told == [("x://a", True), ("x://b", True), ("x://a", False)]
    assert SUBSCRIBED == "resources"  # the stored field's name: sessions in a Redis keep it


@pytest.mark.parametrize("params", [{}, {"uri": 7}])
async def test_a_subscribe_without_a_uri_is_invalid_params(params: dict[str, Any]) -> None:
    methods_of, registry, told = own({"resources": {}})
    with pytest.raises(MCPError) as caught:
        await methods_of.answer(session(), Request(4, methods.RESOURCES_SUBSCRIBE, params))
    assert caught.value.reason == "invalid_params"
    assert str(caught.value) == "Invalid params: resources/subscribe needs params.uri"
    assert await registry.members("k1", SUBSCRIBED) == frozenset() and told == []

"""``storage.scoped.ScopedBroker``: a tenant's own topics, logs and catalog log on a shared
broker, in memory and on a real Redis: what one scope publishes or records, another never
receives or replays."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from genmcp.storage import Broker
from genmcp.storage.memory import MemoryBroker
from genmcp.storage.scoped import ScopedBroker


@pytest.fixture(params=["memory", "redis"])
async def shared(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    if request.param == "memory":
        yield MemoryBroker()
        return
    from genmcp.storage.redis import RedisBroker

    url, prefix = request.getfixturevalue("redis_url"), request.getfixturevalue("redis_prefix")
    broker = RedisBroker.from_url(url, prefix=prefix)
    try:
        yield broker
    finally:
        await broker.aclose()


async def receive(subscription: Any, within: float = 2.0) -> tuple[str, Any]:
    result: tuple[str, Any] = await asyncio.wait_for(subscription.receive(), within)
    return result


async def test_a_scope_hears_its_own_topics_only(shared: Broker) -> None:
    acme, globex = ScopedBroker(shared, "acme"), ScopedBroker(shared, "globex")
    heard_acme, heard_globex = acme.subscribe("genmcp.changes"), globex.subscribe("genmcp.changes")
    plain = shared.subscribe("genmcp.changes")
    for subscription in (heard_acme, heard_globex, plain):
        await subscription.ready()
    await acme.publish("genmcp.changes", {"n": 1})
    await globex.publish("genmcp.changes", {"n": 2})
    assert await receive(heard_acme) == ("genmcp.changes", {"n": 1})  # named without the prefix
    assert await receive(heard_globex) == ("genmcp.changes", {"n": 2})
    with pytest.raises(TimeoutError):
        await receive(plain, 0.2)  # the unscoped topic is another topic
    for subscription in (heard_acme, heard_globex, plain):
        subscription.close()


async def test_each_scope_replays_only_its_catalog_changes(shared: Any) -> None:
    acme, globex = ScopedBroker(shared, "acme"), ScopedBroker(shared, "globex")
    event = {"format": 1, "origin": "o", "op": "add", "kind": "tool", "key": "report"}
    first = await acme.record_change("tool:report", event)
    second = await globex.record_change("tool:report", {**event, "key": "other"})
    assert second > first
    assert [e["key"] for e in await acme.changes()] == ["report"]
    assert [e["key"] for e in await globex.changes()] == ["other"]
    assert [e["version"] for e in await acme.changes()] == [first]


async def test_each_scope_has_its_own_event_logs(shared: Any) -> None:
    acme, globex = ScopedBroker(shared, "acme"), ScopedBroker(shared, "globex")
    entry = await acme.append("events:changes", {"m": "a"}, 100, 60)
    assert await globex.last("events:changes") is None
    assert await acme.last("events:changes") == entry
    assert [fields for _, fields in await acme.read_after("events:changes", "0")] == [{"m": "a"}]
    assert await globex.read_after("events:changes", "0") == []


def test_a_scope_is_a_safe_id() -> None:
    for bad in ("", "a:b", "a b", "x" * 65, "t/x"):
        with pytest.raises(ValueError, match="tenant id"):
            ScopedBroker(MemoryBroker(), bad)

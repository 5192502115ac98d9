"""``SessionRegistry`` (``storage.sessions``) on every backend: value and set fields per
session that expire together, the end mark, the epoch and ``lookup``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.storage.backend_kit import JSON_VALUES, Backend, session


@pytest.mark.parametrize("value", JSON_VALUES, ids=repr)
async def test_a_put_value_is_read_back_equal(backend: Backend, value: Any) -> None:
    writer, reader, key = backend.registry(), backend.registry(), session()
    await writer.put(key, "field", value, 10)
    assert await reader.get(key, "field") == value


async def test_fields_are_per_session_and_name_and_a_put_overwrites(backend: Backend) -> None:
    registry, one, two = backend.registry(), session(), session()
    assert await registry.get(one, "log_level") is None
    await registry.put(one, "log_level", "debug", 10)
    await registry.put(one, "other", 1, 10)
    await registry.put(two, "log_level", "error", 10)
    await registry.put(one, "log_level", "info", 10)
    assert await registry.get(one, "log_level") == "info"
    assert await registry.get(one, "other") == 1
    assert await registry.get(two, "log_level") == "error"
    assert await registry.get(one, "missing") is None


async def test_ending_a_session_marks_it_and_drops_its_fields(backend: Backend) -> None:
    registry, other, key = backend.registry(), backend.registry(), session()
    bystander = session()
    await registry.put(key, "log_level", "info", 10)
    await registry.add(key, "resources", "test://a", 10)
    await registry.put(bystander, "log_level", "info", 10)
    assert not await other.is_ended(key)
    await registry.end(key, 10)
    assert await other.is_ended(key)
    assert await other.get(key, "log_level") is None
    assert await other.members(key, "resources") == frozenset()
    assert not await other.is_ended(bystander)
    assert await other.get(bystander, "log_level") == "info"


async def test_an_end_mark_expires_after_its_ttl(backend: Backend) -> None:
    registry, key = backend.registry(), session()
    await registry.end(key, 0.2)
    assert await registry.is_ended(key)
    await asyncio.sleep(0.35)
    assert not await registry.is_ended(key)


async def test_fields_expire_together_after_the_last_writes_ttl(backend: Backend) -> None:
    registry, key = backend.registry(), session()
    await registry.put(key, "a", 1, 0.2)
    await registry.add(key, "set", "m", 0.2)
    await registry.put(key, "b", 2, 0.6)  # every write sets the expiry of all the fields
    await asyncio.sleep(0.35)
    assert (await registry.get(key, "a"), await registry.get(key, "b")) == (1, 2)
    assert await registry.members(key, "set") == {"m"}
    await asyncio.sleep(0.45)
    assert (await registry.get(key, "a"), await registry.get(key, "b")) == (None, None)
    assert await registry.members(key, "set") == frozenset()


async def test_a_ttl_of_zero_is_already_expired(backend: Backend) -> None:
    registry, key = backend.registry(), session()
    await registry.put(key, "a", 1, 10)
    await registry.put(key, "b", 2, 0)
    assert (await registry.get(key, "a"), await registry.get(key, "b")) == (None, None)
    await registry.add(key, "set", "m", 0)
    assert await registry.members(key, "set") == frozenset()
    await registry.end(key, 0)
    assert not await registry.is_ended(key)


async def test_set_fields_add_and_discard_members(backend: Backend) -> None:
    registry, key = backend.registry(), session()
    assert await registry.members(key, "resources") == frozenset()
    uris = ["test://a", "file:///tmp/b c.txt", 'weird:"quoted":[1]', "ünï://€", "x:\udfff"]
    for uri in [*uris, uris[0]]:
        await registry.add(key, "resources", uri, 10)
    await registry.add(key, "res", "test://other-set", 10)
    await registry.add(key, "resources:x", "test://colon-name", 10)
    assert await registry.members(key, "resources") == frozenset(uris)
    await registry.discard(key, "resources", uris[1], 10)
    await registry.discard(key, "resources", "test://never-added", 10)
    await registry.discard(session(), "resources", "test://no-session", 10)
    assert await registry.members(key, "resources") == frozenset(uris) - {uris[1]}
    assert await registry.members(key, "res") == {"test://other-set"}
    assert await registry.members(key, "resources:x") == {"test://colon-name"}


async def test_value_and_set_fields_of_one_name_live_apart(backend: Backend) -> None:
    registry, key = backend.registry(), session()
    await registry.put(key, "resources", ["test://value"], 10)
    await registry.add(key, "resources", "test://member", 10)
    assert await registry.get(key, "resources") == ["test://value"]
    assert await registry.members(key, "resources") == {"test://member"}


async def test_concurrent_set_updates_from_several_handles_lose_nothing(
    backend: Backend,
) -> None:
    handles, key = [backend.registry() for _ in range(4)], session()
    for n in range(0, 40, 2):
        await handles[0].add(key, "resources", f"test://{n}", 10)
    adds = [handles[n % 4].add(key, "resources", f"test://{n}", 10) for n in range(1, 40, 2)]
    drops = [handles[n % 4].discard(key, "resources", f"test://{n}", 10) for n in range(0, 40, 4)]
    await asyncio.gather(*adds, *drops)
    expected = {f"test://{n}" for n in range(40) if n % 4 != 0}
    assert await handles[3].members(key, "resources") == expected


async def test_lookup_answers_the_fields_of_a_live_session_of_this_epoch(backend: Backend) -> None:
    registry, key = backend.registry(), session()
    epoch = await registry.epoch(60)
    assert await backend.registry().epoch(60) == epoch  # one epoch for every process
    await registry.put(key, "log_level", "info", 10)
    assert await registry.lookup(key, epoch, ("log_level", "other")) == {
        "log_level": "info",
        "other": None,
    }
    assert await registry.lookup(key, epoch, ()) == {}
    assert await registry.lookup(key, "another-epoch", ("log_level",)) is None
    await registry.end(key, 10)
    assert await registry.lookup(key, epoch, ("log_level",)) is None

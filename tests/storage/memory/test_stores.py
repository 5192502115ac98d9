"""The in-process bundle (``storage.memory.stores``): the defaults' parts, one of each per bundle.

What every bundle shares is the contract (tests/storage/test_bundle.py, which runs through
``MemoryStores``); these are the memory bundle's own rules.
"""

from __future__ import annotations

from genmcp.storage import Stores
from genmcp.storage.buckets import MemoryBuckets
from genmcp.storage.memory import (
    MemoryBroker,
    MemorySessionRegistry,
    MemoryStores,
    MemoryTaskStore,
)


def test_each_bundle_has_its_own_default_parts() -> None:
    one, two = MemoryStores(), MemoryStores()
    assert isinstance(one, Stores)
    assert (type(one.broker), type(one.registry), type(one.tasks), type(one.buckets)) == (
        MemoryBroker,
        MemorySessionRegistry,
        MemoryTaskStore,
        MemoryBuckets,
    )
    assert [a is b for a, b in zip(
        (one.broker, one.registry, one.tasks, one.buckets),
        (two.broker, two.registry, two.tasks, two.buckets),
        strict=True,
    )] == [False] * 4  # fmt: skip


async def test_aclose_closes_the_brokers_subscriptions() -> None:
    stores = MemoryStores()
    subscription = stores.broker.subscribe("a", "b")
    assert stores.broker.topics == 2
    await stores.aclose()
    await stores.aclose()  # idempotent
    assert stores.broker.topics == 0 and subscription.closed

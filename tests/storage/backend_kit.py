"""The stores every contract test of ``genmcp.storage`` runs on: memory, and Redis (a real one).

A test takes the ``backend`` fixture (tests/storage/conftest.py), parametrized over the
bundles (`genmcp.storage.Stores`: `MemoryStores`, `RedisStores`), and takes each store from a
bundle: `backend.stores()` gives a bundle on one shared store (for memory always the same one,
for Redis a new one on its own client each time, as two processes of one app would have);
`backend.broker()`, `backend.registry()` and `backend.tasks()` are the store of a new bundle.
The Redis params skip when no Redis answers, and fail instead when `CI` is set (see
tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, Final

import pytest

from genmcp.storage import Broker, Stores, Subscription
from genmcp.storage.memory import MemoryStores

WAIT: Final = 5.0
QUIET: Final = 0.1
"""How long a test waits to be sure that nothing arrives."""
JSON_VALUES: Final[list[Any]] = [
    None,
    True,
    0,
    -7,
    2.5,
    "",
    "café ✓ \u2028",
    "lone \ud800 surrogate",
    [],
    [1, "two", None, [3]],
    {},
    {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
    {"nested": {"list": [{"a": 1}], "text": "x"}},
]


class Backend:
    """Makes bundles on one shared store, closes them all at teardown."""

    def __init__(self, name: str, url: str | None = None, prefix: str | None = None) -> None:
        self.name, self.url, self.prefix = name, url, prefix
        self.bundles: list[Stores] = []
        self.client_names: list[str] = []
        self._memory = MemoryStores()

    def stores(self) -> Any:
        """A bundle: the memory one, or new Redis stores on their own (named) client."""
        if self.name == "memory":
            return self._memory
        from genmcp.storage.redis import RedisStores

        name = f"genmcp-test-{uuid.uuid4().hex[:12]}"
        self.client_names.append(name)
        made = RedisStores.from_url(self.url or "", prefix=self.prefix or "", client_name=name)
        self.bundles.append(made)
        return made

    def broker(self) -> Any:
        return self.stores().broker

    def registry(self) -> Any:
        return self.stores().registry

    def tasks(self) -> Any:
        return self.stores().tasks

    async def aclose(self) -> None:
        for bundle in [self._memory, *self.bundles]:
            await bundle.aclose()


def session() -> str:
    return uuid.uuid4().hex


async def receive(subscription: Subscription) -> tuple[str, Any]:
    return await asyncio.wait_for(subscription.receive(), WAIT)


async def nothing_arrives(subscription: Subscription) -> None:
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(subscription.receive(), QUIET)


async def subscribed(broker: Broker, *topics: str) -> Subscription:
    subscription = broker.subscribe(*topics)
    await asyncio.wait_for(subscription.ready(), WAIT)
    return subscription

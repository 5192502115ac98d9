"""``MemoryStores``: the in-process parts as one ``Stores`` bundle.

The same parts a Suite (``MemoryBroker``, ``MemoryTaskStore``), a ``LegacyServer``
(``MemorySessionRegistry``), a ``RateLimit`` (``MemoryBuckets``) and a DPoP policy
(``MemoryProofReplays``) make for themselves when given none, bundled: for tests, for one
process that wants its parts in one place, and as what a custom bundle may wrap or start
from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from genmcp.storage.buckets import MemoryBuckets
from genmcp.storage.memory.broker import MemoryBroker
from genmcp.storage.memory.registry import MemorySessionRegistry
from genmcp.storage.memory.replays import MemoryProofReplays
from genmcp.storage.memory.states import MemoryStateStore
from genmcp.storage.memory.tasks import MemoryTaskStore

__all__ = ["MemoryStores"]


@dataclass(slots=True)
class MemoryStores:
    """The in-process ``Stores``: one process, one budget; nothing shared with another."""

    broker: MemoryBroker = field(default_factory=MemoryBroker)
    registry: MemorySessionRegistry = field(default_factory=MemorySessionRegistry)
    tasks: MemoryTaskStore = field(default_factory=MemoryTaskStore)
    buckets: MemoryBuckets = field(default_factory=MemoryBuckets)
    states: MemoryStateStore = field(default_factory=MemoryStateStore)
    """Per-user state (``genmcp.UserStates``): not one of the parts a router wires in."""
    replays: MemoryProofReplays = field(default_factory=MemoryProofReplays)

    async def aclose(self) -> None:
        """Close the broker's subscriptions (the other parts hold nothing to release)."""
        await self.broker.aclose()
        await self.registry.aclose()

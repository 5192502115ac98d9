"""One backend's stores as one bundle: ``Stores``, what ``mcp_router(stores=...)`` wires in.

The broker, session registry, task store and rate-limit buckets of one backend, closed
together (genmcp's two bundles, ``memory.stores.MemoryStores`` and
``redis.stores.RedisStores``, carry their ``ProofReplays`` too, as ``replays``). Imports the
contracts of its parts only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from genmcp.storage.messaging import Broker
from genmcp.storage.sessions import SessionRegistry
from genmcp.storage.tasks import TaskStore

if TYPE_CHECKING:
    from genmcp.storage.buckets import Buckets

__all__ = ["Stores"]


@runtime_checkable
class Stores(Protocol):
    """One storage backend's parts as a bundle: what ``mcp_router(stores=...)`` wires in.

    The router gives ``broker`` and ``tasks`` to the Suite it builds, ``registry`` to its
    ``LegacyServer``, and ``buckets`` to every ``RateLimit`` of ``middleware=`` given no
    store of its own. ``aclose`` releases the whole bundle (connections, background tasks);
    whoever built the bundle calls it, after the servers using it stopped.

    ``memory.MemoryStores`` is the in-process bundle (the parts a Suite, a LegacyServer and
    a RateLimit make for themselves when given none), ``redis.RedisStores`` the Redis one.
    Another backend implements the four interfaces and bundles them the same way: a
    dataclass with these four fields and an ``aclose`` is enough. The parts of one bundle
    should share one store (and its connection) so that the processes given equal bundles
    act as one server. A bundle may also carry a ``cache`` (a ``genmcp.client.cache``
    ``CacheStore``, as ``RedisStores`` does): the router's remote mounts left at their
    default cache keep their upstreams' answers there.
    """

    @property
    def broker(self) -> Broker:
        """Publish/subscribe, worker mail, the shared catalog (the Suite's)."""
        ...

    @property
    def registry(self) -> SessionRegistry:
        """Legacy (2025) sessions' state (the LegacyServer's)."""
        ...

    @property
    def tasks(self) -> TaskStore:
        """The Tasks extension's records (the Suite's)."""
        ...

    @property
    def buckets(self) -> Buckets:
        """The token buckets of rate limits given no store of their own."""
        ...

    async def aclose(self) -> None:
        """Release what the bundle holds (its parts, then their shared connection)."""
        ...

"""One backend's stores as one bundle: ``Stores``, what ``mcp_router(stores=...)`` wires in.

The broker, session registry, task store and rate-limit buckets of one backend, closed
together. A bundle may carry more, each declared by a protocol of its own so that a bundle
without it is still a ``Stores``: ``WithReplays`` (its ``ProofReplays``, as ``replays``:
genmcp's two bundles, ``memory.stores.MemoryStores`` and ``redis.stores.RedisStores``) and
``WithCache`` (a clients' response cache, as ``cache``: ``RedisStores``). Imports the
contracts of its parts only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from genmcp.storage.messaging import Broker
from genmcp.storage.records import ProofReplays
from genmcp.storage.sessions import SessionRegistry
from genmcp.storage.tasks import TaskStore

if TYPE_CHECKING:
    from genmcp.client.cache import CacheStore
    from genmcp.storage.buckets import Buckets

__all__ = ["Stores", "WithCache", "WithReplays"]


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
    act as one server. Two parts are optional, each its own protocol (a bundle without them
    stays a ``Stores``): ``replays`` (:class:`WithReplays`) and ``cache`` (:class:`WithCache`).
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


@runtime_checkable
class WithReplays(Protocol):
    """A bundle that also carries its ``ProofReplays`` (``MemoryStores`` and ``RedisStores``
    do): ``DPoPPolicy(replays=bundle)`` keeps each proof's ``jti`` there."""

    @property
    def replays(self) -> ProofReplays:
        """The DPoP proofs seen, on the bundle's store."""
        ...


@runtime_checkable
class WithCache(Protocol):
    """A bundle that also carries a response cache (``RedisStores`` does): the router's
    remote mounts left at their default cache keep their upstreams' answers there, so a
    gateway's processes share them."""

    @property
    def cache(self) -> CacheStore | None:
        """A ``genmcp.client.cache.CacheStore`` on the bundle's store; None: none."""
        ...

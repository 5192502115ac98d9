"""``ResponseCache``: a client's cache of cacheable results, honouring SEP-2549's hints.

A 2026-07-28 server stamps ``ttlMs`` and ``cacheScope`` on ``server/discover``, ``tools/list``,
``prompts/list``, ``resources/list``, ``resources/templates/list`` and ``resources/read``
(``server/discover``'s answers the era probe: ``genmcp.client.connection``). The client keeps a
complete result for ``ttlMs`` (at most ``max_ttl_ms``, a day by default) and answers the same
request from it:

* keyed by the server (its URL, or its stdio command), the method and its params (``_meta``
  left out), and the scope: a ``"public"`` result is shared by every client of the store, a
  ``"private"`` one only by clients with the same ``principal`` (by default a digest of a
  static bearer token, else one per client: never shared);
* invalidated by ``notifications/tools|prompts|resources/list_changed`` (the method's
  listings) and ``notifications/resources/updated`` (that URI's reads): each bumps a
  generation kept in the store, so a notification one process sees empties every process's
  view; a result fetched while its generation moved is not kept (``server/discover``'s has no
  notification: it lasts its ``ttlMs``);
* 2025 sessions are never cached (their results carry no hints); ``ttlMs: 0``, an
  ``input_required`` result, a request with ``inputResponses`` or a result over
  ``max_entry_bytes`` (1 MiB) neither.

Where entries live is a :class:`CacheStore`: :class:`MemoryCacheStore` (one process, at most
``max_entries``, least recently used dropped first) or
``genmcp.storage.redis.RedisCacheStore`` (shared by processes; Redis expires each entry). A
store that fails is a miss, logged: the request goes to the server.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Final, Protocol

from genmcp.protocol.methods import (
    PROMPTS_LIST,
    PROMPTS_LIST_CHANGED,
    RESOURCES_LIST,
    RESOURCES_LIST_CHANGED,
    RESOURCES_READ,
    RESOURCES_TEMPLATES_LIST,
    RESOURCES_UPDATED,
    SERVER_DISCOVER,
    TOOLS_LIST,
    TOOLS_LIST_CHANGED,
)

__all__ = [
    "CACHEABLE",
    "MAX_ENTRY_BYTES",
    "MAX_TTL_MS",
    "CacheStore",
    "Lookup",
    "MemoryCacheStore",
    "ResponseCache",
]

logger = logging.getLogger("genmcp.client")

CACHEABLE: Final = frozenset(
    {SERVER_DISCOVER, TOOLS_LIST, PROMPTS_LIST, RESOURCES_LIST, RESOURCES_TEMPLATES_LIST,
     RESOURCES_READ}
)  # fmt: skip
"""The methods whose results SEP-2549 lets a client keep."""
MAX_TTL_MS: Final = 24 * 3600 * 1000
"""The longest a result is kept, whatever ``ttlMs`` the server sends."""
MAX_ENTRY_BYTES: Final = 1 << 20
"""The largest result kept (its JSON text); a larger one is fetched each time."""
_GROUPS: Final[Mapping[str, str]] = {
    SERVER_DISCOVER: "discover",
    TOOLS_LIST: "tools",
    PROMPTS_LIST: "prompts",
    RESOURCES_LIST: "resources",
    RESOURCES_TEMPLATES_LIST: "resources",
}
_CHANGED: Final[Mapping[str, str]] = {
    TOOLS_LIST_CHANGED: "tools",
    PROMPTS_LIST_CHANGED: "prompts",
    RESOURCES_LIST_CHANGED: "resources",
}

Lookup = tuple[int, str | None, str | None]
"""A store's answer: the group's generation, the public entry, the principal's entry."""


class CacheStore(Protocol):
    """Where a :class:`ResponseCache` keeps its entries (JSON text) and generations.

    ``space`` names the server, ``group`` what one notification invalidates, ``key`` the
    request and its partition. Every method may raise: the cache then fetches.
    """

    async def lookup(self, space: str, group: str, public: str, private: str) -> Lookup:
        """The group's generation and the two entries (None when absent or expired)."""
        ...

    async def store(self, space: str, group: str, key: str, entry: str, ttl_ms: int) -> None:
        """Keep ``entry`` under ``key`` for ``ttl_ms``."""
        ...

    async def bump(self, space: str, group: str) -> None:
        """Move the group's generation on: its entries are stale."""
        ...


class MemoryCacheStore:
    """A :class:`CacheStore` in this process: at most ``max_entries`` (LRU), each expiring."""

    def __init__(self, max_entries: int = 1024) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._entries: OrderedDict[tuple[str, str, str], tuple[float, str]] = OrderedDict()
        self._generations: dict[tuple[str, str], int] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def _get(self, name: tuple[str, str, str], now: float) -> str | None:
        found = self._entries.get(name)
        if found is None:
            return None
        if found[0] <= now:
            del self._entries[name]
            return None
        self._entries.move_to_end(name)
        return found[1]

    async def lookup(self, space: str, group: str, public: str, private: str) -> Lookup:
        now = time.monotonic()
        generation = self._generations.get((space, group), 0)
        return (generation, self._get((space, group, public), now),
                self._get((space, group, private), now))  # fmt: skip

    async def store(self, space: str, group: str, key: str, entry: str, ttl_ms: int) -> None:
        name = (space, group, key)
        self._entries[name] = (time.monotonic() + ttl_ms / 1000, entry)
        self._entries.move_to_end(name)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    async def bump(self, space: str, group: str) -> None:
        self._generations[(space, group)] = self._generations.get((space, group), 0) + 1


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _entry(raw: str | None) -> dict[str, Any] | None:
    """A stored entry, or None when there is none or it is not one (a foreign value: a miss)."""
    if raw is None:
        return None
    try:
        entry = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("result"), dict):
        return None
    return entry


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class ResponseCache:
    """One client's view of a :class:`CacheStore` (see the module docstring).

    Args:
        store: where entries live (a new :class:`MemoryCacheStore` when None).
        server: what names the server in keys (the client's URL or stdio command).
        principal: who private entries belong to; None: this client only.
        max_ttl_ms: the longest an entry is kept.
        max_entry_bytes: the largest entry kept (a store holds at most ``max_entries`` of
            them in memory; Redis as its ``maxmemory`` allows).
    """

    def __init__(
        self,
        store: CacheStore | None,
        server: str,
        *,
        principal: str | None = None,
        max_ttl_ms: int = MAX_TTL_MS,
        max_entry_bytes: int = MAX_ENTRY_BYTES,
    ) -> None:
        self.store: CacheStore = MemoryCacheStore() if store is None else store
        self.space = _digest("server\n" + server)
        owner = principal if principal is not None else "client\n" + uuid.uuid4().hex
        self.partition = "p" + _digest("principal\n" + owner)
        self.max_ttl_ms = max_ttl_ms
        self.max_entry_bytes = max_entry_bytes
        self.hits = 0
        """Requests answered from the cache."""
        self.misses = 0
        """Cacheable requests that went to the server."""

    @staticmethod
    def group(method: str, params: Mapping[str, Any] | None) -> str:
        """What invalidates the request's entry: the method's listing, or the URI's reads."""
        if method == RESOURCES_READ:
            return "read:" + _digest(str((params or {}).get("uri")))
        return _GROUPS[method]

    @staticmethod
    def request_key(method: str, params: Mapping[str, Any] | None) -> str:
        """The request's digest: the method and its params without ``_meta``."""
        body = {key: value for key, value in (params or {}).items() if key != "_meta"}
        return _digest(method + "\n" + _canonical(body))

    async def get(
        self, method: str, params: Mapping[str, Any] | None, *, counted: bool = True
    ) -> tuple[Any, int | None]:
        """A fresh result for the request (or None) and the generation to store under (None
        when the store failed: then nothing is stored). ``counted=False`` leaves ``hits``
        and ``misses`` alone (the era probe's ``server/discover``)."""
        group, key = self.group(method, params), self.request_key(method, params)
        try:
            generation, public, private = await self.store.lookup(
                self.space, group, "public:" + key, self.partition + ":" + key
            )
        except Exception as exc:  # a cache that fails is a miss
            logger.warning("response cache: lookup failed (%s); asking the server", exc)
            self.misses += counted
            return None, None
        for raw in (private, public):
            entry = _entry(raw)
            if entry is not None and entry.get("generation") == generation:
                self.hits += counted
                return entry["result"], generation
        self.misses += counted
        return None, generation

    async def put(
        self, method: str, params: Mapping[str, Any] | None, result: Any, generation: int
    ) -> None:
        """Keep ``result`` if its hints allow it, under the generation read before it was
        fetched (a notification since then moved the store's on: the entry is never used)."""
        if not isinstance(result, Mapping) or result.get("resultType", "complete") != "complete":
            return
        ttl, scope = result.get("ttlMs"), result.get("cacheScope")
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl <= 0:
            return
        if scope == "public":
            partition = "public"
        elif scope == "private":
            partition = self.partition
        else:
            return
        key = partition + ":" + self.request_key(method, params)
        entry = _canonical({"generation": generation, "result": result})
        if len(entry.encode()) > self.max_entry_bytes:
            return
        try:
            await self.store.store(
                self.space, self.group(method, params), key, entry, min(ttl, self.max_ttl_ms)
            )
        except Exception as exc:
            logger.warning("response cache: store failed (%s)", exc)

    async def notified(self, message: Mapping[str, Any]) -> None:
        """Invalidate what a change notification names (a listener of the connection)."""
        method = message.get("method")
        group = _CHANGED.get(str(method))
        if group is None and method == RESOURCES_UPDATED:
            params = message.get("params")
            uri = params.get("uri") if isinstance(params, Mapping) else None
            if isinstance(uri, str):
                group = self.group(RESOURCES_READ, {"uri": uri})
        if group is None:
            return
        try:
            await self.store.bump(self.space, group)
        except Exception as exc:
            logger.warning("response cache: invalidation of %s failed (%s)", group, exc)

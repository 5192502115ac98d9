"""Who sees what: the per-caller decision of which tools, prompts and resources exist.

A caller sees an item when three checks agree, in this order: it holds the item's OAuth
scopes (``scopes=``, with auth), the item's own ``visible(caller, arg)`` hook says yes
(``Tool``, ``Prompt``, ``ResourceRepo``; True by default) and the Suite's policy does
(``Suite(visibility=...)``, a :class:`Visibility` or a plain ``decide(caller, item)``).
One decision serves every method: lists leave hidden items out (their pages and sealed
cursors are those of the caller's own list), and a call, a get, a read or a completion of
a hidden item is answered exactly as one of an item that does not exist.

Decisions are cached: the set of hidden names of a catalog is computed once per caller
*key* (:func:`caller_key`: the principal, the tenant and the granted scopes, by default) and
kept until the catalog changes or ``ttl_s`` passes. A policy that reads anything else of
the request (a header, the time of day) gives its own ``key``, or ``key=None`` to decide on
every request. A hidden set is a ``frozenset`` of names, which the list pages are keyed by
(``catalogs.listing.PageSets``): the cached path of a request is one key, two dict lookups.

An item may also hide *parts* of itself from a caller it is shown to (a versioned tool: the
versions that caller may not run). Its behaviour's ``hidden_parts(caller, arg)`` hook names
them (``Behaviour``'s names none) and the hidden set holds ``<name>/<part>`` for each
(:func:`part_key`; a tool name never holds ``/``), so the list pages of callers who see
different parts are different pages.

Pure: no asyncio, no web framework; imports only genmcp's behaviour base, ``Caller`` and owner keys.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol, final

from genmcp.behaviour import Behaviour
from genmcp.caller import TENANT, Caller
from genmcp.storage.owner import owner_of

__all__ = [
    "PART",
    "Decide",
    "Item",
    "Visibility",
    "as_visibility",
    "caller_key",
    "caller_of",
    "part_key",
]

_EMPTY: Final[frozenset[str]] = frozenset()
_NO_META: Final[Mapping[str, Any]] = {}
PART: Final = "/"
"""Joins an item's name and one of its hidden parts in a hidden set."""


def part_key(name: str, part: str) -> str:
    """The key of the part ``part`` of the item ``name`` in a hidden set."""
    return f"{name}{PART}{part}"


@final
@dataclass(frozen=True, slots=True)
class Item:
    """What a Suite-wide policy decides on: one served item.

    Attributes:
        kind: ``"tool"``, ``"prompt"`` or ``"resource"`` (a repository: its resources and
            its templates; static resources are always listed).
        name: the tool or prompt name, or the repository's ``prefix``/``template``.
        behaviour: the ``Tool``, ``Prompt`` or ``ResourceRepo`` instance.
        arg: its provider ``arg``.
    """

    kind: str
    name: str
    behaviour: Any
    arg: Any


Decide = Callable[[Caller, Item], bool]
"""A Suite-wide policy: True when ``caller`` may see ``item``."""
Key = Callable[[Mapping[str, Any]], Hashable]
"""What a decision depends on, read from the assigns: callers with equal keys see alike."""


def caller_of(assigns: Mapping[str, Any], meta: Mapping[str, Any] | None = None) -> Caller:
    """The caller of a request with ``assigns`` (and ``meta``)."""
    tenant = assigns.get(TENANT)
    return Caller(assigns, owner_of(assigns), None if tenant is None else str(tenant),
                  _NO_META if meta is None else meta)  # fmt: skip


def caller_key(assigns: Mapping[str, Any]) -> Hashable:
    """The default cache key: principal, tenant and granted scopes (auth varies them)."""
    held = assigns.get("effective_scopes")
    return (owner_of(assigns), assigns.get(TENANT), None if held is None else frozenset(held))


class Entry(Protocol):
    """What a catalog entry offers the decision (tools, prompts, repositories)."""

    def required_scopes(self) -> tuple[str, ...]: ...


class Visibility:
    """A Suite's visibility policy and its cache of hidden sets per caller key.

    Args:
        decide: the Suite-wide policy ``decide(caller, item)``; None: only the scopes and
            the items' own ``visible`` hooks decide.
        key: the cache key of a caller's assigns (:func:`caller_key`); None: no cache,
            every request decides anew (for a policy that reads the request's ``_meta``).
        ttl_s: how long a cached decision is kept (a policy reading a changing store).
        max_callers: cached keys per catalog at most (the least recently used go first).
    """

    __slots__ = ("_cache", "_hooked", "_parted", "decide", "key", "max_callers", "ttl_s")

    def __init__(
        self,
        decide: Decide | None = None,
        *,
        key: Key | None = caller_key,
        ttl_s: float = 60.0,
        max_callers: int = 4096,
    ) -> None:
        if ttl_s <= 0 or max_callers < 1:
            raise ValueError("Visibility: ttl_s must be positive and max_callers at least 1")
        self.decide, self.key, self.ttl_s, self.max_callers = decide, key, ttl_s, max_callers
        self._hooked: set[str] = set()  # catalog kinds where some entry has its own hook
        self._parted: set[str] = set()  # kinds where some entry hides parts (``hidden_parts``)
        # (kind, key) -> (catalog generation, expiry, hidden names)
        self._cache: OrderedDict[tuple[str, Hashable], tuple[int, float, frozenset[str]]] = (
            OrderedDict()
        )

    def hooked(self, kind: str, behaviour: Behaviour) -> None:
        """Note an entry of ``kind`` added: its own ``visible`` hook makes the kind decided,
        its own ``hidden_parts`` makes it parted (the defaults are never called)."""
        if type(behaviour).visible is not Behaviour.visible:
            self._hooked.add(kind)
        if type(behaviour).hidden_parts is not Behaviour.hidden_parts:
            self._parted.add(kind)

    def active(self, kind: str) -> bool:
        """True when something beyond scopes decides for ``kind``."""
        return self.decide is not None or kind in self._hooked or kind in self._parted

    def hidden(
        self,
        kind: str,
        generation: int,
        entries: Callable[[], Iterable[tuple[str, Any, Any, Any]]],
        assigns: Mapping[str, Any],
        meta: Mapping[str, Any] | None = None,
    ) -> frozenset[str]:
        """The names of ``kind`` the caller with ``assigns`` may not see.

        ``entries()`` yields ``(name, entry, behaviour, arg)``; ``generation`` changes with
        the catalog (a cached set of an older generation is recomputed).
        """
        held = assigns.get("effective_scopes")
        if held is None and not (  # active(kind), inline: no frame (the hot path)
            self.decide is not None or kind in self._hooked or kind in self._parted
        ):
            return _EMPTY
        key_of = self.key
        if key_of is None:
            return self._compute(kind, entries(), held, caller_of(assigns, meta))
        slot = (kind, key_of(assigns))
        cache = self._cache
        cached = cache.get(slot)
        now = time.monotonic()
        if cached is not None and cached[0] == generation and cached[1] > now:
            return cached[2]
        hidden = self._compute(kind, entries(), held, caller_of(assigns, meta))
        cache[slot] = (generation, now + self.ttl_s, hidden)
        cache.move_to_end(slot)
        if len(cache) > self.max_callers:
            cache.popitem(last=False)
        return hidden

    def _compute(
        self,
        kind: str,
        entries: Iterable[tuple[str, Any, Any, Any]],
        held: Any,
        caller: Caller,
    ) -> frozenset[str]:
        decide, hooked, parted = self.decide, kind in self._hooked, kind in self._parted
        hidden = []
        for name, entry, behaviour, arg in entries:
            if held is not None and not set(entry.required_scopes()) <= held:
                hidden.append(name)
            elif hooked and not behaviour.visible(caller, arg):
                hidden.append(name)
            elif decide is not None and not decide(caller, Item(kind, name, behaviour, arg)):
                hidden.append(name)
            elif parted:
                hidden.extend(part_key(name, part) for part in behaviour.hidden_parts(caller, arg))
        return frozenset(hidden) if hidden else _EMPTY


def as_visibility(given: Visibility | Decide | None) -> Visibility:
    """``Suite(visibility=...)`` as a :class:`Visibility` (a plain callable: the default key)."""
    if given is None:
        return Visibility()
    if isinstance(given, Visibility):
        return given
    if not callable(given):
        raise TypeError(f"visibility= takes a Visibility or decide(caller, item), not {given!r}")
    return Visibility(given)

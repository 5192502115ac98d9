"""Paginated list results built once: tools, prompts and resource templates.

A :class:`Pages` holds every page of one list result, built from the items when the set
changes (not per request), with the cache hint merged over the providers (``merge_cache``:
one scope for all pages, as the spec requires). ``nextCursor`` is sealed for the method, so a
cursor of one list never opens another, and carries a digest of the list it was cut from: a
cursor from before a change (on this process or any other with the same key) gets -32602
"the list has changed; start again" instead of a silently shifted page. Cursors expire after
:data:`CURSOR_MAX_AGE_S`; pages are rebuilt (``stale``) at half that age, so a cursor handed
out in a page is always valid for a good while. A :class:`Catalog` (tools, prompts) serves
items by name over such pages; its ``list_visible`` is the list method's handler.

Imports genmcp's errors, sealing and tool (for ``CacheControl``); no asyncio, no web framework.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, Generic, Protocol, TypeVar

from genmcp.behaviour import Behaviour
from genmcp.catalogs.request_state import RequestStates
from genmcp.errors import MCPError
from genmcp.outcomes import CacheControl
from genmcp.protocol.jsonrpc import EncodedResult, Request
from genmcp.protocol.languages import CONTENT_LANGUAGE_META, Languages, accepted_languages
from genmcp.sealing import Sealer, SealError, digest
from genmcp.visibility import Visibility

__all__ = [
    "CURSOR",
    "CURSOR_MAX_AGE_S",
    "Catalog",
    "NamedEntry",
    "PageSets",
    "Pages",
    "Served",
    "hidden_keys",
    "merge_cache",
    "open_cursor",
]

CURSOR: Final = "cursor:"
"""Sealing purpose prefix of cursors (``cursor:<method>``)."""
CURSOR_MAX_AGE_S: Final = 7 * 24 * 3600.0
"""Cursors outlive any listing session; a change of the list voids them sooner."""
MAX_SUBSETS: Final = 64
"""Filtered page sets kept per catalog (one per distinct set of hidden items)."""


def merge_cache(hints: Iterable[CacheControl]) -> CacheControl:
    """Public only if every hint is public; the smallest TTL wins; none: private, 0."""
    merged: CacheControl | None = None
    for scope, ttl in hints:
        if merged is None:
            merged = (scope, ttl)
        else:
            both_public = merged[0] == "public" and scope == "public"
            merged = ("public" if both_public else "private", min(merged[1], ttl))
    return merged or ("private", 0)


def open_cursor(sealer: Sealer, method: str, cursor: Any, *, encrypted: bool = False) -> Any:
    """The payload of a cursor sealed for ``method``; -32602 when it is not one."""
    try:
        return sealer.unseal(
            CURSOR + method, cursor, max_age_s=CURSOR_MAX_AGE_S, encrypted=encrypted
        )
    except SealError as exc:
        raise MCPError("bad_cursor", f"Invalid cursor: {exc}") from None


class Pages:
    """Every page of one list result.

    Args:
        method: the list method, e.g. ``"prompts/list"`` (the cursor purpose).
        key: the result key holding the items, e.g. ``"prompts"``.
        items: the items, in their final order.
        cache: the cache hint of every page.
        page_size: items per page (at least 1).
        sealer: seals the cursors.
        result_meta: the ``_meta`` of every page (server info).
    """

    __slots__ = ("_expires", "_pages", "_sealer", "_version", "method")

    def __init__(
        self,
        method: str,
        key: str,
        items: list[dict[str, Any]],
        cache: CacheControl,
        page_size: int,
        sealer: Sealer,
        result_meta: Mapping[str, Any],
    ) -> None:
        self.method = method
        self._sealer = sealer
        self._version = digest(items)[:16]
        self._expires = time.monotonic() + CURSOR_MAX_AGE_S / 2
        scope, ttl = cache
        chunks = [items[i : i + page_size] for i in range(0, len(items), page_size)] or [[]]
        self._pages: list[dict[str, Any]] = []
        for index, chunk in enumerate(chunks):
            page: dict[str, Any] = {
                "resultType": "complete",
                key: chunk,
                "ttlMs": ttl,
                "cacheScope": scope,
                "_meta": result_meta,
            }
            if index + 1 < len(chunks):
                page["nextCursor"] = sealer.seal(CURSOR + method, [self._version, index + 1])
            self._pages.append(EncodedResult(page))  # serialized once, spliced per response

    @property
    def stale(self) -> bool:
        """True once the cursors in these pages are half way to expiry: rebuild them."""
        return time.monotonic() >= self._expires

    def page(self, cursor: Any) -> dict[str, Any]:
        """The page ``cursor`` names (None: the first); -32602 for a bad or stale cursor."""
        if cursor is None:
            return self._pages[0]
        payload = open_cursor(self._sealer, self.method, cursor)
        if not (isinstance(payload, list) and len(payload) == 2 and isinstance(payload[1], int)):
            raise MCPError("bad_cursor", "Invalid cursor: not a cursor of this list")
        version, index = payload
        if version != self._version or not 0 < index < len(self._pages):
            raise MCPError(
                "bad_cursor", f"Invalid cursor: the {self.method} result has changed; start again"
            )
        return self._pages[index]


class PageSets:
    """The pages of one list, built on first use and again once stale: those of every item,
    and those of each set of hidden items (auth: at most :data:`MAX_SUBSETS` sets are kept).

    ``build(hidden)`` makes the pages without the items whose keys are in ``hidden``.
    """

    __slots__ = ("_all", "_build", "_filtered")

    def __init__(self, build: Callable[[frozenset[str]], Pages]) -> None:
        self._build = build
        self._all: Pages | None = None
        self._filtered: dict[frozenset[str], Pages] = {}

    def page(self, hidden: frozenset[str], cursor: Any) -> dict[str, Any]:
        """The page ``cursor`` names (None: the first) of the list without ``hidden``."""
        if not hidden:
            if self._all is None or self._all.stale:
                self._all = self._build(hidden)
            return self._all.page(cursor)
        pages = self._filtered.get(hidden)
        if pages is None or pages.stale:
            if len(self._filtered) >= MAX_SUBSETS:
                self._filtered.clear()
            pages = self._filtered[hidden] = self._build(hidden)
        return pages.page(cursor)

    def clear(self) -> None:
        """Drop every page: the items changed."""
        self._all = None
        self._filtered.clear()


T = TypeVar("T")


def hidden_keys(entries: Mapping[str, T], visible: Callable[[T], bool] | None) -> frozenset[str]:
    """The keys of the entries ``visible`` rejects (none without ``visible``)."""
    if visible is None:
        return frozenset()
    return frozenset(key for key, entry in entries.items() if not visible(entry))


class NamedEntry(Protocol):
    """What a catalog needs of one served item, built once from its provider."""

    name: str
    owner: str
    arg: Any

    @property
    def descriptor(self) -> dict[str, Any]:
        """The item's list entry."""
        ...

    @property
    def behaviour(self) -> Behaviour:
        """The ``Tool`` or ``Prompt`` instance (its ``visible`` and ``hidden_parts`` hooks)."""
        ...

    def cache_control(self) -> CacheControl:
        """The item's own cache hint for its list."""
        ...

    def required_scopes(self) -> tuple[str, ...]:
        """The OAuth scopes a caller must hold to use the item (auth)."""
        ...


E = TypeVar("E", bound=NamedEntry)


class Served:
    """What every catalog is built with: the sealer (cursors), the ``requestState`` tokens,
    the page size, the ``_meta`` of every result (server info), the Suite's
    ``visibility`` (None: scopes alone hide) and its SEP-2792 ``languages`` (None: off); a
    catalog sets up its own (empty) collections in ``_start_empty``. ``generation`` counts
    the changes of what it serves (visibility caches are of one generation)."""

    def __init__(
        self,
        *,
        sealer: Sealer,
        states: RequestStates,
        page_size: int,
        result_meta: Mapping[str, Any],
        visibility: Visibility | None = None,
        languages: Languages | None = None,
    ) -> None:
        self.states, self.page_size = states, page_size
        self._sealer, self._result_meta = sealer, result_meta
        self.visibility = visibility
        self.languages = languages
        self.generation = 0
        self._start_empty()

    def _start_empty(self) -> None:
        """Set up the catalog's collections, nothing served yet."""


class Catalog(Served, Generic[E]):
    """Items served by name (tools, prompts): add, remove, look up, and the paginated list.

    Args:
        kind: what an item is, for messages (``"tool"``).
        method: the list method (``"tools/list"``).
        key: the list result's key holding the items (``"tools"``).
        make: builds the entry of one provider ``(cls, arg)``, raising naming the class
            when it is unfit.
        served: what every catalog is built with (:class:`Served`).
    """

    def __init__(
        self, *, kind: str, method: str, key: str, make: Callable[[Any, Any], E], **served: Any
    ) -> None:
        self.kind, self.method, self.key, self._make = kind, method, key, make
        super().__init__(**served)

    def _start_empty(self) -> None:
        self.entries: dict[str, E] = {}
        self.disabled: frozenset[str] = frozenset()
        """Names switched off at runtime (``Suite.disable``): hidden from every caller."""
        self._pages = PageSets(self._build)
        self._localized: dict[str, PageSets] = {}  # SEP-2792: each language's own pages

    def switch(self, name: str, enabled: bool) -> bool:
        """Turn the item ``name`` on or off (off: listed nowhere, called as unknown, whether
        it is served yet or not); True when that changed something."""
        now = self.disabled - {name} if enabled else self.disabled | {name}
        if now == self.disabled:
            return False
        self.disabled = now
        self._changed()
        return True

    def __bool__(self) -> bool:
        return bool(self.entries)

    def add(self, provider: Any) -> E:
        """Serve one more item; a name already served raises ``ValueError``."""
        cls, arg = provider if isinstance(provider, tuple) else (provider, None)
        entry = self._make(cls, arg)
        other = self.entries.get(entry.name)
        if other is not None:
            raise ValueError(
                f"{entry.owner}: {self.kind} {entry.name!r} is already served by {other.owner}"
            )
        self.entries[entry.name] = entry
        self._changed()
        if self.visibility is not None:
            self.visibility.hooked(self.kind, entry.behaviour)
        return entry

    def _changed(self) -> None:
        self._pages.clear()
        self._localized.clear()
        self.generation += 1

    def named(
        self,
        name: str,
        assigns: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> E:
        """The item ``name``; -32602 (``unknown_tool``, ``unknown_prompt``) when none, or
        when the caller with ``assigns`` may not see it: the very same answer."""
        entry = self.entries.get(name)
        if entry is None or (assigns is not None and name in self.hidden_for(assigns, meta)):
            raise MCPError(f"unknown_{self.kind}", f"Unknown {self.kind}: {name!r}", {"name": name})
        return entry

    def requested(
        self,
        params: Mapping[str, Any],
        method: str,
        assigns: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> E:
        """The item ``params.name`` names in a ``method`` request; -32602 when none (or
        hidden from the caller with ``assigns``)."""
        name = params.get("name")
        if not isinstance(name, str):
            raise MCPError(
                "invalid_params", f"Invalid params: {method} needs params.name (a string)"
            )
        entry = self.entries.get(name)  # named(), inline: no frame (the hot path)
        if entry is None or (assigns is not None and name in self.hidden_for(assigns, meta)):
            raise MCPError(f"unknown_{self.kind}", f"Unknown {self.kind}: {name!r}", {"name": name})
        return entry

    def remove(self, name: str) -> bool:
        """Stop serving the item ``name``; False when there is none."""
        removed = self.entries.pop(name, None) is not None
        if removed:
            self._changed()
        return removed

    def hidden_for(
        self, assigns: Mapping[str, Any], meta: Mapping[str, Any] | None = None
    ) -> frozenset[str]:
        """The names the caller with ``assigns`` may not see (``genmcp.visibility``; without
        a visibility, those whose scopes it lacks)."""
        visibility = self.visibility
        if visibility is None:
            held = assigns.get("effective_scopes")
            if held is None:
                return self.disabled
            hidden = hidden_keys(self.entries, lambda entry: set(entry.required_scopes()) <= held)
        else:
            hidden = visibility.hidden(self.kind, self.generation, self._decided, assigns, meta)
        return hidden | self.disabled if self.disabled else hidden

    def seen(self, assigns: Mapping[str, Any]) -> tuple[frozenset[tuple[str, int]], bool]:
        """What the caller with ``assigns`` sees now, to compare (a listen stream tells it of
        a change only when this moved): its visible names and entries, and whether some
        item is hidden from it."""
        hidden = self.hidden_for(assigns)
        visible = frozenset((n, id(e)) for n, e in self.entries.items() if n not in hidden)
        return visible, bool(hidden)

    def _decided(self) -> Iterable[tuple[str, E, Any, Any]]:
        return ((name, e, e.behaviour, e.arg) for name, e in self.entries.items())

    def list(
        self, params: Mapping[str, Any], visible: Callable[[E], bool] | None = None
    ) -> dict[str, Any]:
        """One page of the list result, items sorted by name; pages built once per change.

        ``visible`` (auth: may this caller use the item?) hides items; the pages of each set
        of hidden items are built once too (:class:`PageSets`).
        """
        return self._pages.page(hidden_keys(self.entries, visible), params.get("cursor"))

    def list_visible(
        self, request: Request, meta: dict[str, Any], assigns: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The list method's handler: one page of the items the caller may see (with OAuth,
        those whose scopes it holds; then the visibility hooks: :meth:`hidden_for`). With
        SEP-2792 languages, a caller that states a preference gets the pages of the language
        negotiated (built and cached once per language, as the others)."""
        pages, languages = self._pages, self.languages
        if languages is not None and languages.available:
            language = languages.negotiate(accepted_languages(meta))
            if language is not None:
                pages = self._localized.get(language) or self._localized.setdefault(
                    language, PageSets(functools.partial(self._build, language=language))
                )
        return pages.page(self.hidden_for(assigns, meta), request.params.get("cursor"))

    def listed(self, entry: E, hidden: frozenset[str]) -> dict[str, Any]:
        """The list item of ``entry`` for a caller from whom ``hidden`` is hidden (its
        descriptor; a catalog whose items hide parts of themselves overrides it)."""
        return entry.descriptor

    def _build(self, hidden: frozenset[str], language: str | None = None) -> Pages:
        entries = sorted(
            (e for e in self.entries.values() if e.name not in hidden), key=lambda e: e.name
        )
        meta, items = self._result_meta, [self.listed(entry, hidden) for entry in entries]
        if language is not None and self.languages is not None:
            meta = {**meta, CONTENT_LANGUAGE_META: language}
            items = [_titled(item, self.languages.title(language, e.name))
                     for item, e in zip(items, entries, strict=True)]  # fmt: skip
        return Pages(
            self.method,
            self.key,
            items,
            merge_cache(entry.cache_control() for entry in entries),
            self.page_size,
            self._sealer,
            meta,
        )


def _titled(descriptor: dict[str, Any], title: str | None) -> dict[str, Any]:
    """``descriptor`` with ``title`` (and its annotations' title, when it has one); as it is
    without a title in that language."""
    if title is None:
        return descriptor
    titled = {**descriptor, "title": title}
    annotations = descriptor.get("annotations")
    if isinstance(annotations, Mapping) and "title" in annotations:
        titled["annotations"] = {**annotations, "title": title}
    return titled

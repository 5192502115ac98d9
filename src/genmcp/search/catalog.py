"""``CatalogSearch``: search a Suite's tools (and prompts) by words, seeing only what the
caller may see, then load the full definitions of the ones it picks.

A client facing 1,000 tools pays for every description when it lists them all. Given to a
Suite (``Suite(mounts=[CatalogSearch()])``, or ``search.attach(suite)``), it serves two
tools of its own (``genmcp.search.tools``): ``search_tools`` (words in; names, titles and
a short description of the best matches out) and ``describe_tools`` (names in; their
``tools/list`` definitions out). ``tools/list`` is unchanged: a client may still list.

What a caller gets is what ``tools/list`` and ``prompts/list`` would show it: the same
decision (``genmcp.visibility``: OAuth scopes, the items' ``visible`` hooks, the Suite's
policy), and the tenant's own Suite under ``mcp_tenants``. A hidden item is never returned,
and describing one is answered as describing a name that does not exist.

With ``resources=True`` it searches resources too: the static resources (name, title,
description and URI; every caller sees them, as ``resources/list`` shows them) and the
resource templates (name, title, description and URI template; hidden with their
repository from a caller who may not read it). A hit of either carries its ``uri`` or
``uriTemplate``, which the client reads (``resources/read``); only tools and prompts are
described.

A versioned tool (``genmcp.versioned``) is indexed once per version, so a beta's words find
it only for the callers who may run the beta; a hit and a describe show the caller's own
listing of it (the versions it may run, the newest of them described).

One index per Suite (``genmcp.search.index.BM25Index``, over names, titles, descriptions
and argument names), built when first searched and again after the catalog changed (its
``generation`` moved). A build runs in a worker thread (10,000 tools: about half a second
of CPU) and concurrent searches share it. Across processes (a shared broker) a search
first applies the changes other processes logged that this one has not applied yet
(``Suite.catalog_refresh``: one read of the shared catalog's log per search), so a tool
added, removed, disabled or enabled elsewhere, once that change was synced
(``await suite.catalog_synced()``), is found or not found at once, whatever the process,
even when its event has not reached this process yet (or never will: its origin died
between logging and publishing). ``describe_tools`` re-reads the log the same way. The
plain ``tools/list`` and ``tools/call`` do not pay that read on every request: they apply
a change when its event arrives (``tools/call`` re-reads the log on a name it does not
serve: read after write for an added tool).

Imports genmcp's core (Suite, catalogs); no web framework.
"""

from __future__ import annotations

import asyncio
from collections.abc import Container, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from genmcp.catalogs.listing import Catalog
from genmcp.catalogs.resources import ResourceCatalog
from genmcp.protocol.methods import PROMPTS_LIST_CHANGED, TOOLS_LIST_CHANGED
from genmcp.search.index import BM25Index
from genmcp.search.tools import DescribeTools, SearchTools
from genmcp.transforms.versions import VersionSet
from genmcp.visibility import PART, part_key

if TYPE_CHECKING:
    from genmcp.suite import Suite

__all__ = ["MAX_LIMIT", "CatalogSearch"]

MAX_LIMIT: Final = 50
"""The most hits one search returns."""
_KINDS: Final = {"tool": TOOLS_LIST_CHANGED, "prompt": PROMPTS_LIST_CHANGED}
RESOURCE_KINDS: Final = ("resource", "resource_template")
"""The kinds of hits ``resources=True`` adds: static resources and resource templates."""

Document = tuple[str, str, str, str]
Found = tuple[str, Mapping[str, Any]]
"""A resource document's owner (a template's repository key, "" for a static resource)
and its list item."""


class _Hidden(Container[str]):
    """Index keys (``kind:name``) hidden from one caller, from each catalog's hidden set
    (a resource document's by its owner's key, in ``found``)."""

    __slots__ = ("_by_kind", "_found")

    def __init__(self, by_kind: Mapping[str, Container[str]], found: Mapping[str, Found]) -> None:
        self._by_kind, self._found = by_kind, found

    def __contains__(self, key: object) -> bool:
        kind, _, name = str(key).partition(":")
        hidden = self._by_kind.get(kind)
        if hidden is None:
            return True  # a kind not asked for
        if kind in RESOURCE_KINDS:
            owner = self._found[str(key)][0]
            return bool(owner) and owner in hidden
        if name in hidden:
            return True
        # one version of a tool (``name/version``): hidden with the tool too
        return kind == "tool" and PART in name and name.partition(PART)[0] in hidden


class CatalogSearch:
    """Search over one Suite's catalog: give it to ``Suite(mounts=[...])`` (or ``attach``).

    Args:
        prompts: search prompts too (hits say their ``kind``).
        resources: search static resources and resource templates too.
        limit: hits returned when the caller does not say (at most :data:`MAX_LIMIT`).
        snippet_chars: how much of each hit's description a search returns.
        search_name, describe_name: the names of the two tools it serves.
    """

    def __init__(
        self,
        *,
        prompts: bool = True,
        resources: bool = False,
        limit: int = 10,
        snippet_chars: int = 160,
        search_name: str = "search_tools",
        describe_name: str = "describe_tools",
    ) -> None:
        if not 1 <= limit <= MAX_LIMIT or snippet_chars < 0:
            raise ValueError(f"CatalogSearch: 1 <= limit <= {MAX_LIMIT}, snippet_chars >= 0")
        self.kinds: tuple[str, ...] = ("tool", "prompt") if prompts else ("tool",)
        if resources:
            self.kinds += RESOURCE_KINDS
        self.limit, self.snippet_chars = limit, snippet_chars
        self.search_name, self.describe_name = search_name, describe_name
        self._suite: Suite | None = None
        self._index: BM25Index | None = None
        self._built_at: tuple[int, ...] = ()
        self._extra = 0  # documents beyond one per item (a versioned tool's versions)
        self._found: dict[str, Found] = {}  # the resource documents, of the index's generation
        self._building: asyncio.Future[BM25Index] | None = None
        self.builds = 0
        """How many times the index was built (once per catalog change that a search saw)."""

    # -- Mountable: what a Suite calls ------------------------------------------------

    def attach(self, suite: Suite) -> None:
        """Serve the two search tools in ``suite`` (on every process: configuration)."""
        if self._suite is not None:
            raise ValueError("a CatalogSearch serves one Suite; make one per Suite")
        self._suite = suite
        suite.add_tool((SearchTools, self), local=True)
        suite.add_tool((DescribeTools, self), local=True)

    async def start(self, suite: Suite) -> None:
        """Nothing to start: the index is built when first searched."""

    async def aclose(self) -> None:
        """Nothing to release."""

    # -- searching -----------------------------------------------------------------------

    def _catalogs(self) -> dict[str, Catalog[Any]]:
        suite = self._suite
        if suite is None:
            raise RuntimeError("CatalogSearch: give it to a Suite (mounts=[...]) first")
        lists = suite.seen_lists
        found = {kind: lists[method] for kind, method in _KINDS.items() if kind in self.kinds}
        return {kind: c for kind, c in found.items() if isinstance(c, Catalog)}

    def _resources(self) -> ResourceCatalog | None:
        """The Suite's resource catalog when resources are searched."""
        if self._suite is None or RESOURCE_KINDS[0] not in self.kinds:
            return None
        catalog = self._suite.catalogs.get("resource")
        return catalog if isinstance(catalog, ResourceCatalog) else None

    def _generation(self) -> tuple[int, ...]:
        resources = self._resources()
        own = tuple(catalog.generation for catalog in self._catalogs().values())
        return own if resources is None else (*own, resources.generation)

    async def index(self) -> BM25Index:
        """The index of the catalog as it is now (built in a worker thread when it moved)."""
        generation = self._generation()
        while self._index is None or self._built_at != generation:
            if self._building is None:
                documents, found, extra = self._documents()
                building = asyncio.ensure_future(asyncio.to_thread(BM25Index, documents))
                self._building = building
                try:
                    self._index = await asyncio.shield(building)
                    self._found, self._extra = found, extra
                    self._built_at, self.builds = generation, self.builds + 1
                finally:
                    self._building = None
            else:
                await asyncio.shield(self._building)
            generation = self._generation()
        return self._index

    def _documents(self) -> tuple[list[Document], dict[str, Found], int]:
        """The documents to index, the resource ones' owners and items, and how many
        documents there are beyond one per item."""
        own = {self.search_name, self.describe_name}
        documents: list[Document] = []
        extra = 0
        for kind, catalog in self._catalogs().items():
            for name, entry in catalog.entries.items():
                if kind == "tool" and name in own:
                    continue
                described = _described(catalog, name, entry)
                extra += len(described) - 1
                for key, descriptor in described:
                    documents.append((f"{kind}:{key}", name, _text(descriptor),
                                      " ".join(_arguments(descriptor))))  # fmt: skip
        found: dict[str, Found] = {}
        resources = self._resources()
        if resources is not None:
            for uri, static in resources.statics.items():
                found[f"resource:{uri}"] = ("", static.item())
            for repo_key, repo in resources.repos.items():
                for template in repo.templates:
                    found[f"resource_template:{len(found)}"] = (repo_key, template)
            for key, (_, item) in found.items():
                where = item.get("uri") or item.get("uriTemplate") or ""
                documents.append((key, f"{item.get('name', '')} {where}", _text(item), ""))
        return documents, found, extra

    async def search(
        self,
        query: str,
        assigns: Mapping[str, Any],
        meta: Mapping[str, Any] | None = None,
        *,
        limit: int | None = None,
        kinds: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """The best hits for ``query`` the caller with ``assigns`` may see, best first: each
        ``{"kind", "name", "title"?, "description", "score"}`` (the description cut to
        ``snippet_chars``; a resource's ``uri``, a template's ``uriTemplate``)."""
        limit = self.limit if limit is None else min(max(limit, 1), MAX_LIMIT)
        wanted = set(self.kinds if kinds is None else kinds) & set(self.kinds)
        if self._suite is not None:
            await self._suite.catalog_refresh()  # other processes' changes, applied here now
        index = await self.index()
        catalogs = self._catalogs()
        by_kind: dict[str, frozenset[str]] = {kind: catalog.hidden_for(assigns, meta)
                   for kind, catalog in catalogs.items() if kind in wanted}  # fmt: skip
        resources, found = self._resources(), self._found
        if resources is not None:
            if "resource" in wanted:
                by_kind["resource"] = frozenset()  # static resources: listed to every caller
            if "resource_template" in wanted:
                by_kind["resource_template"] = resources.hidden_for(assigns, meta)
        hits: list[dict[str, Any]] = []
        named: set[str] = set()
        for key, score in index.search(query, limit + self._extra, _Hidden(by_kind, found)):
            kind, _, name = key.partition(":")
            if kind in RESOURCE_KINDS:
                hits.append(_resource_hit(kind, found[key][1], score, self.snippet_chars))
                if len(hits) == limit:
                    break
                continue
            if kind == "tool":
                name = name.partition(PART)[0]  # one version of a versioned tool: the tool
            entry = catalogs[kind].entries.get(name)
            if entry is None or f"{kind}:{name}" in named:
                continue  # removed since the index was built, or found by another version
            named.add(f"{kind}:{name}")
            descriptor = catalogs[kind].listed(entry, by_kind[kind])
            hit: dict[str, Any] = {"kind": kind, "name": name}
            if descriptor.get("title"):
                hit["title"] = descriptor["title"]
            hit["description"] = _snippet(descriptor.get("description") or "", self.snippet_chars)
            hit["score"] = score
            hits.append(hit)
            if len(hits) == limit:
                break
        return hits

    async def describe(
        self,
        names: Sequence[str],
        assigns: Mapping[str, Any],
        meta: Mapping[str, Any] | None = None,
        *,
        kind: str = "tool",
    ) -> dict[str, Any]:
        """The definitions (as ``tools/list`` or ``prompts/list`` gives them) of ``names``
        the caller may see: ``{"tools": [...], "unknown": [...]}`` (``"prompts"`` for
        prompts); a hidden name is unknown, exactly as one that does not exist."""
        suite = self._suite
        catalog = self._catalogs().get(kind)
        if catalog is None or suite is None:
            return {f"{kind}s": [], "unknown": list(names)}
        await suite.catalog_refresh()  # other processes' changes, applied here now
        hidden = catalog.hidden_for(assigns, meta)
        found, unknown = [], []
        for name in dict.fromkeys(names):  # each once, in the order asked
            entry = catalog.entries.get(name)
            if entry is None or name in hidden:
                unknown.append(name)
            else:
                found.append(catalog.listed(entry, hidden))
        return {f"{kind}s": found, "unknown": unknown}


def _described(catalog: Catalog[Any], name: str, entry: Any) -> list[tuple[str, Mapping[str, Any]]]:
    """What to index of one item: its descriptor under its name, or a versioned tool's
    descriptor of each version alone under ``name/version``."""
    versions = entry.arg.versions if isinstance(entry.arg, VersionSet) else ()
    if not versions:
        return [(name, entry.descriptor)]
    keys = {v.version: part_key(name, v.version) for v in versions}
    return [
        (keys[v.version], catalog.listed(entry, frozenset(keys.values()) - {keys[v.version]}))
        for v in versions
    ]


def _text(descriptor: Mapping[str, Any]) -> str:
    return f"{descriptor.get('title') or ''} {descriptor.get('description') or ''}"


def _resource_hit(kind: str, item: Mapping[str, Any], score: float, chars: int) -> dict[str, Any]:
    """A hit of a static resource (its ``uri``) or a template (its ``uriTemplate``)."""
    hit: dict[str, Any] = {"kind": kind, "name": item.get("name", "")}
    where = "uri" if kind == "resource" else "uriTemplate"
    hit[where] = item.get(where, "")
    if item.get("title"):
        hit["title"] = item["title"]
    hit["description"] = _snippet(item.get("description") or "", chars)
    hit["score"] = score
    return hit


def _arguments(descriptor: Mapping[str, Any]) -> list[str]:
    """A tool's argument names (its input schema's properties), or a prompt's."""
    schema = descriptor.get("inputSchema")
    if isinstance(schema, Mapping):
        properties = schema.get("properties")
        return [str(p) for p in properties] if isinstance(properties, Mapping) else []
    arguments = descriptor.get("arguments")
    if isinstance(arguments, list):
        return [str(a.get("name", "")) for a in arguments if isinstance(a, Mapping)]
    return []


def _snippet(text: str, chars: int) -> str:
    """``text`` cut at a word to at most ``chars`` characters (an ellipsis says it was)."""
    if len(text) <= chars:
        return text
    cut = text[: max(chars - 1, 0)].rsplit(" ", 1)[0]
    return cut + "…"

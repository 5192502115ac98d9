"""One catalog across processes: runtime add/remove of tools, prompts and resources.

``tools/list`` must not vary with the process a request lands on. With a shared broker, a
runtime change (``Suite.add_tool``, ``remove_prompt``, ``add_resource``...) is announced as a
versioned change event on the broker topic :data:`CATALOG` and applied by every process
before anyone is told the list changed: the origin publishes the event, then the
``list_changed`` notification, in that order on one connection (a listener that refetches
finds the change on whichever process it asks). Brokers that keep a log (``CatalogLog``:
both of genmcp's) also store the latest event per entry, so a process that starts later, or
reconnects, replays them when it first serves a request.

Read after write: ``await Suite.catalog_synced()`` returns once every change made so far is
in the log and published (a handler that adds a tool awaits it before it answers), and a
process asked for a tool or prompt it does not serve re-reads the log before it refuses
(:meth:`SharedCatalog.refresh`: one round trip on that miss only, then one more look): a
change another process logged is served at once, whether or not its event arrived yet. The hot
path (a served name) costs nothing more.

One change, one ``list_changed``: removing what this process does not serve goes out (and
notifies) only when the log says another process serves it (its event did not arrive here
yet); otherwise nothing changed anywhere and nobody is told (a toggle that tries a removal
before an add sent two notices per add).

An event: ``{"format": 1, "origin", "version", "op": "add"|"remove", "kind": "tool"|
"prompt"|"resource"|"skill", "key", "provider"}``; turning an item off or on
(``Suite.disable``/``enable``) is ``{"op": "disable"|"enable", "kind": "switch", "key":
"<kind>:<name>"}``, logged apart from the item's own add, so a late process replays both.
Changes made before the Suite serves (before its router's lifespan starts or its first
request) are configuration: they stay local. What can travel: a class by its import path
(``module:QualName``; not one defined inside a function) with its ``arg`` as a JSON value,
or a ``StaticResource`` whose fields are JSON (a ``str`` blob, not ``bytes``). Anything else
raises ``ValueError`` with a shared broker, unless added with ``local=True`` (this process
only). Every process must be able to import the class (same code everywhere).

Imports asyncio, importlib and genmcp's storage and resource modules; never a framework.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import importlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol, final, runtime_checkable

from genmcp.catalogs.resources import RepoEntry
from genmcp.protocol.jsonrpc import notification
from genmcp.protocol.methods import PROMPTS_LIST_CHANGED, RESOURCES_LIST_CHANGED, TOOLS_LIST_CHANGED
from genmcp.resources import StaticResource
from genmcp.storage import Broker, Subscription
from genmcp.sync.listen import ChangeFeed

__all__ = [
    "CATALOG",
    "FORMAT",
    "SWITCH",
    "CatalogLog",
    "CatalogSync",
    "SharedCatalog",
    "provider_spec",
]

log = logging.getLogger("genmcp")

CATALOG: Final = "genmcp.catalog"
"""The broker topic of catalog change events."""
FORMAT: Final = 1
"""The change event format version."""
SWITCH: Final = "switch"
"""The kind of an ``enable``/``disable`` event; its key is ``<kind>:<name>``."""


@runtime_checkable
class CatalogLog(Protocol):
    """A broker that keeps the latest catalog event per entry (``version`` increases)."""

    async def record_change(self, key: str, event: dict[str, Any]) -> int:
        """Store ``event`` as the latest for ``key``; its version."""
        ...

    async def changes(self) -> list[dict[str, Any]]:
        """The latest event of every entry, as recorded."""
        ...


def provider_spec(provider: Any) -> dict[str, Any]:
    """How ``provider`` travels; ``ValueError`` says why it cannot."""
    if isinstance(provider, StaticResource):
        fields = dataclasses.asdict(provider)
        _check_json(fields, f"StaticResource {provider.uri!r}")
        return {"static": fields}
    cls, arg = provider if isinstance(provider, tuple) else (provider, None)
    path = f"{cls.__module__}:{cls.__qualname__}"
    if "<locals>" in cls.__qualname__ or _resolve(path) is not cls:
        raise ValueError(f"{path} cannot travel: other processes cannot import it by name")
    _check_json(arg, f"{path}'s arg")
    return {"path": path, "arg": arg}


def provider_of(spec: dict[str, Any]) -> Any:
    """The provider an event names (imports its class)."""
    if "static" in spec:
        return StaticResource(**spec["static"])
    cls = _resolve(spec["path"])
    if cls is None:
        raise ValueError(f"cannot import {spec['path']}")
    return (cls, spec.get("arg"))


def _resolve(path: str) -> Any:
    module, _, qualname = path.partition(":")
    try:
        target: Any = importlib.import_module(module)
        for part in qualname.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError, ValueError):
        return None
    return target


def _check_json(value: Any, what: str) -> None:
    try:
        if json.loads(json.dumps(value)) != value:
            raise ValueError
    except (TypeError, ValueError):
        raise ValueError(f"{what} cannot travel: it is not a JSON value") from None


Apply = Callable[[str, str, str, Any], None]
"""``apply(op, kind, key, provider)``: change the local catalog, notify nobody."""
Notify = Callable[[dict[str, Any]], Awaitable[None]]
Watcher = Callable[[str, str, str, Any], None]
"""Told of each change of a Suite's served set: ``(op, kind, key, provider)``; ``op`` is
``add`` or ``remove`` (``provider`` None), or ``updated`` / ``list_changed`` (resources)."""
"""``notify(notice)``: tell every stream the list changed (``ChangeFeed.announce``)."""


@final
class CatalogSync:
    """Announces this Suite's runtime changes and applies the other processes' ones."""

    __slots__ = (
        "_applied",
        "_apply",
        "_broker",
        "_listener",
        "_notify",
        "_queue",
        "_sender",
        "_start",
        "_sub",
        "origin",
    )

    def __init__(self, broker: Broker, apply: Apply, notify: Notify) -> None:
        self._broker, self._apply = broker, apply
        self._notify = notify
        self.origin = secrets.token_hex(6)
        self._applied: dict[str, int] = {}  # entry -> version applied here
        self._queue: list[tuple[dict[str, Any], dict[str, Any], bool]] = []
        self._sender: asyncio.Task[None] | None = None
        self._start: asyncio.Future[None] | None = None
        self._sub: Subscription | None = None
        self._listener: asyncio.Task[None] | None = None

    @property
    def topics(self) -> int:
        """Broker topics held for the whole process (1 once started, else 0)."""
        return 0 if self._sub is None else 1

    def announce(
        self,
        op: str,
        kind: str,
        key: str,
        spec: dict[str, Any] | None,
        notice: dict[str, Any],
        *,
        unsure: bool = False,
    ) -> None:
        """Queue the event, then ``notice`` (the list_changed notification), on the loop.

        ``unsure``: a removal of what this process did not serve; it goes out only if the
        log says another process serves it (:meth:`_served_elsewhere`)."""
        event = {"format": FORMAT, "origin": self.origin, "op": op, "kind": kind, "key": key}
        event["provider"] = spec
        self._queue.append((event, notice, unsure))
        loop = asyncio.get_running_loop()
        if self._sender is None or self._sender.done():
            self._sender = loop.create_task(self._send(), name="genmcp:catalog")

    async def start(self) -> None:
        """Subscribe, then replay the log (once; later calls wait for the first)."""
        if self._start is None:
            self._start = asyncio.get_running_loop().create_future()
            try:
                self._sub = self._broker.subscribe(CATALOG)
                self._listener = asyncio.get_running_loop().create_task(
                    self._listen(self._sub), name="genmcp:catalog-listener"
                )
                await self._sub.ready()
                if isinstance(self._broker, CatalogLog):
                    for event in await self._broker.changes():
                        self._receive(event)
            except Exception:
                log.exception("replaying the catalog failed; changes from now on still apply")
            finally:
                self._start.set_result(None)
        elif not self._start.done():
            await asyncio.shield(self._start)

    async def flushed(self) -> None:
        """Return once every change announced so far is logged and published."""
        while (sender := self._sender) is not None and not sender.done():
            await asyncio.shield(sender)

    async def refresh(self) -> bool:
        """Apply the logged changes this process has not applied; True once the log was read
        (the caller looks again: this read, or the event it raced with, may have applied the
        change it missed).

        Each caller reads the log itself (one that shared a read begun before its miss could
        miss the change too), like a legacy request's one command. False without a log or
        when it is unreachable (the caller answers as it would have).
        """
        return await self._catch_up("re-reading the catalog log failed") is not None

    def close(self) -> None:
        """Stop applying other processes' changes (at shutdown)."""
        if self._sub is not None:
            self._sub.close()
        if self._listener is not None:
            self._listener.cancel()
        self._sub = self._listener = None

    async def _send(self) -> None:
        while self._queue:
            event, notice, unsure = self._queue.pop(0)
            entry = f"{event['kind']}:{event['key']}"
            try:
                if unsure and not await self._served_elsewhere(event):
                    continue  # served nowhere: nothing changed, nobody is told
                if isinstance(self._broker, CatalogLog):
                    event["version"] = await self._broker.record_change(entry, event)
                    self._applied[entry] = event["version"]
                await self._broker.publish(CATALOG, event)
                await self._notify(notice)
            except Exception:
                log.exception("announcing the catalog change %s failed", entry)

    async def _served_elsewhere(self, event: dict[str, Any]) -> bool:
        """Whether the entry of ``event`` (a removal of what this process did not serve) is
        served by another process: the log's latest event for it is an ``add`` (applied here
        first: then it is removed here too). True without a log, or when it is unreachable
        (the removal goes out, as it would have)."""
        events = await self._catch_up("reading the catalog log failed: the removal goes out")
        if events is None:
            return True
        latest = None
        for logged in events:
            if logged.get("kind") == event["kind"] and logged.get("key") == event["key"]:
                latest = logged
        if latest is None or latest.get("op") != "add":
            return False
        self._apply("remove", event["kind"], event["key"], None)
        return True

    async def _catch_up(self, failed: str) -> list[Any] | None:
        """Read the log and apply what this process has not applied; the logged events in
        version order, or None without a log or when it is unreachable (``failed`` is
        logged)."""
        if not isinstance(self._broker, CatalogLog):
            return None
        try:
            events = await self._broker.changes()
        except Exception:
            log.warning(failed, exc_info=True)
            return None
        for event in events:  # in version order
            self._receive(event)
        return events

    async def _listen(self, subscription: Subscription) -> None:
        while True:
            _topic, event = await subscription.receive()
            self._receive(event)

    def _receive(self, event: Any) -> bool:
        """Apply ``event`` unless it is ours or not newer than what was applied; applied?"""
        if not isinstance(event, dict) or event.get("format") != FORMAT:
            return False
        entry = f"{event.get('kind')}:{event.get('key')}"
        version = event.get("version", 0)
        applied = self._applied.get(entry, 0)
        if event.get("origin") == self.origin or version < applied or 0 < version == applied:
            return False
        self._applied[entry] = version
        try:
            spec = event.get("provider")
            provider = None if spec is None else provider_of(spec)
            self._apply(event["op"], event["kind"], event["key"], provider)
        except Exception:
            log.exception("cannot apply the catalog change %s from another process", entry)
            return False
        return True


_NOTICES: Final = {
    "tool": TOOLS_LIST_CHANGED,
    "prompt": PROMPTS_LIST_CHANGED,
    "resource": RESOURCES_LIST_CHANGED,
    "skill": RESOURCES_LIST_CHANGED,  # skill files are resources; SEP-2640 has no notice of its own
}


@final
class SharedCatalog:
    """The Suite's runtime add/remove for its catalogs, announced when shared.

    Args:
        catalogs: the tool, prompt, resource and skill catalogs by kind (``add``/``remove``).
        feed: the Suite's change feed (local-only changes notify through it).
        broker: the Suite's broker.
        shared: whether other processes use ``broker`` (changes travel only then).
    """

    __slots__ = ("_catalogs", "_feed", "_shared", "provided", "started", "sync", "watchers")

    def __init__(
        self, catalogs: dict[str, Any], feed: ChangeFeed, broker: Broker, *, shared: bool
    ) -> None:
        self._catalogs, self._feed, self._shared = catalogs, feed, shared
        self.sync = CatalogSync(broker, self._apply, feed.announce)
        self.started = not shared  # nothing to replay without other processes
        # what is served, by (kind, key): a Suite mounting this one re-serves it
        self.provided: dict[tuple[str, str], Any] = {}
        self.watchers: list[Watcher] = []  # told of every change here (mounts)

    async def start(self) -> None:
        """Subscribe and replay the log (the Suite's first request awaits it)."""
        if self._shared:
            await self.sync.start()
        self.started = True

    async def refresh(self) -> bool:
        """A name was missed: apply what other processes logged since; True: look again."""
        return self._shared and await self.sync.refresh()

    def add(self, kind: str, provider: Any, *, local: bool) -> Any:
        """Serve ``provider`` here, then on every process (unless ``local``)."""
        travels = self._travels(local)
        spec = provider_spec(provider) if travels else None  # fail before changing anything
        entry = self._catalogs[kind].add(provider)
        key = _key_of(kind, provider, entry)
        self._changed("add", kind, key, spec, travels)
        self._watched("add", kind, key, provider)
        return entry

    def remove(self, kind: str, key: str, *, local: bool) -> bool:
        """Stop serving ``key`` here, then on every process (unless ``local``)."""
        removed: bool = self._catalogs[kind].remove(key)
        travels = self._travels(local)
        if removed or travels:  # another process may still serve it (the log tells)
            self._changed("remove", kind, key, None, travels, unsure=not removed)
        if removed:
            self._watched("remove", kind, key, None)
        return removed

    def switch(self, kind: str, name: str, enabled: bool, *, local: bool) -> bool:
        """Turn ``name`` on or off here, then on every process (unless ``local``); the
        event is logged under ``switch:<kind>:<name>``, apart from the entry's own add."""
        if kind not in ("tool", "prompt"):
            raise ValueError(f"only tools and prompts are turned on and off, not {kind!r}s")
        changed: bool = self._catalogs[kind].switch(name, enabled)
        travels = self._travels(local)
        if changed or travels:
            op = "enable" if enabled else "disable"
            self._changed(op, SWITCH, f"{kind}:{name}", None, travels)
        return changed

    def _watched(self, op: str, kind: str, key: str, provider: Any) -> None:
        """Record the change in ``provided`` and tell the watchers (an outer Suite's mount)."""
        if op == "add":
            self.provided[(kind, key)] = provider
        else:
            self.provided.pop((kind, key), None)
        for watcher in self.watchers:
            watcher(op, kind, key, provider)

    def _loop(self) -> asyncio.AbstractEventLoop | None:
        """Where announcements run: the server's loop (or this one, before any request)."""
        loop = self._feed.loop
        if loop is not None and not loop.is_closed():
            return loop
        try:
            return asyncio.get_running_loop()
        except RuntimeError:  # configuration before the server runs: the same everywhere
            return None

    def _travels(self, local: bool) -> bool:
        # Before the Suite serves (its lifespan started, or a first request came), a change is
        # configuration that every process makes itself: it stays local.
        return self._shared and not local and self.started and self._loop() is not None

    def _changed(
        self,
        op: str,
        kind: str,
        key: str,
        spec: dict[str, Any] | None,
        travels: bool,
        *,
        unsure: bool = False,
    ) -> None:
        notice_of = _NOTICES[key.partition(":")[0] if kind == SWITCH else kind]
        loop = self._loop() if travels else None
        if loop is None:
            self._feed.publish(notice_of)
            return
        notice = notification(notice_of)
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        announce = functools.partial(self.sync.announce, unsure=unsure)
        if running is loop:
            announce(op, kind, key, spec, notice)
        else:  # another thread (a webhook handler, a job): hand it to the server's loop
            loop.call_soon_threadsafe(announce, op, kind, key, spec, notice)

    def _apply(self, op: str, kind: str, key: str, provider: Any) -> None:
        if kind == SWITCH:  # another process turned an item on or off
            target, _, name = key.partition(":")
            self._catalogs[target].switch(name, op == "enable")
            return
        catalog = self._catalogs[kind]
        if catalog.remove(key):
            self._watched("remove", kind, key, None)
        if op == "add":
            catalog.add(provider)
            self._watched("add", kind, key, provider)


def _key_of(kind: str, provider: Any, entry: Any) -> str:
    if kind != "resource":
        return str(entry.name)
    if isinstance(provider, StaticResource):
        return provider.uri
    cls, arg = provider if isinstance(provider, tuple) else (provider, None)
    return str(RepoEntry(cls, arg).key)

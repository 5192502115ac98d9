"""The Suite: serves tools, prompts and resources over MCP, whatever the transport.

It derives the capabilities from what is configured and runs the middleware chain around
its dispatch (``genmcp.dispatch``: a request to its method handler), once ready
(``genmcp.readiness``: the shared catalog replayed, the mounts started). Every request comes
back as a ``Call`` (``genmcp.call``), answered at once or running its job; the transport
drains it through the relay. The work per feature lives in
its catalog (``genmcp.catalogs``: ``tools``, ``prompts``, ``resources``, ``completion``;
``sync.listen``, ``tasks``; together in ``catalogs.served``; the calls in flight in
``call.in_flight``), and each catalog exposes the handlers of its methods: the method
table (method name -> handler) is data built from them (``genmcp.wiring``, with the Suite's
other parts), plus ``server/discover``, which is the Suite's own. Changes of the served set
are published on the broker, for listen and legacy session streams. No transport, no HTTP
status: errors are ``MCPError`` reasons in an ``Answer``. Never imports a web framework.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from genmcp.call.call import Call
from genmcp.call.job import Asker, Response
from genmcp.catalogs.apps import is_view, serves_view
from genmcp.catalogs.prompts import PromptEntry, PromptProvider
from genmcp.catalogs.resources import ResourceProvider
from genmcp.catalogs.skills import SkillGroup, SkillProvider
from genmcp.catalogs.tool_entry import ToolEntry
from genmcp.catalogs.tools import ToolProvider
from genmcp.dispatch import Dispatch
from genmcp.middleware.chain import NO_CONTEXT, Link, Local, MCPRequest, TransportContext, run_chain
from genmcp.outcomes import CacheControl
from genmcp.protocol.icons import checked_icons
from genmcp.protocol.jsonrpc import Request
from genmcp.protocol.languages import Languages
from genmcp.protocol.methods import RESOURCES_LIST_CHANGED, RESOURCES_UPDATED
from genmcp.protocol.versions import MODERN_VERSIONS
from genmcp.readiness import Readiness
from genmcp.storage import Broker, TaskOptions, TaskStore
from genmcp.sync.catalog import Watcher
from genmcp.sync.change_log import ChangeLog
from genmcp.sync.interest import Interest
from genmcp.sync.listen import Seen
from genmcp.transforms.transform import Transform
from genmcp.visibility import Decide, Visibility
from genmcp.wiring import Wiring

__all__ = ["Mountable", "Suite"]

log = logging.getLogger("genmcp")


class Mountable(Protocol):
    """What ``Suite(mounts=...)`` takes: ``genmcp.Mount`` (docs/guides/composition.md)."""

    def attach(self, suite: Suite) -> None:
        """Serve the mounted catalog in ``suite``, and keep it in step from now on."""

    async def start(self, suite: Suite) -> None:
        """Awaited once before ``suite`` answers its first request (a remote mount lists its
        upstream); again after a restart."""

    async def aclose(self) -> None:
        """At shutdown: release what ``start`` opened."""


class Suite:
    """Serves tools, prompts and resources over MCP; transports feed it requests.

    Args:
        server_name: ``serverInfo.name``.
        server_version: ``serverInfo.version``.
        tools: tool classes or ``(ToolClass, arg)`` pairs.
        prompts: prompt classes or ``(PromptClass, arg)`` pairs.
        resources: ``StaticResource`` objects, repository classes or ``(RepoClass, arg)``.
        skills: ``Skill`` / ``SkillRepo`` classes or ``(cls, arg)`` (the Skills extension,
            SEP-2640: docs/guides/skills.md).
        server_title: optional display name.
        server_icons: optional ``Icon`` objects of ``serverInfo`` (checked when built).
        instructions: optional text for the model, sent by ``server/discover``.
        page_size: how many items one page of a list result holds.
        secret_key: key(s) that sign ``requestState`` and cursors (current first);
            default ``GENMCP_SECRET_KEY``, else a random per-process key and a warning.
        request_state_max_age_s: how long a ``requestState`` stays valid.
        audience: who sealed tokens are for (default ``server_name``): another Suite refuses them.
        discover_cache_control: cache hint of ``server/discover``.
        broker: where change notifications and posts to workers in other processes go
            (``genmcp.storage.Broker``); an in-process ``MemoryBroker`` by default.
        schema_options: schema build options for every tool (``formats``,
            ``check_formats``, ``default_dialect``); a tool's own override them key by key.
        middleware: the chain around every request, outermost first (``genmcp.middleware``).
        task_store, task_options: Tasks (docs/guides/tasks.md): where tasks live (memory by
            default), how.
        mounts: ``genmcp.Mount`` objects: another Suite's catalog, or a remote server's,
            served here under a namespace (docs/guides/composition.md).
        visibility: who sees which tools, prompts and resources: a ``Visibility``, or a
            ``decide(caller, item)`` callable (``genmcp.visibility``,
            docs/guides/tenancy.md); the items' own ``visible`` hooks apply without it.
        transforms: ``genmcp.Transform`` objects: rename, re-describe, namespace, hide
            arguments of every tool added, own, mounted or imported (docs/guides/shaping.md).
        strict_catalog: with a shared broker, ``tools/list``, ``tools/call``,
            ``prompts/list`` and ``prompts/get`` first apply the runtime changes other
            processes logged (one read of the log per request): a tool disabled or removed
            elsewhere, once synced there, is refused on every process at once, not only
            once its event arrives (docs/guides/shaping.md).
        sep2792: SEP-2792 (**Draft**) language negotiation: ``True``, or a
            ``genmcp.Languages`` whose languages and titles ``tools/list`` and
            ``prompts/list`` are given in (docs/guides/drafts.md). Off (None) by default.
        lazy_schemas: compile and lint each tool's dict input schema at its first call, not
            when the tool is added (a catalog of many distinct schemas starts in a fraction
            of the time: about 0.27 ms each). A broken schema then fails its tool's calls
            with -32603 naming the tool and the fault (logged), not the build; call
            :meth:`check_schemas` (in CI, or at start-up) for the eager check.
    """

    def __init__(
        self,
        *,
        server_name: str,
        server_version: str,
        tools: Iterable[ToolProvider] = (),
        prompts: Iterable[PromptProvider] = (),
        resources: Iterable[ResourceProvider] = (),
        skills: Iterable[SkillProvider] = (),
        server_title: str | None = None,
        instructions: str | None = None,
        page_size: int = 100,
        secret_key: str | bytes | list[str | bytes] | None = None,
        request_state_max_age_s: float = 1200.0,
        discover_cache_control: CacheControl = ("public", 60_000),
        broker: Broker | None = None,
        audience: str | None = None,
        schema_options: Mapping[str, Any] | None = None,
        server_icons: Sequence[Mapping[str, Any]] | None = None,
        middleware: Sequence[Link] = (),
        task_store: TaskStore | None = None,
        task_options: TaskOptions | None = None,
        mounts: Iterable[Mountable] = (),
        visibility: Visibility | Decide | None = None,
        transforms: Iterable[Transform] = (),
        strict_catalog: bool = False,
        sep2792: Languages | bool | None = None,
        lazy_schemas: bool = False,
    ) -> None:
        if page_size < 1:
            raise ValueError("page_size must be at least 1")
        self.server_info: dict[str, Any] = {"name": server_name, "version": server_version}
        if server_title:
            self.server_info["title"] = server_title
        if server_icons is not None:
            self.server_info["icons"] = checked_icons(server_icons, "Suite(server_icons=...)")
        self.instructions = instructions
        self.page_size = page_size
        self.discover_cache_control = discover_cache_control
        self.supported_versions: tuple[str, ...] = MODERN_VERSIONS
        parts = Wiring(self.server_info, page_size=page_size, secret_key=secret_key,
                       request_state_max_age_s=request_state_max_age_s, audience=audience,
                       broker=broker, visibility=visibility, sep2792=sep2792,
                       schema_options=schema_options, transforms=transforms,
                       lazy_schemas=lazy_schemas, task_store=task_store,
                       task_options=task_options)  # fmt: skip
        self.sealer, self.broker, self._result_meta = parts.sealer, parts.broker, parts.result_meta
        self.visibility, self.sep2792 = parts.visibility, parts.languages
        self._served = served = parts.served
        self._tools, self._prompts = served.tools, served.prompts
        self._resources, self._skills = served.resources, served.skills
        self._changes, self._catalog = parts.changes, parts.catalog
        self.interest = Interest()
        """The resource URIs this process's subscribers hold (a remote mount follows it)."""
        self.middleware: tuple[Link, ...] = tuple(middleware)
        self.tasks, self._in_flight, self._mail = parts.tasks, parts.in_flight, parts.mail
        for tool in tools:
            self.add_tool(tool, local=True)  # configuration: each process has it
        for prompt in prompts:
            self.add_prompt(prompt, local=True)
        for resource in resources:
            self.add_resource(resource, local=True)
        for skill in skills:
            self.add_skill(skill, local=True)
        self._mounts = tuple(mounts)
        for mount in self._mounts:  # after the own catalog: a collision names the mount
            mount.attach(self)
        starts = [functools.partial(mount.start, self) for mount in self._mounts]
        self._readiness = Readiness(self._catalog, starts)
        methods = parts.methods(
            self._discover,
            capabilities=lambda: self.capabilities,
            routes=self.routes_resource,
            lists=self.seen_lists,
            interest=self.interest,
        )
        self._dispatch = Dispatch(methods, readiness=self._readiness, catalog=self._catalog,
                                  changes=self._changes, tasks=self.tasks,
                                  in_flight=self._in_flight, mail=self._mail,
                                  versions=self.supported_versions,
                                  strict=strict_catalog and broker is not None,
                                  languages=self.sep2792 is not None)  # fmt: skip
        self._route = self._dispatch.route  # bound once: the hot path calls it directly

    # -- configuration ------------------------------------------------------------
    #
    # Every change of the served set notifies the listen streams that asked for it.

    def add_tool(self, provider: ToolProvider, *, local: bool = False) -> ToolEntry:
        """Serve one more tool (and its ``view=``); a name already served raises ``ValueError``.
        With a shared broker every process serves it (``sync.catalog``), unless
        ``local``."""
        entry: ToolEntry = self._catalog.add("tool", provider, local=local)
        if entry.view is not None:
            self.add_resource(entry.view, local=True)  # skipped when already served
        return entry

    async def catalog_synced(self) -> None:
        """Return once every runtime change made so far is logged and published to the other
        processes (await it before answering the request that made the change: read after
        write). At once without a shared broker."""
        await self._catalog.sync.flushed()

    async def catalog_refresh(self) -> bool:
        """Apply what other processes changed in the catalog and this one has not applied
        yet (a name it does not serve was asked for: read after write); True once the shared
        log was read (look again), False without one."""
        return await self._catalog.refresh()

    async def changes_published(self) -> None:
        """Return once every change notification made so far (``resource_updated``, a list
        change) is published: with a shared broker, logged and replicated, so every open
        stream gets it, also across a failover. ``StorageUnavailable`` (503) when it could
        not be."""
        await self._changes.flushed()

    def remove_tool(self, name: str, *, local: bool = False) -> bool:
        """Stop serving the tool ``name`` (everywhere unless ``local``); False if not here."""
        return self._catalog.remove("tool", name, local=local)

    def disable(self, name: str, *, kind: str = "tool", local: bool = False) -> bool:
        """Turn the tool (or ``kind="prompt"``) ``name`` off: listed nowhere, called as
        unknown, on every process unless ``local`` (``sync.catalog``); True if it changed."""
        return self._catalog.switch(kind, name, False, local=local)

    def enable(self, name: str, *, kind: str = "tool", local: bool = False) -> bool:
        """Turn ``name`` back on (see :meth:`disable`); True if it changed."""
        return self._catalog.switch(kind, name, True, local=local)

    def check_schemas(self) -> int:
        """Compile and lint every input schema a ``lazy_schemas`` Suite left for first use;
        the first broken one raises as the eager build would (``TypeError``/``ValueError``
        naming the tool class). Returns how many were compiled here."""
        return self._tools.check_schemas()

    def tool(self, name: str) -> ToolEntry | None:
        """The entry of the tool ``name``, if served."""
        return self._tools.entries.get(name)

    def add_prompt(self, provider: PromptProvider, *, local: bool = False) -> PromptEntry:
        """Serve one more prompt; a name already served raises ``ValueError``."""
        entry: PromptEntry = self._catalog.add("prompt", provider, local=local)
        return entry

    def remove_prompt(self, name: str, *, local: bool = False) -> bool:
        """Stop serving the prompt ``name``; False when no such prompt was served."""
        return self._catalog.remove("prompt", name, local=local)

    def add_resource(self, provider: ResourceProvider, *, local: bool = False) -> None:
        """Serve a ``StaticResource`` or a repository (a URI or key already served raises)."""
        if is_view(provider) and serves_view(self._resources, provider):
            return
        self._catalog.add("resource", provider, local=local)

    def remove_resource(self, key: str, *, local: bool = False) -> bool:
        """Stop serving the static resource with URI ``key``, or the repository whose
        ``prefix``/``template`` is ``key``; False when there is none."""
        return self._catalog.remove("resource", key, local=local)

    def add_skill(self, provider: SkillProvider, *, local: bool = False) -> SkillGroup:
        """Serve a ``Skill`` or a ``SkillRepo`` (its files are read and digested now); a skill
        URI already served raises ``ValueError``. Resource list streams hear of it."""
        group: SkillGroup = self._catalog.add("skill", provider, local=local)
        return group

    def remove_skill(self, key: str, *, local: bool = False) -> bool:
        """Stop serving the ``Skill`` whose ``SKILL.md`` URI is ``key``, or the ``SkillRepo``
        whose directory is ``key``; False when there is none."""
        return self._catalog.remove("skill", key, local=local)

    def resource_list_changed(self) -> None:
        """Tell listen streams the resource list changed (a repository's listing moved)."""
        self._changes.publish(RESOURCES_LIST_CHANGED)
        for watcher in self._catalog.watchers:  # a Suite mounting this one hears it too
            watcher("list_changed", "resource", "", None)

    def resource_updated(self, uri: str) -> None:
        """Tell the streams subscribed to ``uri`` that it changed; safe from any thread."""
        self._changes.publish(RESOURCES_UPDATED, {"uri": uri})
        for watcher in self._catalog.watchers:
            watcher("updated", "resource", uri, None)

    def provided(self) -> list[tuple[str, Any]]:
        """What this Suite serves, as ``(kind, provider)`` in the order added (a mount
        re-serves it); ``kind`` is ``tool``, ``prompt``, ``resource`` or ``skill``."""
        return [(kind, provider) for (kind, _), provider in self._catalog.provided.items()]

    def watch(self, watcher: Watcher) -> None:
        """Call ``watcher(op, kind, key, provider)`` on every later change of the served set
        (``add``/``remove``), and on ``updated``/``list_changed`` of resources (mounts)."""
        self._catalog.watchers.append(watcher)

    def log_changes(self, log: ChangeLog) -> None:
        """Log every change notification from now on, in ``log`` (a legacy session's GET
        stream resumes from it; ``LegacyServer`` sets it)."""
        self._changes.log = log

    def required_scopes(self, method: str, target: str) -> tuple[str, ...]:
        """The scopes the tool, prompt or resource ``target`` of ``method`` declares (auth)."""
        return self._served.required_scopes(method, target)

    @property
    def catalogs(self) -> Mapping[str, Any]:
        """The tool, prompt, resource and skill catalogs by kind, to read (a search indexes
        them); change what is served through the Suite's own methods."""
        return self._served.by_kind()

    @property
    def seen_lists(self) -> Mapping[str, Seen]:
        """The catalogs whose list changes reach only callers who see them move, by
        notification method (the listen stream's and the 2025 GET stream's filter)."""
        return self._served.seen_lists

    def resource_repo(self, uri: str) -> tuple[Any, Any] | None:
        """The repository serving ``uri`` and its ``arg``: ``(repo, arg)``, or None when no
        repository claims it (a static resource, or none)."""
        return self._served.resource_repo(uri)

    def routes_resource(self, uri: str) -> bool:
        """True when ``uri`` names a resource this Suite serves (static, or a repo claims it)."""
        return self._served.routes_resource(uri)

    @property
    def capabilities(self) -> dict[str, Any]:
        """ServerCapabilities derived from what is configured."""
        return self._served.capabilities(self.tasks.capabilities(self._tools.serves_tasks))

    def header_params(self, tool: Any) -> Mapping[str, str]:
        """The ``x-mcp-header`` parameters of the tool named ``tool`` (argument -> header)."""
        return self._tools.header_params(tool)

    def _discover(self, request: Request, meta: dict[str, Any], assigns: Any) -> Response:
        """``server/discover``: the versions, capabilities and info of this server."""
        scope, ttl = self.discover_cache_control
        result: Response = {
            "resultType": "complete",
            "supportedVersions": list(self.supported_versions),
            "capabilities": self.capabilities,
            "ttlMs": ttl,
            "cacheScope": scope,
            "_meta": self._result_meta,
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    # -- running requests -----------------------------------------------------------

    @property
    def live_workers(self) -> int:
        """How many calls are running right now (tests check this returns to zero)."""
        return self._in_flight.live_workers

    @property
    def live_listeners(self) -> int:
        """How many ``subscriptions/listen`` streams are open."""
        return self._in_flight.live_listeners

    def send(self, worker_id: str, message: Any) -> bool:
        """Post ``message`` to the mailbox of the tool call ``worker_id``; False if it ended."""
        return self._in_flight.send(worker_id, message)

    async def start(self) -> None:
        """At server start (the router's lifespan): the shared broker's own checks (a Redis
        that evicts keys is refused: ``storage.redis.eviction``); with a shared broker, follow
        the other processes' runtime catalog changes and replay the ones made before."""
        self._changes.bind(asyncio.get_running_loop())
        await self.broker.start()  # a shared broker's checks (Redis: eviction)
        await self._catalog.start()
        await self._readiness.wait()  # the mounts start (a remote one lists its upstream)

    def mail_address(self) -> str:
        """This Suite's mail address (worker ids name it); alive from now on (heartbeat)."""
        self._mail.start()
        return self._mail.address

    async def post(self, worker_id: str, message: Any) -> bool:
        """Post ``message`` to the tool call ``worker_id`` here, or through a shared broker to
        the process that runs it (``genmcp.sync.mail``). False when the worker is known gone
        (ended here, or its process is dead); ``storage.InboxFull`` when its process's inbox
        is full; ``StorageUnavailable`` when the shared store is unreachable."""
        return await self._mail.post(worker_id, message)

    async def aclose(self) -> None:
        """At shutdown: answer every live call (a shutdown error; listen streams their
        ``complete`` result), let streams run ``handle_close``, and wait for them (bounded)."""
        self._mail.close()
        self._catalog.sync.close()
        for mount in self._mounts:
            await mount.aclose()
        self._readiness.reset()  # a next lifespan starts the mounts again
        await self.tasks.close()
        await self._in_flight.shutdown(within_s=5)

    async def wait_idle(self, within_s: float) -> bool:
        """Wait until no call runs (listen streams aside); False if some still run after
        ``within_s`` seconds."""
        return await self._in_flight.wait_idle(within_s)

    # -- dispatch -----------------------------------------------------------------

    def check_request(self, request: Request) -> dict[str, Any]:
        """Check a modern request's ``_meta``; return it (errors per the spec digest §5.5)."""
        return self._dispatch.check(request)

    async def handle(
        self,
        request: Request,
        assigns: Mapping[str, Any],
        meta: dict[str, Any] | None = None,
        *,
        asker: Asker | None = None,
        context: TransportContext = NO_CONTEXT,
        local: Local | None = None,
    ) -> Call:
        """Answer one request: a Call, answered at once or running (drain it to read it).

        ``meta`` is the request's already checked ``_meta``; when None it is checked here.
        ``asker`` runs legacy input rounds instead of answering ``input_required``. Protocol
        errors come back as error responses in the Call, never as exceptions. ``middleware``
        wraps it; ``context`` is what the transport knows; ``local`` answers it instead.
        """
        if not self.middleware and local is None:
            return await self._route(request, assigns, meta, asker)
        start = MCPRequest(request, assigns, context, meta)
        return await run_chain(self.middleware, start, self._route, asker, local)

"""The Suite: serves tools, prompts and resources over MCP, whatever the transport.

It routes a parsed JSON-RPC request to its method handler (one dict lookup) and derives the
advertised capabilities from what is configured. The work per feature lives in its catalog:
``tool_catalog.py`` (``tools/list``, a ``Worker`` per ``tools/call``), ``prompt.py``
(``prompts/*``) and ``resource_catalog.py`` (``resources/*``); hooks of prompts and
resources run in a ``OneShot``. The Suite itself answers ``server/discover``,
``completion/complete`` and ``subscriptions/listen``, and publishes a change notification on
its broker whenever the served set changes, which open listen streams (and legacy session
streams) forward. Transports hand it requests whose ``_meta`` they may already have checked,
and drain the ``Pending`` it returns.

Imports genmcp's core and protocol modules; never a web framework.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from genmcp.channel import Channel, Pending
from genmcp.errors import MCPError
from genmcp.mail import MailRelay
from genmcp.oneshot import OneShot, reply_for
from genmcp.prompt import PromptCatalog, PromptEntry, PromptProvider
from genmcp.protocol.jsonrpc import Request, error_response, result_response
from genmcp.protocol.listen import (
    PROMPTS_LIST_CHANGED,
    RESOURCE_UPDATED,
    RESOURCES_LIST_CHANGED,
    TOOLS_LIST_CHANGED,
    Filter,
)
from genmcp.protocol.meta import META_SERVER_INFO, check_meta, meta_of, request_version
from genmcp.protocol.prompts import parse_complete_params
from genmcp.protocol.versions import MODERN_VERSIONS
from genmcp.request_state import RequestStates, principal_of
from genmcp.resource_catalog import ResourceCatalog, ResourceProvider
from genmcp.sealing import Sealer
from genmcp.storage import Broker
from genmcp.storage.memory import MemoryBroker
from genmcp.subscriptions import ChangeFeed, ListenStream
from genmcp.tool import CacheControl
from genmcp.tool_catalog import ToolCatalog, ToolEntry, ToolProvider
from genmcp.worker import Worker

__all__ = ["Suite", "ToolEntry", "ToolProvider", "principal_of"]

log = logging.getLogger("genmcp")

Response = dict[str, Any]
Reply = tuple[Response, int]
"""A JSON-RPC response and the HTTP status it should travel with."""
Handler = Callable[[Request, dict[str, Any], Mapping[str, Any]], Any]


class Suite:
    """Serves tools, prompts and resources over MCP; transports feed it requests.

    Args:
        server_name: ``serverInfo.name``.
        server_version: ``serverInfo.version``.
        tools: tool classes or ``(ToolClass, arg)`` pairs.
        prompts: prompt classes or ``(PromptClass, arg)`` pairs.
        resources: ``StaticResource`` objects, repository classes or ``(RepoClass, arg)``.
        server_title: optional display name.
        instructions: optional text for the model, sent by ``server/discover``.
        page_size: how many items one page of a list result holds.
        secret_key: key(s) that sign ``requestState`` and cursors (current first);
            default ``GENMCP_SECRET_KEY``, else a random per-process key and a warning.
        request_state_max_age_s: how long a ``requestState`` stays valid.
        discover_cache_control: cache hint of ``server/discover``.
        broker: where change notifications and posts to workers in other processes go
            (``genmcp.storage.Broker``); an in-process ``MemoryBroker`` by default.
        schema_options: schema build options for every tool (``formats``,
            ``check_formats``, ``default_dialect``); a tool's own override them key by key.
    """

    def __init__(
        self,
        *,
        server_name: str,
        server_version: str,
        tools: Iterable[ToolProvider] = (),
        prompts: Iterable[PromptProvider] = (),
        resources: Iterable[ResourceProvider] = (),
        server_title: str | None = None,
        instructions: str | None = None,
        page_size: int = 100,
        secret_key: str | bytes | list[str | bytes] | None = None,
        request_state_max_age_s: float = 1200.0,
        discover_cache_control: CacheControl = ("public", 60_000),
        broker: Broker | None = None,
        schema_options: Mapping[str, Any] | None = None,  # schema: issue 21
    ) -> None:
        if page_size < 1:
            raise ValueError("page_size must be at least 1")
        self.server_info: dict[str, Any] = {"name": server_name, "version": server_version}
        if server_title:
            self.server_info["title"] = server_title
        self.instructions = instructions
        self.page_size = page_size
        self.sealer = Sealer.from_config(secret_key, max_age_s=request_state_max_age_s)
        self.discover_cache_control = discover_cache_control
        self.supported_versions: tuple[str, ...] = MODERN_VERSIONS
        self.broker: Broker = MemoryBroker() if broker is None else broker
        self._result_meta = {META_SERVER_INFO: self.server_info}
        states = RequestStates(self.sealer, self._result_meta)
        sealer, result_meta = self.sealer, self._result_meta
        self._tools = ToolCatalog(
            sealer=sealer, states=states, page_size=page_size, result_meta=result_meta
        )
        self._tools.schema_options = schema_options  # schema: issue 21 (checked per tool)
        self._prompts = PromptCatalog(
            sealer=sealer, states=states, page_size=page_size, result_meta=result_meta
        )
        self._resources = ResourceCatalog(
            sealer=sealer, states=states, page_size=page_size, result_meta=result_meta
        )
        self._changes = ChangeFeed(self.broker)
        self._mail = MailRelay(self.broker, self._tools.workers, shared=broker is not None)
        self._calls: set[OneShot] = set()
        self._listeners: set[ListenStream] = set()
        for tool in tools:
            self.add_tool(tool)
        for prompt in prompts:
            self.add_prompt(prompt)
        for resource in resources:
            self.add_resource(resource)
        self._methods: dict[str, Handler] = {
            "server/discover": self._discover,
            "tools/list": self._list_tools,
            "tools/call": self._call_tool,
            "prompts/list": self._list_prompts,
            "prompts/get": self._get_prompt,
            "resources/list": self._list_resources,
            "resources/templates/list": self._list_templates,
            "resources/read": self._read_resource,
            "completion/complete": self._complete,
            "subscriptions/listen": self._listen,
        }

    # -- configuration ------------------------------------------------------------
    #
    # Every change of the served set notifies the listen streams that asked for it.

    def add_tool(self, provider: ToolProvider) -> ToolEntry:
        """Serve one more tool; a name already served raises ``ValueError``."""
        entry = self._tools.add(provider)
        self._changes.publish(TOOLS_LIST_CHANGED)
        return entry

    def remove_tool(self, name: str) -> bool:
        """Stop serving the tool ``name``; False when no such tool was served."""
        removed = self._tools.remove(name)
        if removed:
            self._changes.publish(TOOLS_LIST_CHANGED)
        return removed

    def tool(self, name: str) -> ToolEntry | None:
        """The entry of the tool ``name``, if served."""
        return self._tools.entries.get(name)

    def add_prompt(self, provider: PromptProvider) -> PromptEntry:
        """Serve one more prompt; a name already served raises ``ValueError``."""
        entry = self._prompts.add(provider)
        self._changes.publish(PROMPTS_LIST_CHANGED)
        return entry

    def remove_prompt(self, name: str) -> bool:
        """Stop serving the prompt ``name``; False when no such prompt was served."""
        removed = self._prompts.remove(name)
        if removed:
            self._changes.publish(PROMPTS_LIST_CHANGED)
        return removed

    def add_resource(self, provider: ResourceProvider) -> None:
        """Serve a ``StaticResource`` or a repository (a URI or key already served raises)."""
        self._resources.add(provider)
        self._changes.publish(RESOURCES_LIST_CHANGED)

    def remove_resource(self, key: str) -> bool:
        """Stop serving the static resource with URI ``key``, or the repository whose
        ``prefix``/``template`` is ``key``; False when there is none."""
        removed = self._resources.remove(key)
        if removed:
            self._changes.publish(RESOURCES_LIST_CHANGED)
        return removed

    def resource_list_changed(self) -> None:
        """Tell listen streams the resource list changed (a repository's listing moved)."""
        self._changes.publish(RESOURCES_LIST_CHANGED)

    def resource_updated(self, uri: str) -> None:
        """Tell the streams subscribed to ``uri`` that it changed; safe from any thread."""
        self._changes.publish(RESOURCE_UPDATED, {"uri": uri})

    def routes_resource(self, uri: str) -> bool:
        """True when ``uri`` names a resource this Suite serves (static, or a repo claims it)."""
        try:
            return self._resources.route(uri) is not None
        except Exception:
            log.exception("parse_uri failed for %r", uri)
            return False

    @property
    def capabilities(self) -> dict[str, Any]:
        """ServerCapabilities derived from what is configured."""
        capabilities: dict[str, Any] = {}
        if self._tools:
            capabilities["tools"] = {"listChanged": True}
        if self._prompts:
            capabilities["prompts"] = {"listChanged": True}
        if self._resources:
            capabilities["resources"] = {"subscribe": True, "listChanged": True}
        if self._prompts.completes or self._resources.completes:
            capabilities["completions"] = {}
        return capabilities

    # -- running requests -----------------------------------------------------------

    @property
    def live_workers(self) -> int:
        """How many calls are running right now (tests check this returns to zero)."""
        return len(self._tools.workers) + len(self._calls)

    @property
    def live_listeners(self) -> int:
        """How many ``subscriptions/listen`` streams are open."""
        return len(self._listeners)

    def send(self, worker_id: str, message: Any) -> bool:
        """Post ``message`` to the mailbox of the worker ``worker_id``; False if it ended."""
        worker = self._tools.workers.get(worker_id)
        return worker is not None and worker.mailbox.send(message)

    async def post(self, worker_id: str, message: Any) -> None:
        """Post ``message`` to the worker ``worker_id`` here, or through a shared broker to
        the process that runs it (``genmcp.mail``); dropped if it ended."""
        await self._mail.post(worker_id, message)

    async def aclose(self) -> None:
        """At shutdown: disconnect every live call, end every listen stream gracefully."""
        self._mail.close()
        for worker in list(self._tools.workers.values()):
            worker.disconnect()
        for call in list(self._calls):
            call.disconnect()
        for stream in list(self._listeners):
            stream.end()

    # -- dispatch -----------------------------------------------------------------

    def check_request(self, request: Request) -> dict[str, Any]:
        """Check a modern request's ``_meta``; return it (errors per the spec digest §5.5)."""
        meta = meta_of(request.params)
        request_version(meta, self.supported_versions)
        check_meta(meta)
        return meta

    async def handle(
        self,
        request: Request,
        assigns: Mapping[str, Any],
        meta: dict[str, Any] | None = None,
    ) -> Reply | Pending:
        """Answer one request: a ``(response, status)`` now, or a running ``Pending``.

        ``meta`` is the request's already checked ``_meta``; when None it is checked here.
        Protocol errors come back as error responses, never as exceptions.
        """
        self._changes.bind(asyncio.get_running_loop())
        try:
            if meta is None:
                meta = self.check_request(request)
            handler = self._methods.get(request.method)
            if handler is None:
                raise MCPError("method_not_found", f"Method not found: {request.method}")
            answer = handler(request, meta, assigns)
            if isinstance(answer, dict):
                return result_response(request.id, answer), 200
            pending: Pending = answer
            return pending
        except MCPError as exc:
            return error_response(request.id, exc), exc.status

    def _discover(self, request: Request, meta: dict[str, Any], assigns: Any) -> Response:
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

    def _require(self, served: bool, request: Request) -> None:
        """A method of a capability not advertised is "method not found" (spec digest §2)."""
        if not served:
            raise MCPError("method_not_found", f"Method not found: {request.method}")

    def _one_shot(
        self,
        request: Request,
        meta: dict[str, Any],
        assigns: Mapping[str, Any],
        answer: Callable[[Channel], Awaitable[Response]],
    ) -> OneShot:
        call = OneShot(
            name=request.method,
            meta=meta,
            assigns=assigns,
            answer=lambda channel: reply_for(request.id, request.method, answer(channel)),
            on_end=self._calls.discard,
        )
        self._calls.add(call)
        return call

    # -- tools ----------------------------------------------------------------------

    def _list_tools(self, request: Request, meta: dict[str, Any], assigns: Any) -> Response:
        return self._tools.list(request.params)

    def _call_tool(
        self, request: Request, meta: dict[str, Any], assigns: Mapping[str, Any]
    ) -> Worker:
        self._mail.start()  # from the first call on, posts from other processes reach ours
        return self._tools.call(request, meta, assigns)

    # -- prompts --------------------------------------------------------------------

    def _list_prompts(self, request: Request, meta: dict[str, Any], assigns: Any) -> Response:
        self._require(bool(self._prompts), request)
        return self._prompts.list(request.params)

    def _get_prompt(self, request: Request, meta: dict[str, Any], assigns: Any) -> OneShot:
        self._require(bool(self._prompts), request)
        return self._one_shot(
            request,
            meta,
            assigns,
            lambda channel: self._prompts.get(request.params, meta, assigns, channel),
        )

    # -- resources ------------------------------------------------------------------

    def _list_resources(self, request: Request, meta: dict[str, Any], assigns: Any) -> OneShot:
        self._require(bool(self._resources), request)
        return self._one_shot(
            request, meta, assigns, lambda channel: self._resources.list(request.params, channel)
        )

    def _list_templates(self, request: Request, meta: dict[str, Any], assigns: Any) -> Response:
        self._require(bool(self._resources), request)
        return self._resources.templates(request.params)

    def _read_resource(self, request: Request, meta: dict[str, Any], assigns: Any) -> OneShot:
        self._require(bool(self._resources), request)
        return self._one_shot(
            request,
            meta,
            assigns,
            lambda channel: self._resources.read(request.params, meta, assigns, channel),
        )

    # -- completion/complete ----------------------------------------------------------

    def _complete(self, request: Request, meta: dict[str, Any], assigns: Any) -> OneShot:
        self._require(self._prompts.completes or self._resources.completes, request)
        kind, target, argument, value, context = parse_complete_params(request.params)

        async def answer(channel: Channel) -> Response:
            if kind == "ref/prompt":
                result = await self._prompts.complete(target, argument, value, context)
            else:
                result = await self._resources.complete(target, argument, value, context)
            return {**result, "resultType": "complete", "_meta": self._result_meta}

        return self._one_shot(request, meta, assigns, answer)

    # -- subscriptions/listen ---------------------------------------------------------

    def _listen(self, request: Request, meta: dict[str, Any], assigns: Any) -> ListenStream:
        requested = Filter.parse(request.params)
        advertised = self.capabilities
        kinds = (
            (TOOLS_LIST_CHANGED, "tools"),
            (PROMPTS_LIST_CHANGED, "prompts"),
            (RESOURCES_LIST_CHANGED, "resources"),
        )
        methods = frozenset(method for method, cap in kinds if cap in advertised)
        subscribable = "resources" in advertised
        honored = requested.narrowed(
            methods, lambda uri: subscribable and self.routes_resource(uri)
        )
        stream = ListenStream(
            request_id=request.id,
            honored=honored,
            broker=self.broker,
            result_meta=self._result_meta,
            on_end=self._listeners.discard,
        )
        self._listeners.add(stream)
        return stream

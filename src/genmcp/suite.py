"""The Suite: serves tools, prompts and resources over MCP, whatever the transport.

It routes a request to its method handler and derives the capabilities from what is
configured. Every request comes back as a ``Call`` (``genmcp._suite.call``), answered at once
or running its job; the transport drains it through the relay. The work per feature lives in
its catalog (``genmcp._suite``). Changes of the served set are published on the broker, for
listen and legacy session streams. No transport, no HTTP status: errors are ``MCPError``
reasons in an ``Answer``. Never imports a web framework.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Final

from genmcp._suite.call import Asker, Call, HookJob, Job
from genmcp._suite.listen import ChangeFeed, ListenJob, honored_filter
from genmcp._suite.mail import MailRelay
from genmcp._suite.prompts import PromptCatalog, PromptEntry, PromptProvider
from genmcp._suite.request_state import RequestStates, principal_of
from genmcp._suite.resources import ResourceCatalog, ResourceProvider
from genmcp._suite.tasks import TaskService
from genmcp._suite.tools import ToolCatalog, ToolEntry, ToolProvider
from genmcp.channel import Channel
from genmcp.errors import MCPError
from genmcp.events import Answer
from genmcp.outcomes import CacheControl
from genmcp.protocol.jsonrpc import Request, error_response, result_response
from genmcp.protocol.listen import (
    PROMPTS_LIST_CHANGED,
    RESOURCE_UPDATED,
    RESOURCES_LIST_CHANGED,
    TOOLS_LIST_CHANGED,
)
from genmcp.protocol.meta import META_SERVER_INFO, check_meta, meta_of, request_version
from genmcp.protocol.prompts import parse_complete_params
from genmcp.protocol.versions import MODERN_VERSIONS
from genmcp.sealing import Sealer
from genmcp.storage import Broker
from genmcp.storage.memory import MemoryBroker
from genmcp.storage.tasks import TaskOptions, TaskStore

__all__ = ["Suite", "ToolEntry", "ToolProvider", "principal_of"]

log = logging.getLogger("genmcp")

Response = dict[str, Any]
Handler = Callable[[Request, dict[str, Any], Mapping[str, Any]], "Job | Response"]
LISTEN: Final = "subscriptions/listen"
TOOLS_CALL: Final = "tools/call"


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
        audience: who sealed tokens are for (default ``server_name``): another Suite refuses them.
        discover_cache_control: cache hint of ``server/discover``.
        broker: where change notifications and posts to workers in other processes go
            (``genmcp.storage.Broker``); an in-process ``MemoryBroker`` by default.
        schema_options: schema build options for every tool (``formats``,
            ``check_formats``, ``default_dialect``); a tool's own override them key by key.
        task_store, task_options: Tasks (README): where tasks live (memory by default), how.
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
        audience: str | None = None,
        schema_options: Mapping[str, Any] | None = None,
        task_store: TaskStore | None = None,
        task_options: TaskOptions | None = None,
    ) -> None:
        if page_size < 1:
            raise ValueError("page_size must be at least 1")
        self.server_info: dict[str, Any] = {"name": server_name, "version": server_version}
        if server_title:
            self.server_info["title"] = server_title
        self.instructions = instructions
        self.page_size = page_size
        self.sealer = Sealer.from_config(
            secret_key, max_age_s=request_state_max_age_s, audience=audience or server_name
        )
        self.discover_cache_control = discover_cache_control
        self.supported_versions: tuple[str, ...] = MODERN_VERSIONS
        self.broker: Broker = MemoryBroker() if broker is None else broker
        self._result_meta = {META_SERVER_INFO: self.server_info}
        states = RequestStates(self.sealer, self._result_meta)
        sealer, result_meta = self.sealer, self._result_meta
        self._tools = ToolCatalog(
            sealer=sealer, states=states, page_size=page_size, result_meta=result_meta
        )
        self._tools.schema_options = schema_options  # merged under each tool's own
        self._prompts = PromptCatalog(
            sealer=sealer, states=states, page_size=page_size, result_meta=result_meta
        )
        self._resources = ResourceCatalog(
            sealer=sealer, states=states, page_size=page_size, result_meta=result_meta
        )
        self._changes = ChangeFeed(self.broker)
        self.tasks = TaskService(task_store, task_options, self.broker, self._result_meta)
        self._workers: dict[str, Call] = {}  # tools/call in flight, by call id
        self._calls: dict[str, Call] = {}  # every other request in flight
        self._mail = MailRelay(self.broker, self._workers, shared=broker is not None)
        for tool in tools:
            self.add_tool(tool)
        for prompt in prompts:
            self.add_prompt(prompt)
        for resource in resources:
            self.add_resource(resource)
        self._methods: dict[str, Handler] = {
            "server/discover": self._discover,
            "tools/list": self._list_tools,
            TOOLS_CALL: self._call_tool,
            "prompts/list": self._list_prompts,
            "prompts/get": self._get_prompt,
            "resources/list": self._list_resources,
            "resources/templates/list": self._list_templates,
            "resources/read": self._read_resource,
            "completion/complete": self._complete,
            LISTEN: self._listen,
            **self.tasks.handlers(lambda: self._tools.serves_tasks),
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

    def required_scopes(self, method: str, target: str) -> tuple[str, ...]:
        """The scopes the tool, prompt or resource ``target`` of ``method`` declares (auth)."""
        if method == "tools/call":
            tool = self._tools.entries.get(target)
            return () if tool is None else tool.tool.required_scopes(tool.arg)
        if method == "prompts/get":
            prompt = self._prompts.entries.get(target)
            return () if prompt is None else prompt.prompt.required_scopes(prompt.arg)
        if method == "resources/read":
            try:
                found = self._resources.route(target)
            except Exception:
                return ()
            return () if found is None else found[0].repo.required_scopes(found[0].arg)
        return ()

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
        capabilities.update(self.tasks.capabilities(self._tools.serves_tasks))
        return capabilities

    def header_params(self, tool: Any) -> Mapping[str, str]:
        """The ``x-mcp-header`` parameters of the tool named ``tool`` (argument -> header)."""
        return self._tools.header_params(tool)

    # -- running requests -----------------------------------------------------------

    def _running(self) -> list[Call]:
        calls = (*self._workers.values(), *self._calls.values())
        return [call for call in calls if call.request.method != LISTEN]

    @property
    def live_workers(self) -> int:
        """How many calls are running right now (tests check this returns to zero)."""
        return len(self._running())

    @property
    def live_listeners(self) -> int:
        """How many ``subscriptions/listen`` streams are open."""
        return len(self._workers) + len(self._calls) - self.live_workers

    def send(self, worker_id: str, message: Any) -> bool:
        """Post ``message`` to the mailbox of the tool call ``worker_id``; False if it ended."""
        call = self._workers.get(worker_id)
        return call is not None and call.mailbox.send(message)

    async def post(self, worker_id: str, message: Any) -> None:
        """Post ``message`` to the tool call ``worker_id`` here, or through a shared broker to
        the process that runs it (``genmcp._suite.mail``); dropped if it ended."""
        await self._mail.post(worker_id, message)

    async def aclose(self) -> None:
        """At shutdown: answer every live call (a shutdown error; listen streams their
        ``complete`` result), let streams run ``handle_close``, and wait for them (bounded)."""
        self._mail.close()
        await self.tasks.close()
        calls = [*self._workers.values(), *self._calls.values()]
        for call in calls:
            call.shutdown()
        if calls:
            await asyncio.wait([asyncio.ensure_future(call.wait()) for call in calls], timeout=5)

    async def wait_idle(self, within_s: float) -> bool:
        """Wait until no call runs (listen streams aside); False if some still run after
        ``within_s`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within_s
        while (running := self._running()) and (remaining := deadline - loop.time()) > 0:
            waits = [asyncio.ensure_future(call.wait()) for call in running]
            _, pending = await asyncio.wait(waits, timeout=remaining)
            for wait in pending:
                wait.cancel()
        return not running

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
        *,
        asker: Asker | None = None,
    ) -> Call:
        """Answer one request: a Call, answered at once or running (drain it to read it).

        ``meta`` is the request's already checked ``_meta``; when None it is checked here.
        ``asker`` runs legacy input rounds instead of answering ``input_required``. Protocol
        errors come back as error responses in the Call, never as exceptions.
        """
        self._changes.bind(asyncio.get_running_loop())
        try:
            if meta is None:
                meta = self.check_request(request)
            handler = self._methods.get(request.method)
            if handler is None:
                raise MCPError("method_not_found", f"Method not found: {request.method}")
            made = handler(request, meta, assigns)
            task = await self.tasks.opened(request, made, meta, assigns)  # a task, or None
        except MCPError as exc:
            return Call.answered(request, Answer(error_response(request.id, exc), exc.reason))
        if not isinstance(made, Job):
            return Call.answered(request, Answer(result_response(request.id, made)))
        live = self._workers if request.method == TOOLS_CALL else self._calls
        checked_meta = meta

        def again(retry: Request) -> Job | Response:
            return handler(retry, checked_meta, assigns)

        def forget(ended: Call) -> None:
            live.pop(ended.id, None)

        call = Call(
            request,
            made,
            meta=meta,
            assigns=assigns,
            on_end=forget,
            factory=again,
            asker=asker if task is None else task.asker,
        )
        live[call.id] = call
        return call if task is None else self.tasks.run(request, task, call)  # answered now

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

    def _one_shot(self, request: Request, answer: Callable[[Channel], Awaitable[Response]]) -> Job:
        return HookJob(request.method, answer)

    # -- tools ----------------------------------------------------------------------

    def _list_tools(self, request: Request, meta: dict[str, Any], assigns: Any) -> Response:
        held = assigns.get("effective_scopes")  # auth: list only the tools the caller may use
        if held is None:
            return self._tools.list(request.params)
        return self._tools.list(
            request.params, lambda e: set(e.tool.required_scopes(e.arg)) <= held
        )

    def _call_tool(self, request: Request, meta: dict[str, Any], assigns: Mapping[str, Any]) -> Job:
        self._mail.start()  # from the first call on, posts from other processes reach ours
        return self._tools.job(request, meta, assigns)

    # -- prompts --------------------------------------------------------------------

    def _list_prompts(self, request: Request, meta: dict[str, Any], assigns: Any) -> Response:
        self._require(bool(self._prompts), request)
        held = assigns.get("effective_scopes")  # auth: list only the prompts the caller may use
        if held is None:
            return self._prompts.list(request.params)
        return self._prompts.list(
            request.params, lambda e: set(e.prompt.required_scopes(e.arg)) <= held
        )

    def _get_prompt(self, request: Request, meta: dict[str, Any], assigns: Any) -> Job:
        self._require(bool(self._prompts), request)
        return self._one_shot(
            request, lambda channel: self._prompts.get(request.params, meta, assigns, channel)
        )

    # -- resources ------------------------------------------------------------------

    def _list_resources(self, request: Request, meta: dict[str, Any], assigns: Any) -> Job:
        self._require(bool(self._resources), request)
        return self._one_shot(
            request, lambda channel: self._resources.list(request.params, channel)
        )

    def _list_templates(self, request: Request, meta: dict[str, Any], assigns: Any) -> Response:
        self._require(bool(self._resources), request)
        return self._resources.templates(request.params)

    def _read_resource(self, request: Request, meta: dict[str, Any], assigns: Any) -> Job:
        self._require(bool(self._resources), request)
        return self._one_shot(
            request, lambda channel: self._resources.read(request.params, meta, assigns, channel)
        )

    # -- completion/complete ----------------------------------------------------------

    def _complete(self, request: Request, meta: dict[str, Any], assigns: Any) -> Job:
        self._require(self._prompts.completes or self._resources.completes, request)
        kind, target, argument, value, context = parse_complete_params(request.params)

        async def answer(channel: Channel) -> Response:
            if kind == "ref/prompt":
                result = await self._prompts.complete(target, argument, value, context)
            else:
                result = await self._resources.complete(target, argument, value, context)
            return {**result, "resultType": "complete", "_meta": self._result_meta}

        return self._one_shot(request, answer)

    # -- subscriptions/listen ---------------------------------------------------------

    def _listen(self, request: Request, meta: dict[str, Any], assigns: Any) -> Job:
        self.tasks.check_listen(request.params, meta)
        honored = honored_filter(request.params, self.capabilities, self.routes_resource)
        return ListenJob(
            request_id=request.id,
            honored=honored,
            broker=self.broker,
            result_meta=self._result_meta,
        )

"""``Client``: an async MCP client for one server, over Streamable HTTP or stdio, either era.

The era is learned by the first request (:mod:`genmcp.client.connection`: ``server/discover``
at 2026-07-28, a 2025 session as the fallback); ``era`` then says which, ``protocol=`` fixes
it instead of probing. The methods are the protocol's: lists (every page), tools, resources,
prompts, completion, tasks, listening.

Every call takes its own callbacks (progress, logs, raw notifications, ``on_input``) over
the client's; a 2026-07-28 ``input_required`` result is answered and retried (MRTR), a
2025 server's requests on the stream are answered the same way, by the same callbacks.
Cancelling the awaiting task cancels the request on the server: the stream is closed
(2026-07-28 HTTP) or ``notifications/cancelled`` is sent (2025, stdio).

What a server may send is bounded (``limits=ClientLimits(...)``, ``genmcp.client.limits``):
the size of a message, the pages and items of a listing, the time of a call; each bound
crossed raises its ``LimitExceeded``, and the call is cancelled on the server.

``client.skills`` is the Skills extension (:mod:`genmcp.client.skills`). ``cache=`` keeps
cacheable results as the server's ``ttlMs``/``cacheScope`` allow
(:mod:`genmcp.client.cache`); ``cache=False`` on a call bypasses it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import httpx

from genmcp.client.cache import CACHEABLE, CacheStore, ResponseCache
from genmcp.client.connection import Connection, Listener
from genmcp.client.errors import ClientError, ListingTooLong, RPCError
from genmcp.client.exchange import Handlers, answer_all
from genmcp.client.http import HTTPWire
from genmcp.client.inputs import InputHandler, Inputs, RootsSource
from genmcp.client.limits import DEFAULT_LIMITS, ClientLimits, within
from genmcp.client.listen import Subscription
from genmcp.client.session import LegacySession
from genmcp.client.skills import Skills
from genmcp.client.stdio import StdioWire
from genmcp.protocol.client import as_object, header_params, header_problem, is_modern_error
from genmcp.protocol.methods import (
    COMPLETION_COMPLETE,
    PROMPTS_GET,
    PROMPTS_LIST,
    RESOURCES_LIST,
    RESOURCES_READ,
    RESOURCES_TEMPLATES_LIST,
    SERVER_DISCOVER,
    TASKS_CANCEL,
    TASKS_GET,
    TASKS_UPDATE,
    TOOLS_CALL,
    TOOLS_LIST,
)
from genmcp.protocol.tasks import EXTENSION as TASKS_EXTENSION
from genmcp.protocol.versions import LATEST, LEGACY_VERSIONS, META_SERVER_INFO

__all__ = ["DEFAULT_INFO", "Client"]

logger = logging.getLogger("genmcp.client")

DEFAULT_INFO: Final[Mapping[str, str]] = {"name": "genmcp-client", "version": "0"}
TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})


class Client:
    """An MCP client for one server: ``async with Client(url) as client: ...``.

    Args:
        target: the MCP endpoint URL (``http://`` or ``https://``), or a stdio command as a
            list (``["python", "-m", "myserver"]``).
        token: a bearer token for every HTTP request, or a function returning one (sync
            or async, called per request: a refreshed token is picked up).
        headers: extra headers on every HTTP request.
        auth: an ``httpx.Auth`` (an OAuth flow) instead of ``token``.
        http: an ``httpx.AsyncClient`` to share (the client makes its own pool otherwise).
        timeout: seconds a connect or a read may take (HTTP).
        limits: what the server may send and how long a call may take
            (``ClientLimits``: ``max_message_bytes`` 32 MiB, ``max_pages`` 1000,
            ``max_items`` 100,000, ``deadline_s`` 300 s by default).
        protocol: ``"2026-07-28"`` or a 2025 revision to skip the probe; None probes.
        elicitation, sampling, roots: what answers the server's requests (each declares its
            capability); ``roots`` may be a list of ``{"uri", "name"}``.
        capabilities: more client capabilities to declare (merged over the callbacks').
        on_progress, on_log, on_notification, on_input: defaults for every call.
        log_level: ask every call for logs from this level (``"info"``...).
        env, cwd: the stdio process's extra environment and working directory.
        cache: keep cacheable results as the server's ``ttlMs``/``cacheScope`` allow
            (``genmcp.client.cache``): True for this client's own memory, or a ``CacheStore``
            to share (``MemoryCacheStore``, ``RedisCacheStore``); False (default) never.
        cache_principal: whose ``"private"`` entries this client shares (a user id); by
            default a digest of a string ``token``, else this client's alone.
    """

    def __init__(
        self,
        target: str | Sequence[str],
        *,
        token: str | Callable[[], Any] | None = None,
        headers: Mapping[str, str] | None = None,
        auth: httpx.Auth | None = None,
        http: httpx.AsyncClient | None = None,
        timeout: float = 60.0,
        protocol: str | None = None,
        client_info: Mapping[str, Any] = DEFAULT_INFO,
        elicitation: InputHandler | None = None,
        sampling: InputHandler | None = None,
        roots: RootsSource | None = None,
        capabilities: Mapping[str, Any] | None = None,
        on_progress: Any = None,
        on_log: Any = None,
        on_notification: Any = None,
        on_input: InputHandler | None = None,
        log_level: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        limits: ClientLimits = DEFAULT_LIMITS,
        cache: bool | CacheStore = False,
        cache_principal: str | None = None,
    ) -> None:
        if protocol is not None and protocol != LATEST and protocol not in LEGACY_VERSIONS:
            known = ", ".join((LATEST, *LEGACY_VERSIONS))
            raise ValueError(f"protocol {protocol!r} is not one this client speaks ({known})")
        wire: HTTPWire | StdioWire
        if isinstance(target, str):
            parts = httpx.URL(target) if "://" in target else None
            if parts is None or parts.scheme not in ("http", "https") or not parts.host:
                raise ClientError(f"not an http(s) URL: {target!r}")
            wire = HTTPWire(target, http=http, timeout=timeout, auth=auth,
                            max_message_bytes=limits.max_message_bytes)  # fmt: skip
        else:
            wire = StdioWire(list(target), env=env, cwd=cwd,
                             max_message_bytes=limits.max_message_bytes)  # fmt: skip
        self.limits = limits
        """The bounds the server is held to."""
        self.url = wire.url
        """The URL, or the stdio command as one line: what messages name."""
        self.inputs = Inputs(elicitation, sampling, roots)
        self.defaults = Handlers(on_progress, on_log, on_notification, on_input)
        self.connection = Connection(
            wire,
            protocol=protocol,
            capabilities={**self.inputs.capabilities(), **(capabilities or {})},
            client_info=client_info,
            inputs=self.inputs,
            defaults=self.defaults,
            token=token,
            headers=headers,
            limits=limits,
        )
        """The wire, the era and the session: what sends each request."""
        self.log_level = log_level
        self._tool_headers: dict[str, dict[str, str]] = {}
        self.cache: ResponseCache | None = None
        """The response cache (``hits``, ``misses``), or None when off."""
        if cache is not False:
            if cache_principal is None and isinstance(token, str):
                cache_principal = "token\n" + token
            store = None if cache is True else cache
            self.cache = ResponseCache(store, self.url, principal=cache_principal)
            self.connection.add_listener(self.cache.notified)
            self.connection.cache = self.cache  # a kept server/discover answers the probe

    @property
    def era(self) -> str | None:
        """``"2026-07-28"``, the session's 2025 revision, or None before the first request."""
        return self.connection.era

    @property
    def server(self) -> dict[str, Any]:
        """The ``server/discover`` result, or the 2025 ``initialize`` result."""
        return self.connection.server

    @property
    def session(self) -> LegacySession | None:
        """The 2025 session, or None (2026-07-28, or before the first request)."""
        return self.connection.session

    @property
    def capabilities(self) -> dict[str, Any]:
        """The client capabilities every request declares."""
        return self.connection.capabilities

    # -- lifecycle ----------------------------------------------------------------------------

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def connect(self) -> dict[str, Any]:
        """Learn the era and the server (done by the first request anyway); the server result."""
        await self.connection.ensure_era()
        if not self.connection.server and self.session is None:
            self.connection.server = dict(await self.request(SERVER_DISCOVER) or {})
        return self.connection.server

    @property
    def server_info(self) -> dict[str, Any]:
        """The server's ``name``, ``version``... (``_meta`` serverInfo, or the 2025 one)."""
        meta = as_object(self.server.get("_meta"))
        found = self.server.get("serverInfo") or meta.get(META_SERVER_INFO) or {}
        return dict(found) if isinstance(found, Mapping) else {}

    @property
    def server_capabilities(self) -> dict[str, Any]:
        """The capabilities the server declared."""
        found = self.server.get("capabilities")
        return dict(found) if isinstance(found, Mapping) else {}

    @property
    def skills(self) -> Skills:
        """The Skills extension (SEP-2640): list entries, load a skill, read its files,
        each verified against its entry, nothing fetched ahead of need
        (:mod:`genmcp.client.skills`)."""
        return Skills(self)

    async def aclose(self) -> None:
        """End a 2025 session (``DELETE``), stop a stdio server, close the pool."""
        await self.connection.aclose()

    # -- requests -------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        handlers: Handlers | None = None,
        progress: bool = False,
        log_level: str | None = None,
        meta: Mapping[str, Any] | None = None,
        capabilities: Mapping[str, Any] | None = None,
        cache: bool = True,
    ) -> Any:
        """Send one request and return its result (no MRTR retry: see :meth:`call_tool`).

        ``RPCError`` when the server answers with an error; ``ClientError`` when it cannot be
        reached or understood. ``progress`` asks for progress (a ``progressToken``).
        ``cache=False`` bypasses the response cache (neither read nor kept).
        """
        if cache and await self._cacheable(method, params):
            assert self.cache is not None
            body = params or {}
            found, generation = await self.cache.get(method, body)
            if found is not None:
                return found
            result = await self.request(
                method, params, handlers=handlers, progress=progress, log_level=log_level,
                meta=meta, capabilities=capabilities, cache=False,
            )  # fmt: skip
            if generation is not None:
                await self.cache.put(method, body, result, generation)
            return result
        chosen = (handlers or Handlers()).over(self.defaults)
        name = (params or {}).get("name") if method == TOOLS_CALL else None
        for attempt in range(2):
            reply = await self.connection.send(
                method, params, chosen,
                progress=progress or chosen.on_progress is not None
                or chosen.on_notification is not None,
                log_level=log_level or self.log_level, meta=meta, capabilities=capabilities,
                header_params=self._tool_headers.get(str(name)),
            )  # fmt: skip
            error = (reply.message or {}).get("error")
            if error is None:
                return (reply.message or {}).get("result")
            if attempt == 0 and await self._recoverable(method, params, error):
                continue
            raise RPCError.from_error(error, status=reply.status)
        raise AssertionError("unreachable")  # pragma: no cover

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        on_progress: Any = None,
        on_log: Any = None,
        on_notification: Any = None,
        on_input: InputHandler | None = None,
        on_resume: Any = None,
        log_level: str | None = None,
        task: bool = False,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
        meta: Mapping[str, Any] | None = None,
        capabilities: Mapping[str, Any] | None = None,
        max_rounds: int = 16,
    ) -> dict[str, Any]:
        """Call a tool; its result (``CallToolResult``, or ``resultType: "task"``).

        ``input_required`` is answered by ``on_input`` (or the client's callbacks) and the call
        retried; without a callback that can answer, the ``input_required`` result is
        returned as it is (retry with ``input_responses`` and ``request_state``). ``task``
        declares the Tasks extension: the server may answer with a task to poll.
        ``capabilities`` adds client capabilities for this call (2026-07-28; a proxy declares
        what its own client declared, and answers through ``on_input``). ``on_resume`` is
        called when a 2025 server ends the call's stream early and the client resumes it
        (SSE polling: a proxy closes its own client's stream then).
        """
        params: dict[str, Any] = {"name": name, "arguments": dict(arguments or {})}
        extra = dict(capabilities or {})
        if task:
            await self.connection.ensure_era()
            if self.session is not None:
                raise ClientError(f"{self.url} speaks {self.era}: task=True needs 2026-07-28 "
                                  "(the Tasks extension); call without it")  # fmt: skip
            extensions = {**extra.get("extensions", {}), TASKS_EXTENSION: {}}
            extra["extensions"] = extensions
        handlers = Handlers(on_progress, on_log, on_notification, on_input, on_resume)
        return await self._rounds(
            TOOLS_CALL, params, handlers, input_responses, request_state,
            log_level=log_level, meta=meta, capabilities=extra, max_rounds=max_rounds,
        )  # fmt: skip

    async def read_resource(
        self,
        uri: str,
        *,
        on_input: InputHandler | None = None,
        max_rounds: int = 16,
        cache: bool = True,
    ) -> dict[str, Any]:
        """Read one resource; its result (``contents``). ``RPCError`` -32602 when unknown.
        ``cache=False`` bypasses the response cache."""
        handlers = Handlers(on_input=on_input)
        return await self._rounds(
            RESOURCES_READ, {"uri": uri}, handlers, max_rounds=max_rounds, cache=cache
        )

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        on_input: InputHandler | None = None,
        max_rounds: int = 16,
    ) -> dict[str, Any]:
        """Get one prompt with its arguments; its result (``messages``)."""
        params = {"name": name, "arguments": dict(arguments or {})}
        handlers = Handlers(on_input=on_input)
        return await self._rounds(PROMPTS_GET, params, handlers, max_rounds=max_rounds)

    async def complete(
        self,
        ref: Mapping[str, Any],
        argument: str,
        value: str = "",
        context: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Completions for one argument of a prompt (``{"type": "ref/prompt", "name"}``) or a
        resource template (``{"type": "ref/resource", "uri"}``): the ``completion`` object."""
        params: dict[str, Any] = {"ref": dict(ref), "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": dict(context)}
        result = await self.request(COMPLETION_COMPLETE, params)
        completion = (result or {}).get("completion")
        return dict(completion) if isinstance(completion, Mapping) else {"values": []}

    # -- lists ----------------------------------------------------------------------------

    async def page(
        self, method: str, cursor: str | None = None, *, cache: bool = True
    ) -> dict[str, Any]:
        """One page of a list method (``tools/list``...); ``nextCursor`` names the next."""
        params = {} if cursor is None else {"cursor": cursor}
        result = await self.request(method, params, cache=cache)
        return dict(result or {})

    async def list_all(self, method: str, key: str, *, cache: bool = True) -> list[dict[str, Any]]:
        """Every item of a list method, following ``nextCursor`` to the last page.

        One call: the deadline holds for every page together; more than ``max_pages``
        pages or ``max_items`` items is ``ListingTooLong`` (an endless ``nextCursor``)."""
        limits = self.limits
        async with within(limits.deadline_s, self.url, f"{method} (every page)"):
            hits = None if self.cache is None else self.cache.hits
            try:
                return await self._pages(method, key, cache=cache)
            except RPCError:
                if not cache or self.cache is None or self.cache.hits == hits:
                    raise
            # a cached page's cursor the server no longer takes: every page afresh (SEP-2549)
            return await self._pages(method, key, cache=False)

    async def _pages(self, method: str, key: str, *, cache: bool) -> list[dict[str, Any]]:
        """The pages of :meth:`list_all`, followed under its deadline."""
        limits = self.limits
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(limits.max_pages):
            found = await self.page(method, cursor, cache=cache)
            page = found.get(key) or []
            if len(items) + len(page) > limits.max_items:
                raise ListingTooLong(
                    f"{self.url} listed more than the client's {limits.max_items} items "
                    f"in {method} (ClientLimits(max_items=...) changes it)",
                    "max_items",
                    limits.max_items,
                )
            items.extend(page)
            cursor = found.get("nextCursor")
            if not isinstance(cursor, str) or cursor in seen:
                return items
            seen.add(cursor)
        raise ListingTooLong(
            f"{self.url} had more than the client's {limits.max_pages} pages in {method}: "
            "its nextCursor never ends (ClientLimits(max_pages=...) changes it)",
            "max_pages",
            limits.max_pages,
        )

    async def list_tools(self, *, cache: bool = True) -> list[dict[str, Any]]:
        """Every tool, minus those whose ``x-mcp-header`` annotations break the rules.
        ``cache=False`` asks the server even when the cache holds the listing."""
        kept = []
        for tool in await self.list_all(TOOLS_LIST, "tools", cache=cache):
            problem = header_problem(tool.get("inputSchema"))
            if problem is not None:
                logger.warning("%s: dropped tool %r: %s", self.url, tool.get("name"), problem)
                continue
            self._tool_headers[str(tool.get("name"))] = header_params(tool.get("inputSchema"))
            kept.append(tool)
        return kept

    async def list_prompts(self, *, cache: bool = True) -> list[dict[str, Any]]:
        """Every prompt."""
        return await self.list_all(PROMPTS_LIST, "prompts", cache=cache)

    async def list_resources(self, *, cache: bool = True) -> list[dict[str, Any]]:
        """Every resource."""
        return await self.list_all(RESOURCES_LIST, "resources", cache=cache)

    async def list_resource_templates(self, *, cache: bool = True) -> list[dict[str, Any]]:
        """Every resource template."""
        return await self.list_all(RESOURCES_TEMPLATES_LIST, "resourceTemplates", cache=cache)

    # -- tasks (the io.modelcontextprotocol/tasks extension, 2026-07-28) ------------------------

    async def get_task(self, task_id: str) -> dict[str, Any]:
        """The task's record (``status``; ``result``, ``error`` or ``inputRequests``)."""
        return dict(await self.request(TASKS_GET, {"taskId": task_id}) or {})

    async def update_task(self, task_id: str, input_responses: Mapping[str, Any]) -> None:
        """Answer some of a task's outstanding ``inputRequests``."""
        params = {"taskId": task_id, "inputResponses": dict(input_responses)}
        await self.request(TASKS_UPDATE, params)

    async def cancel_task(self, task_id: str) -> None:
        """Ask the server to cancel the task (cooperative: poll to see it end)."""
        await self.request(TASKS_CANCEL, {"taskId": task_id})

    async def wait_task(
        self, task_id: str, *, on_input: InputHandler | None = None, poll: float | None = None
    ) -> dict[str, Any]:
        """Poll the task until it ends, answering its input requests; its final record."""
        handlers = Handlers(on_input=on_input).over(self.defaults)
        answered: set[str] = set()
        while True:
            record = await self.get_task(task_id)
            status = record.get("status")
            if status in TERMINAL:
                return record
            asked = {
                key: ask
                for key, ask in (record.get("inputRequests") or {}).items()
                if key not in answered
            }
            if status == "input_required" and asked:
                responses = await answer_all(asked, handlers, self.inputs)
                if responses is None:
                    return record  # nothing here can answer: the caller decides
                await self.update_task(task_id, responses)
                answered.update(responses)
                continue
            interval = poll if poll is not None else record.get("pollIntervalMs", 200) / 1000
            await asyncio.sleep(min(max(float(interval), 0.01), 5.0))

    # -- listening --------------------------------------------------------------------------

    def listen(
        self,
        *,
        tools: bool = True,
        prompts: bool = True,
        resources: bool = True,
        uris: Sequence[str] = (),
        task_ids: Sequence[str] = (),
    ) -> Subscription:
        """A :class:`~genmcp.client.listen.Subscription` to the server's change notifications:
        ``async with client.listen() as changes: async for note in changes: ...``."""
        wanted = {"toolsListChanged": tools, "promptsListChanged": prompts,
                  "resourcesListChanged": resources}  # fmt: skip
        filters: dict[str, Any] = {key: True for key, on in wanted.items() if on}
        if uris:
            filters["resourceSubscriptions"] = list(uris)
        if task_ids:
            filters["taskIds"] = list(task_ids)
        return Subscription(self, filters)

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Get the change notifications no request claims (2025); returns the remover."""
        return self.connection.add_listener(listener)

    # -- the machinery ----------------------------------------------------------------------

    async def _rounds(
        self,
        method: str,
        params: dict[str, Any],
        handlers: Handlers,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
        *,
        max_rounds: int,
        **options: Any,
    ) -> dict[str, Any]:
        """The request, retried with answers while it comes back ``input_required``."""
        chosen = handlers.over(self.defaults)
        body = dict(params)
        for round_ in range(max_rounds):
            if input_responses:
                body["inputResponses"] = dict(input_responses)
            if request_state is not None:
                body["requestState"] = request_state
            result = await self.request(method, body, handlers=chosen, **options)
            result = dict(result or {})
            if result.get("resultType") != "input_required":
                return result
            asked = result.get("inputRequests") or {}
            input_responses = await answer_all(asked, chosen, self.inputs) if asked else {}
            if input_responses is None:
                return result  # nothing here can answer: the caller retries, or gives up
            request_state = result.get("requestState")
            body = dict(params)
            if not asked:
                await asyncio.sleep(min(0.05 * (round_ + 1), 1.0))  # state only: retry later
        raise ClientError(f"{method} {params.get('name') or params.get('uri')!r} still asked "
                          f"for input after {max_rounds} rounds")  # fmt: skip

    async def _cacheable(self, method: str, params: Mapping[str, Any] | None) -> bool:
        """True when the cache may answer or keep this request: a cacheable method, not the
        retry of an input round, to a 2026-07-28 server (a 2025 session's results carry no
        hints)."""
        if self.cache is None or method not in CACHEABLE:
            return False
        if params and ("inputResponses" in params or "requestState" in params):
            return False
        await self.connection.ensure_era()
        return self.session is None

    async def _recoverable(self, method: str, params: Any, error: Any) -> bool:
        """True when one retry may fix the error: a version the server named, or headers."""
        code = error.get("code") if isinstance(error, Mapping) else None
        if self.session is None and code == -32022 and is_modern_error(error):
            return True  # it speaks 2026-07-28 after all (a version negotiation round)
        if code == -32020 and method == TOOLS_CALL and isinstance(params, Mapping):
            if str(params.get("name")) not in self._tool_headers:
                await self.list_tools()  # learn its x-mcp-header parameters
                return str(params.get("name")) in self._tool_headers
        return False

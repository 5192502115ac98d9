"""``Client``: an async MCP client for one server, over Streamable HTTP or stdio, either era.

The target names the wire (``client.wires``); the era is learned by the first request
(:mod:`genmcp.client.connection`: ``server/discover`` at 2026-07-28, a 2025 session as the
fallback); ``era`` then says which, ``protocol=`` fixes it instead of probing. The methods
are the protocol's: lists (every page: ``client.paging``), tools, resources, prompts,
completion, tasks (``client.tasks``), listening.

Every call takes its own callbacks (progress, logs, raw notifications, ``on_input``) over
the client's; a 2026-07-28 ``input_required`` result is answered and retried (MRTR,
``client.rounds``), a 2025 server's requests on the stream are answered the same way, by the
same callbacks. An error the client can fix itself is retried once (``client.recovery``).
Cancelling the awaiting task cancels the request on the server: the stream is closed
(2026-07-28 HTTP) or ``notifications/cancelled`` is sent (2025, stdio).

What a server may send is bounded (``limits=ClientLimits(...)``, ``genmcp.client.limits``):
the size of a message, the pages and items of a listing, the time of a call; each bound
crossed raises its ``LimitExceeded``, and the call is cancelled on the server.

``client.skills`` is the Skills extension (:mod:`genmcp.client.skills`). ``cache=`` keeps
cacheable results as the server's ``ttlMs``/``cacheScope`` allow (:mod:`genmcp.client.cache`,
around the requests: ``client.cached``); ``cache=False`` on a call bypasses it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import httpx

from genmcp.client.cache import CacheStore
from genmcp.client.cached import cacheable, read_through, response_cache
from genmcp.client.connection import Connection, Listener, check_protocol
from genmcp.client.errors import RPCError
from genmcp.client.exchange import Handlers
from genmcp.client.inputs import InputHandler, Inputs, RootsSource
from genmcp.client.limits import DEFAULT_LIMITS, ClientLimits
from genmcp.client.listen import Subscription, listen_filters
from genmcp.client.paging import every_item
from genmcp.client.recovery import recoverable
from genmcp.client.rounds import answered_rounds
from genmcp.client.session import LegacySession
from genmcp.client.skills import Skills
from genmcp.client.tasks import declare_tasks, wait_task
from genmcp.client.tool_headers import ToolHeaders
from genmcp.client.wires import wire_for
from genmcp.protocol import methods

__all__ = ["DEFAULT_INFO", "Client"]

DEFAULT_INFO: Final[Mapping[str, str]] = {"name": "genmcp-client", "version": "0"}


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
        check_protocol(protocol)
        wire = wire_for(target, limits, http=http, timeout=timeout, auth=auth, env=env, cwd=cwd)
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
        self._tool_headers = ToolHeaders()
        self.cache = response_cache(cache, self.connection, self.url, token, cache_principal)
        """The response cache (``hits``, ``misses``), or None when off."""

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
            self.connection.server = dict(await self.request(methods.SERVER_DISCOVER) or {})
        return self.connection.server

    @property
    def server_info(self) -> dict[str, Any]:
        """The server's ``name``, ``version``... (``_meta`` serverInfo, or the 2025 one)."""
        return self.connection.server_info

    @property
    def server_capabilities(self) -> dict[str, Any]:
        """The capabilities the server declared."""
        return self.connection.server_capabilities

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
        if cache and await cacheable(self.cache, self.connection, method, params):
            assert self.cache is not None
            fetch = functools.partial(
                self.request, method, params, handlers=handlers, progress=progress,
                log_level=log_level, meta=meta, capabilities=capabilities, cache=False,
            )  # fmt: skip
            return await read_through(self.cache, method, params, fetch)
        chosen = (handlers or Handlers()).over(self.defaults)
        name = (params or {}).get("name") if method == methods.TOOLS_CALL else None
        for attempt in range(2):
            reply = await self.connection.send(
                method, params, chosen,
                progress=progress or chosen.on_progress is not None
                or chosen.on_notification is not None,
                log_level=log_level or self.log_level, meta=meta, capabilities=capabilities,
                header_params=self._tool_headers.of(name),
            )  # fmt: skip
            error = (reply.message or {}).get("error")
            if error is None:
                return (reply.message or {}).get("result")
            if attempt == 0 and await recoverable(
                self.connection, self._tool_headers, self.list_tools, method, params, error
            ):
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
        extra = await declare_tasks(self.connection, capabilities) if task else capabilities
        handlers = Handlers(on_progress, on_log, on_notification, on_input, on_resume)
        return await answered_rounds(
            self.request, self.inputs, methods.TOOLS_CALL, params, handlers.over(self.defaults),
            input_responses, request_state,
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
        handlers = Handlers(on_input=on_input).over(self.defaults)
        params = {"uri": uri}
        return await answered_rounds(self.request, self.inputs, methods.RESOURCES_READ, params,
                                     handlers, max_rounds=max_rounds, cache=cache)  # fmt: skip

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
        handlers = Handlers(on_input=on_input).over(self.defaults)
        return await answered_rounds(
            self.request, self.inputs, methods.PROMPTS_GET, params, handlers, max_rounds=max_rounds
        )

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
        result = await self.request(methods.COMPLETION_COMPLETE, params)
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
        cached = self.cache if cache else None
        return await every_item(self.page, method, key, self.limits, self.url, cached)

    async def list_tools(self, *, cache: bool = True) -> list[dict[str, Any]]:
        """Every tool, minus those whose ``x-mcp-header`` annotations break the rules.
        ``cache=False`` asks the server even when the cache holds the listing."""
        listed = await self.list_all(methods.TOOLS_LIST, "tools", cache=cache)
        return self._tool_headers.kept(listed, self.url)

    async def list_prompts(self, *, cache: bool = True) -> list[dict[str, Any]]:
        """Every prompt."""
        return await self.list_all(methods.PROMPTS_LIST, "prompts", cache=cache)

    async def list_resources(self, *, cache: bool = True) -> list[dict[str, Any]]:
        """Every resource."""
        return await self.list_all(methods.RESOURCES_LIST, "resources", cache=cache)

    async def list_resource_templates(self, *, cache: bool = True) -> list[dict[str, Any]]:
        """Every resource template."""
        method = methods.RESOURCES_TEMPLATES_LIST
        return await self.list_all(method, "resourceTemplates", cache=cache)

    # -- tasks (the io.modelcontextprotocol/tasks extension, 2026-07-28) ------------------------

    async def get_task(self, task_id: str) -> dict[str, Any]:
        """The task's record (``status``; ``result``, ``error`` or ``inputRequests``)."""
        return dict(await self.request(methods.TASKS_GET, {"taskId": task_id}) or {})

    async def update_task(self, task_id: str, input_responses: Mapping[str, Any]) -> None:
        """Answer some of a task's outstanding ``inputRequests``."""
        params = {"taskId": task_id, "inputResponses": dict(input_responses)}
        await self.request(methods.TASKS_UPDATE, params)

    async def cancel_task(self, task_id: str) -> None:
        """Ask the server to cancel the task (cooperative: poll to see it end)."""
        await self.request(methods.TASKS_CANCEL, {"taskId": task_id})

    async def wait_task(
        self, task_id: str, *, on_input: InputHandler | None = None, poll: float | None = None
    ) -> dict[str, Any]:
        """Poll the task until it ends, answering its input requests; its final record."""
        answer = Handlers(on_input=on_input).over(self.defaults)
        return await wait_task(self.get_task, self.update_task, task_id, answer, self.inputs, poll)

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
        return Subscription(self, listen_filters(tools, prompts, resources, uris, task_ids))

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Get the change notifications no request claims (2025); returns the remover."""
        return self.connection.add_listener(listener)

"""``MCPTestClient``: the in-process client, one class for every request it makes.

See ``genmcp.testing`` for the overview. Requests are built by ``genmcp.protocol.client`` (their
params by ``testing.params``) and answered through ``genmcp.testing.exchange`` (a Suite
driven directly, or an ASGI app); a request held open is an ``opencall.OpenCall`` (a
``tools/call``) or an ``opencall.Listener`` (``subscriptions/listen``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final, Self, Unpack

from genmcp.client.errors import RPCError
from genmcp.client.session import LegacySession as ClientSession  # the 2025 request shapes
from genmcp.fastapi.lifespan import lifespan as run_lifespan
from genmcp.fastapi.router import MCPRouter, mcp_app
from genmcp.protocol import methods
from genmcp.protocol.client import Message, build_request, header_params, request_headers
from genmcp.protocol.versions import LATEST
from genmcp.suite import Suite
from genmcp.testing.exchange import ASGIExchange, Exchange, SuiteExchange
from genmcp.testing.opencall import Listener, OpenCall, ProgressCallback, callback, within
from genmcp.testing.params import (
    CLIENT_INFO,
    DEFAULT_CAPABILITIES,
    CallOptions,
    answer,
    call_options,
    call_params,
    complete_params,
    listen_params,
)
from genmcp.testing.results import CallResult, Reply
from genmcp.testing.session import (
    LEGACY_CAPABILITIES,
    LegacySession,
    answer_for,
    is_legacy,
    open_session,
)
from genmcp.transports.hosting import suite_of

__all__ = ["MCPTestClient"]

PROTOCOL_VERSION: Final = LATEST


class MCPTestClient:
    """Drives a Suite, an ``MCPRouter`` or an ASGI app in-process, as an MCP client would.

    Args:
        target: a ``Suite`` (driven directly), an ``MCPRouter`` (mounted at ``path``) or an
            ASGI app serving MCP at ``path``.
        path: where the app serves MCP.
        assigns: what auth would put in ``channel.assigns`` (Suite only; an app's auth
            dependency sets them from ``headers``).
        headers: extra HTTP headers on every request (apps only), e.g. ``Authorization``.
        suite: the Suite behind an app, for ``live_workers``/``wait_idle`` when it cannot be
            found in the app's routes.
        capabilities: the client capabilities declared on each request.
        client_info: the ``clientInfo`` sent on each request.
        protocol_version: the version named in ``_meta``; a 2025 revision
            (``"2025-11-25"``, ...) makes the client a 2025 session client (apps only; a
            Suite is served through ``mcp_app``): ``initialize`` on entry, session headers.
        lifespan: run the app's lifespan (and its routers') around the ``async with``
            block, as a server does; requests see its state (``channel.state``).
        timeout: seconds any single wait may take before ``TimeoutError``.
    """

    def __init__(
        self,
        target: Any,
        *,
        path: str = "/mcp",
        assigns: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        suite: Suite | None = None,
        capabilities: Mapping[str, Any] = DEFAULT_CAPABILITIES,
        client_info: Mapping[str, Any] = CLIENT_INFO,
        protocol_version: str = PROTOCOL_VERSION,
        lifespan: bool = True,
        timeout: float = 10.0,
    ) -> None:
        self._session: LegacySession | None = None
        if is_legacy(protocol_version):
            if capabilities is DEFAULT_CAPABILITIES:
                capabilities = LEGACY_CAPABILITIES
            self._session = LegacySession(protocol_version, capabilities, client_info)
            if isinstance(target, Suite):
                if assigns is not None:
                    raise TypeError("a 2025 session runs over HTTP: give headers=, not assigns=")
                target = mcp_app(target, path=path)
        self._lifespan = lifespan
        self._stack = contextlib.AsyncExitStack()
        self._state: dict[str, Any] | None = None
        self.capabilities = capabilities
        self.client_info = dict(client_info)
        self.protocol_version = protocol_version
        self.timeout = timeout
        self._ids = itertools.count(1)
        self._assigns = dict(assigns or {})
        self._headers = dict(headers or {})
        self._path = path
        self._open: set[OpenCall] = set()
        self._header_params: dict[str, dict[str, str]] | None = None
        if isinstance(target, Suite):
            if headers:
                raise TypeError("headers= apply to an app; give a Suite assigns= instead")
            self._app: Any = None
            self.suite: Suite | None = target
            return
        if assigns is not None:
            raise TypeError("assigns= apply to a Suite; an app's auth dependency sets them")
        if isinstance(target, MCPRouter):
            target = mcp_app(target, path=path)
        if not callable(target):
            raise TypeError(f"expected a Suite, an MCPRouter or an ASGI app, got {target!r}")
        self._app = target
        self.suite = suite if suite is not None else suite_of(target)

    async def __aenter__(self) -> Self:
        if self._app is not None and self._lifespan:
            self._state = await self._stack.enter_async_context(run_lifespan(self._app))
        session = self._session
        if session is not None:
            try:
                await open_session(session, self.send, next(self._ids), self.timeout)
            except BaseException:
                await self._stack.aclose()
                raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Disconnect every call still open, then end the app's lifespan."""
        for call in list(self._open):
            await call.disconnect()
        await self._stack.aclose()

    @property
    def legacy(self) -> LegacySession | None:
        """The 2025 session (``session_id``, ``negotiated``, ``server``), or None."""
        return self._session

    # -- requests -----------------------------------------------------------------

    def build(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        id: str | int | None = None,
        meta: Mapping[str, Any] | None = None,
        progress_token: str | int | None = None,
        log_level: str | None = None,
        capabilities: Mapping[str, Any] | None = None,
    ) -> Message:
        """The JSON-RPC request ``request()`` would send; ``meta`` entries are merged last."""
        request_id = next(self._ids) if id is None else id
        if self._session is not None:
            return ClientSession.request(method, params, request_id, progress_token, meta)
        return build_request(
            method,
            params,
            request_id,
            version=self.protocol_version,
            capabilities=self.capabilities if capabilities is None else capabilities,
            client_info=self.client_info,
            progress_token=progress_token,
            log_level=log_level,
            meta=meta,
        )

    async def send(self, message: Mapping[str, Any] | bytes, *, wait: bool = True) -> Exchange:
        """Send one raw message (an object or exact bytes); read the reply from the Exchange.

        With ``wait`` (the default) it returns once the reply began (``exchange.status`` is
        set); without, at once: the first ``receive`` waits.
        """
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        exchange: Exchange
        if self._app is None:
            assert self.suite is not None
            exchange = SuiteExchange(self.suite, self._assigns)
        else:
            if self._session is not None:
                headers = {**self._session.headers(), **self._headers}
            else:
                params = await self._params_for(message)
                headers = {**request_headers(message, params), **self._headers}
            exchange = ASGIExchange(self._app, self._path, headers, self._state)
        await within(exchange.start(body, wait=wait), self.timeout, "the server")
        return exchange

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        progress: bool | ProgressCallback = False,
        **options: Any,
    ) -> Reply:
        """Send one request and read its whole reply (errors are returned, not raised).

        ``options`` are those of ``build`` (``id``, ``meta``, ``log_level``,
        ``capabilities``); ``progress`` asks for progress (a callable sees each one).
        """
        if progress and "progress_token" not in options:
            options["progress_token"] = f"progress-{next(self._ids)}"
        exchange = await self.send(self.build(method, params, **options))
        return await OpenCall(exchange, method, None, self.timeout, callback(progress)).reply()

    async def discover(self) -> dict[str, Any]:
        """``server/discover``: the server's versions, capabilities and info."""
        result: dict[str, Any] = (await self.request(methods.SERVER_DISCOVER)).unwrap()
        return result

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool of ``tools/list``, following ``nextCursor`` to the last page."""
        tools: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            page = (await self.request(methods.TOOLS_LIST, params)).unwrap()
            tools.extend(page["tools"])
            if "nextCursor" not in page:
                return tools
            params = {"cursor": page["nextCursor"]}

    # -- tools/call ---------------------------------------------------------------------

    async def call_tool(
        self,
        name: str,
        arguments: Any = None,
        *,
        progress: bool | ProgressCallback = False,
        max_rounds: int = 10,
        **options: Unpack[CallOptions],
    ) -> CallResult:
        """Call a tool and return its result with the notifications seen.

        ``progress`` asks for progress (a callable is called with each one's params as it
        arrives); ``options`` (:class:`~genmcp.testing.params.CallOptions`) are
        ``log_level`` (opt in to log notifications), ``capabilities``, ``input_responses``,
        ``request_state``, ``meta`` and ``answers``. With ``answers`` (key -> response, a
        callable(request) per key, or one callable(key, request)) every ``input_required``
        round, up to ``max_rounds``, is answered and retried with the echoed
        ``requestState`` until the tool completes. A JSON-RPC error raises ``RPCError``.
        """
        answers = call_options(options, "call_tool").get("answers")
        rounds: list[dict[str, Any]] = []
        seen: list[Message] = []
        asked: list[Message] = []
        while True:
            async with self.open_call(name, arguments, progress=progress, **options) as call:
                try:
                    outcome = await call.result()
                finally:
                    seen.extend(call.notifications)
                    asked.extend(call.server_requests)
            if outcome.result_type != "input_required" or answers is None:
                return CallResult(name, arguments, outcome.result, seen, rounds, asked)
            if len(rounds) >= max_rounds:
                raise AssertionError(f"{name!r} still asks for input after {max_rounds} rounds")
            rounds.append(outcome.result)
            options["input_responses"] = {
                key: await answer(answers, key, request)
                for key, request in outcome.input_requests.items()
            }
            options["request_state"] = outcome.request_state

    async def retry(self, call: CallResult, responses: Mapping[str, Any], **options: Any) -> Any:
        """Answer an ``input_required`` ``call`` by hand: the same call, ``responses`` and the
        echoed ``requestState``; ``options`` are those of ``call_tool``."""
        return await self.call_tool(
            call.name,
            call.arguments,
            input_responses=responses,
            request_state=call.request_state,
            **options,
        )

    @contextlib.asynccontextmanager
    async def open_call(
        self,
        name: str,
        arguments: Any = None,
        *,
        progress: bool | ProgressCallback = True,
        **options: Unpack[CallOptions],
    ) -> AsyncIterator[OpenCall]:
        """Start a call and hold it open; leaving the block unfinished disconnects it.

        ``async with client.open_call("watch") as call:`` then ``await
        call.next_notification()``, ``await call.result()`` or ``await call.disconnect()``.
        ``options`` are those of :meth:`call_tool` (``log_level``, ``capabilities``,
        ``input_responses``, ``request_state``, ``meta``, ``answers``); in a 2025 session,
        ``answers`` answers the server's requests on the call's stream.
        """
        call_options(options, "open_call")
        log_level, answers = options.get("log_level"), options.get("answers")
        responses, state = options.get("input_responses"), options.get("request_state")
        if self._session is not None and log_level != self._session.log_level:
            if log_level is not None:
                (await self.request(methods.LOGGING_SET_LEVEL, {"level": log_level})).unwrap()
            self._session.log_level = log_level
        request_id = next(self._ids)
        body = self.build(
            methods.TOOLS_CALL,
            call_params(name, arguments, responses, state),
            id=request_id,
            meta=options.get("meta"),
            progress_token=f"progress-{request_id}" if progress else None,
            log_level=log_level,
            capabilities=options.get("capabilities"),
        )
        exchange = await self.send(body, wait=False)  # a slow call may not answer for long

        async def on_request(request: Message) -> None:
            await (await self.send(await answer_for(answers, request))).aclose()

        call = OpenCall(exchange, name, arguments, self.timeout, callback(progress), on_request)
        self._open.add(call)
        try:
            yield call
        finally:
            self._open.discard(call)
            await call.disconnect()

    # -- resources, prompts, completion: the payload, or RPCError -----------------------

    async def _pages(self, method: str, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            page = (await self.request(method, params)).unwrap()
            items.extend(page[key])
            if not page.get("nextCursor"):
                return items
            params = {"cursor": page["nextCursor"]}

    async def list_resources(self) -> list[dict[str, Any]]:
        """Every resource of ``resources/list``."""
        return await self._pages(methods.RESOURCES_LIST, "resources")

    async def list_resource_templates(self) -> list[dict[str, Any]]:
        """Every template of ``resources/templates/list``."""
        return await self._pages(methods.RESOURCES_TEMPLATES_LIST, "resourceTemplates")

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        """The ``contents`` of ``resources/read``."""
        result = (await self.request(methods.RESOURCES_READ, {"uri": uri})).unwrap()
        contents: list[dict[str, Any]] = result["contents"]
        return contents

    async def list_prompts(self) -> list[dict[str, Any]]:
        """Every prompt of ``prompts/list``."""
        return await self._pages(methods.PROMPTS_LIST, "prompts")

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        """The ``prompts/get`` result (``messages``, ``description``)."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = dict(arguments)
        result: dict[str, Any] = (await self.request(methods.PROMPTS_GET, params)).unwrap()
        return result

    async def complete(
        self,
        ref: Mapping[str, Any] | str,
        argument: str,
        value: str = "",
        context: Mapping[str, str] | None = None,
    ) -> list[str]:
        """The values of ``completion/complete``; ``ref`` is a prompt name, a template URI
        (``"notes://{id}"``) or the spec's ``{"type": "ref/...", ...}``."""
        params = complete_params(ref, argument, value, context)
        result = (await self.request(methods.COMPLETION_COMPLETE, params)).unwrap()
        values: list[str] = result["completion"]["values"]
        return values

    # -- subscriptions/listen ---------------------------------------------------------

    @contextlib.asynccontextmanager
    async def listen(
        self,
        *,
        tools: bool = False,
        prompts: bool = False,
        resources: bool = False,
        uris: list[str] | tuple[str, ...] = (),
    ) -> AsyncIterator[Listener]:
        """Hold a ``subscriptions/listen`` stream open for the block (2026-07-28).

        ``async with client.listen(tools=True) as changes:`` then ``await changes.next()``
        after changing the Suite; the acknowledgement is read before the block starts.
        """
        if self._session is not None:
            raise TypeError(
                "listen is a 2026-07-28 request: a 2025 session gets changes on "
                "its GET stream; test listen with a 2026-07-28 client"
            )
        params = listen_params(tools=tools, prompts=prompts, resources=resources, uris=uris)
        exchange = await self.send(self.build(methods.SUBSCRIPTIONS_LISTEN, params))
        listener = Listener(exchange, self.timeout)
        try:
            first = await listener.next()
            listener.acknowledged = first.get("params") or {}
            yield listener
        finally:
            await exchange.disconnect()

    # -- workers ------------------------------------------------------------------

    @property
    def live_workers(self) -> int:
        """How many calls the Suite is running now."""
        if self.suite is None:
            raise RuntimeError("no Suite known for this app: give MCPTestClient(app, suite=...)")
        return self.suite.live_workers

    async def wait_idle(self) -> None:
        """Wait until every worker of the Suite ended; ``TimeoutError`` after ``timeout``."""

        if self.suite is None:
            raise RuntimeError("no Suite known for this app: give MCPTestClient(app, suite=...)")
        if not await self.suite.wait_idle(within_s=self.timeout):
            raise TimeoutError(f"the workers did not end within {self.timeout} s")

    async def _params_for(self, message: Mapping[str, Any] | bytes) -> dict[str, str]:
        """The ``x-mcp-header`` params of the called tool, learnt from ``tools/list`` once."""
        if not isinstance(message, Mapping) or message.get("method") != methods.TOOLS_CALL:
            return {}
        name = (message.get("params") or {}).get("name")
        if self._header_params is None:
            self._header_params = {}
            with contextlib.suppress(RPCError, AssertionError):  # the call will say why
                for tool in await self.list_tools():
                    self._header_params[tool["name"]] = header_params(tool.get("inputSchema"))
        return self._header_params.get(name, {}) if isinstance(name, str) else {}

"""A remote MCP server's tools and prompts, served by a Suite through one pooled ``Client``.

``Upstream`` owns the ``genmcp.Client`` of one remote server (one connection pool for all its
calls), its listing (fetched when the outer Suite starts, refreshed when the upstream says
``list_changed``), and a circuit breaker. Each upstream tool becomes a :class:`ProxyTool`
and each prompt a :class:`ProxyPrompt`, added to the outer Suite under the mount's namespace:
the outer's scopes, middleware and transports apply, and a call goes upstream as one
request with

* progress and logs relayed to the outer client as they arrive (its own progress token);
* cancellation: the outer call's task is cancelled, which cancels the upstream request;
* input rounds relayed: an upstream ``input_required`` becomes the outer's
  ``InputRequired`` (its ``requestState`` sealed inside the outer's), so the outer client
  answers it in either era, and the retry carries the answers and the state upstream; a
  2025 session upstream's requests mid-call (``elicitation/create``...) become rounds of the
  outer client too, the upstream call held open between them (``genmcp.compose.pending``);
* SSE polling: a 2025 session upstream that ends the call's stream early (and is resumed)
  makes the outer call close its own client's stream (``Channel.close_stream``);
* the upstream's JSON-RPC error answered as it is (code, message, data);
* Tasks: the outer client's Tasks extension goes upstream, which decides; a task there is
  followed by a task of the outer Suite, whose id is the only one the outer client sees
  (``genmcp.compose.tasks``).

With ``resources=True`` the upstream's resources are served too (``ProxyRepo``): listing,
reads and template completions go upstream, and a URI an outer client subscribes to is
subscribed to upstream while it listens (``genmcp.compose.subscriptions``).

An upstream that cannot be reached answers its tools' calls with a -32603 error naming it;
after ``failures`` failures in a row the breaker opens and calls are refused at once for
``cooldown_s`` (no wait on a dead server), then one call tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from genmcp._suite.tools import Followed
from genmcp.channel import Channel
from genmcp.client import Client, ClientError, RPCError
from genmcp.compose.pending import Pending, PendingCalls
from genmcp.compose.subscriptions import UpstreamSubscriptions
from genmcp.compose.tasks import follow_upstream
from genmcp.errors import INVALID_PARAMS, MISSING_CAPABILITY, MCPError
from genmcp.outcomes import Error, InputRequired, Result
from genmcp.prompt import Prompt, PromptRequest
from genmcp.protocol.meta import META_SERVER_INFO
from genmcp.protocol.methods import (
    MESSAGE,
    PROGRESS,
    PROMPTS_GET,
    PROMPTS_LIST_CHANGED,
    RESOURCES_LIST,
    RESOURCES_LIST_CHANGED,
    RESOURCES_READ,
    RESOURCES_UPDATED,
    TOOLS_LIST_CHANGED,
)
from genmcp.protocol.tasks import EXTENSION as TASKS_EXTENSION
from genmcp.resource import ResourceRepo, ResourceRequest
from genmcp.tool import Tool, ToolRequest

if TYPE_CHECKING:
    import httpx

    from genmcp.suite import Suite

__all__ = ["ProxyPrompt", "ProxyRepo", "ProxyTool", "Upstream", "UpstreamDown"]

log = logging.getLogger("genmcp")

INTERNAL: Final = -32603
RELAYED: Final[Mapping[str, Any]] = {"elicitation": {}, "sampling": {}, "roots": {}}
"""What a 2025 session upstream is told at ``initialize`` the proxy answers: its requests
are relayed to the outer client (who may refuse them). A 2026-07-28 request declares the
outer client's own capabilities instead."""
_STATE: Final = "upstream"
"""The key of the upstream's ``requestState`` inside the outer's sealed state."""


class UpstreamDown(Exception):
    """The upstream cannot be reached now (refused, timed out, or the breaker is open)."""


class Breaker:
    """Opens after ``failures`` failures in a row; refuses for ``cooldown_s``, then lets one
    call try (half open): a success closes it, a failure opens it again."""

    __slots__ = ("cooldown_s", "failures", "opened_at", "threshold")

    def __init__(self, failures: int, cooldown_s: float) -> None:
        self.threshold, self.cooldown_s = failures, cooldown_s
        self.failures = 0
        self.opened_at: float | None = None

    def allows(self) -> bool:
        """False while open and cooling down."""
        if self.opened_at is None:
            return True
        if time.monotonic() - self.opened_at >= self.cooldown_s:
            self.opened_at = None  # half open: this call tries
            self.failures = self.threshold - 1
            return True
        return False

    def retry_in(self) -> float:
        """Seconds until the next try is let through."""
        if self.opened_at is None:
            return 0.0
        return max(0.0, self.cooldown_s - (time.monotonic() - self.opened_at))

    def failed(self) -> None:
        self.failures += 1
        if self.failures >= self.threshold:
            self.opened_at = time.monotonic()

    def succeeded(self) -> None:
        self.failures, self.opened_at = 0, None


class Upstream:
    """One remote server behind a mount (see the module docstring).

    Args:
        target: the upstream MCP endpoint URL, or a stdio server's command (a list).
        prefix: what the mount puts before each name (``"weather_"``, or ``""``).
        timeout_s: seconds a connect or a read may take upstream.
        failures, cooldown_s: the circuit breaker.
        token, headers, http: the ``Client``'s (``http``: an ``httpx.AsyncClient`` to share).
        resources: serve the upstream's resources too (proxy mode).
        protocol: the upstream's revision instead of probing it.
        env, cwd: a stdio server's extra environment and working directory.
    """

    def __init__(
        self,
        target: str | Sequence[str],
        *,
        prefix: str,
        timeout_s: float,
        failures: int,
        cooldown_s: float,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        http: httpx.AsyncClient | None = None,
        resources: bool = False,
        protocol: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> None:
        self.prefix, self.timeout_s = prefix, timeout_s
        self.target = target if isinstance(target, str) else list(target)
        self.resources = resources
        self.templates: list[dict[str, Any]] | None = None  # served by the ProxyRepo
        self.client = Client(
            target, token=token, headers=headers, http=http, timeout=timeout_s,
            protocol=protocol, capabilities=RELAYED, env=env, cwd=cwd,
        )  # fmt: skip
        self.url = self.client.url
        """The URL, or the stdio command as one line: what messages and logs name."""
        self._modern = False
        self.breaker = Breaker(failures, cooldown_s)
        self.tools: dict[str, dict[str, Any]] = {}  # upstream name -> descriptor
        self.prompts: dict[str, dict[str, Any]] = {}
        self.suite: Suite | None = None  # the outer Suite, from start on
        self._follow: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self.pending = PendingCalls()
        """Calls to a 2025 session upstream held between the outer client's input rounds."""
        self.subscriptions = UpstreamSubscriptions(self, self.owns)
        """The outer subscribers' resource subscriptions, held upstream (``resources``)."""

    def owns(self, uri: str) -> bool:
        """True when the outer Suite routes ``uri`` to this upstream's repository."""
        found = None if self.suite is None else self.suite.resource_repo(uri)
        return found is not None and isinstance(found[0], ProxyRepo) and found[1] is self

    def modern(self) -> bool:
        """True for a 2026-07-28 upstream, whose requests then declare only the outer
        client's capabilities (``RELAYED`` is a 2025 session's, declared once)."""
        if not self._modern and self.client.era is not None and self.client.session is None:
            self.client.connection.capabilities.clear()
            self._modern = True
        return self._modern

    @property
    def serves_tasks(self) -> bool:
        """Whether the upstream advertises the Tasks extension (its tools may run as tasks)."""
        extensions = self.client.server_capabilities.get("extensions")
        return isinstance(extensions, Mapping) and TASKS_EXTENSION in extensions

    def background(self, work: Any, name: str) -> None:
        """Run ``work`` (a coroutine) on its own, e.g. a ``tasks/cancel`` upstream; its
        failure is logged; ``aclose`` cancels what is left."""

        async def run() -> None:
            try:
                await work
            except Exception as exc:
                log.info("mount %s: %s failed (%s)", self.url, name, exc)

        task = asyncio.get_running_loop().create_task(run(), name=f"mount {self.url}: {name}")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- the listing --------------------------------------------------------------------

    async def start(self, suite: Suite) -> None:
        """List the upstream into ``suite``, then follow its changes in the background (a
        down upstream is retried there: the outer server starts anyway)."""
        self.suite = suite
        if self.resources:
            self.subscriptions.start(suite)
        try:
            await self.refresh(suite)
        except (ClientError, OSError) as exc:
            log.warning("mount %s: not listed yet (%s); retrying in the background", self.url, exc)
        self._follow = asyncio.create_task(self._changes(suite), name=f"mount {self.url}")

    async def refresh(self, suite: Suite) -> None:
        """Fetch the upstream's tools and prompts; serve the new ones, drop the gone ones."""
        tools = {t["name"]: t for t in await self.client.list_tools() if "name" in t}
        capabilities = self.client.server_capabilities
        prompts = {}
        if "prompts" in capabilities:
            prompts = {p["name"]: p for p in await self.client.list_prompts() if "name" in p}
        templates = None
        if self.resources and "resources" in capabilities:
            templates = await self.client.list_resource_templates()
        self.breaker.succeeded()
        self._apply(suite, "tool", self.tools, tools)
        self._apply(suite, "prompt", self.prompts, prompts)
        if templates is not None and templates != self.templates:
            if self.templates is not None:
                suite.remove_resource("", local=True)
            self.templates = templates
            suite.add_resource((ProxyRepo, self), local=True)
            self.subscriptions.resync()

    def _apply(
        self, suite: Suite, kind: str, held: dict[str, dict[str, Any]], found: dict[str, Any]
    ) -> None:
        add: Any = suite.add_tool if kind == "tool" else suite.add_prompt
        remove = suite.remove_tool if kind == "tool" else suite.remove_prompt
        proxy: type[Tool] | type[Prompt] = ProxyTool if kind == "tool" else ProxyPrompt
        for name in [name for name, old in held.items() if found.get(name) != old]:
            remove(self.prefix + name, local=True)
            del held[name]
        for name, descriptor in found.items():
            if name in held:
                continue
            try:
                add((proxy, (self, descriptor)), local=True)
            except ValueError as exc:  # a collision, or a schema the outer refuses
                log.error("mount %s: %s %r not served: %s", self.url, kind, name, exc)
                continue
            held[name] = descriptor

    async def _changes(self, suite: Suite) -> None:
        """Re-list on every ``list_changed``; reconnect (and re-list) after a failure."""
        while True:
            try:
                async with self.client.listen(resources=self.resources) as changes:
                    await self.refresh(suite)  # what changed before the stream was open
                    async for note in changes:
                        method = note.get("method")
                        if method in (TOOLS_LIST_CHANGED, PROMPTS_LIST_CHANGED):
                            await self.refresh(suite)
                        elif method == RESOURCES_LIST_CHANGED and self.templates is not None:
                            await self.refresh(suite)
                            suite.resource_list_changed()
                        elif method == RESOURCES_UPDATED and self.templates is not None:
                            uri = (note.get("params") or {}).get("uri")
                            if isinstance(uri, str):
                                suite.resource_updated(uri)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # down, or no listen there: try again later
                log.info("mount %s: change stream ended (%s)", self.url, exc)
            await asyncio.sleep(self.breaker.cooldown_s)

    async def aclose(self) -> None:
        """Stop following and close the pool."""
        if self._follow is not None:
            self._follow.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._follow
        self.pending.cancel_all()
        await self.subscriptions.aclose()
        if self._background:  # a cancel upstream in flight: let it go out, briefly
            await asyncio.wait(set(self._background), timeout=self.timeout_s)
        await self.client.aclose()

    # -- calls ----------------------------------------------------------------------------

    def down(self, exc: BaseException | None = None) -> Error:
        """The error a call gets while the upstream cannot be reached."""
        if exc is None:
            wait = self.breaker.retry_in()
            why = f"it failed {self.breaker.threshold} times in a row; next try in {wait:.0f} s"
        else:
            why = str(exc) or type(exc).__name__
        return Error(f"upstream {self.url} is unavailable: {why}", INTERNAL, {"upstream": self.url})

    async def send(self, call: Any) -> Any:
        """Run one upstream request (``call`` makes the coroutine); errors become outcomes."""
        if not self.breaker.allows():
            return self.down()
        try:
            result = await call()
        except RPCError as exc:  # the upstream answered: it is up, its error passes on
            self.breaker.succeeded()
            if exc.code == MISSING_CAPABILITY:  # with its HTTP status (400), as upstream
                raise MCPError("missing_capability", exc.message, exc.data) from None
            error = exc.to_error()
            return Error(error["message"], error["code"], error.get("data"))
        except (ClientError, OSError) as exc:
            self.breaker.failed()
            return self.down(exc)
        self.breaker.succeeded()
        return result


def relay(channel: Channel | Callable[[], Channel | None]) -> Any:
    """The ``on_notification`` that hands an upstream call's progress and logs to ``channel``
    (or to the channel a function returns: a pending call's current round)."""

    def forward(message: Mapping[str, Any]) -> None:
        found = channel if isinstance(channel, Channel) else channel()
        if found is None:
            return
        params = message.get("params") or {}
        method = message.get("method")
        if method == PROGRESS and isinstance(params.get("progress"), int | float):
            found.send_progress(params["progress"], params.get("total"), params.get("message"))
        elif method == MESSAGE and isinstance(params.get("level"), str):
            with contextlib.suppress(ValueError):
                found.send_log(params["level"], params.get("data"), params.get("logger"))

    return forward


def _outcome(result: Any) -> Any:
    """An upstream result as the outer's outcome: ``input_required`` becomes InputRequired."""
    if isinstance(result, Error):
        return result
    if isinstance(result, dict) and result.get("resultType") == "input_required":
        state = {_STATE: result.get("requestState")}
        return InputRequired(dict(result.get("inputRequests") or {}), state)
    if isinstance(result, dict):  # the upstream's serverInfo is not the outer's
        result = {k: v for k, v in result.items() if k != "resultType"}
        meta = result.get("_meta")
        if isinstance(meta, Mapping):
            meta = {k: v for k, v in meta.items() if k != META_SERVER_INFO}
            result["_meta"] = meta
            if not meta:
                del result["_meta"]
    return Result(result)


def _asking(
    upstream: Upstream, method: str, params: dict[str, Any], request: Any, channel: Channel
) -> Any:
    """The upstream request of a prompt or a read: the outer client's capabilities, and on
    a retry its answers and the upstream's state; an ``input_required`` comes back as is."""
    if request.input_responses is not None:
        params["inputResponses"] = request.input_responses
    state = _upstream_state(request.request_state)
    if state is not None:
        params["requestState"] = state
    capabilities = channel.client_capabilities
    upstream.modern()  # (2026-07-28: the outer client's capabilities only)
    return lambda: upstream.client.request(method, params, capabilities=capabilities)


def _without_tasks(capabilities: Mapping[str, Any]) -> Mapping[str, Any]:
    """The outer client's capabilities minus the Tasks extension, for an upstream that does
    not serve it."""
    extensions = capabilities.get("extensions")
    if not isinstance(extensions, Mapping) or TASKS_EXTENSION not in extensions:
        return capabilities
    kept = {k: v for k, v in extensions.items() if k != TASKS_EXTENSION}
    return {**capabilities, "extensions": kept}


def _upstream_state(state: Any) -> str | None:
    found = state.get(_STATE) if isinstance(state, Mapping) else None
    return found if isinstance(found, str) else None


class ProxyTool(Tool):
    """An upstream tool; ``arg`` is ``(upstream, descriptor)``."""

    def info(self, key: str, arg: Any) -> Any:
        upstream, descriptor = arg
        if key == "name":
            return upstream.prefix + descriptor["name"]
        return descriptor.get(key)

    def input_schema(self, arg: Any) -> Any:
        return arg[1].get("inputSchema") or {"type": "object"}

    def output_schema(self, arg: Any) -> Any:
        return arg[1].get("outputSchema")

    def task_support(self, arg: Any) -> str:
        return "optional" if arg[0].serves_tasks else "none"

    def wants_task(self, request: ToolRequest, arg: Any) -> bool:
        return False  # the upstream decides; a task there is followed by one here

    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Any:
        upstream, descriptor = arg
        if upstream.pending.names_one(request.request_state):
            return await _resumed(upstream, request, channel)
        if upstream.client.era is None:
            found = await upstream.send(upstream.client.connect)
            if isinstance(found, Error):
                return found
        if not upstream.modern():  # a 2025 session: input is asked for mid-call
            pending = upstream.pending.new()
            pending.start(functools.partial(_held_call, upstream, descriptor, request, channel))
            return await pending.next(channel)
        capabilities = channel.client_capabilities
        if not upstream.serves_tasks:
            capabilities = _without_tasks(capabilities)

        def go() -> Any:
            return upstream.client.call_tool(
                descriptor["name"],
                request.arguments,
                on_notification=relay(channel),
                log_level=channel.log_level,
                capabilities=capabilities,
                input_responses=request.input_responses,
                request_state=_upstream_state(request.request_state),
            )

        result = await upstream.send(go)
        if isinstance(result, dict) and result.get("resultType") == "task":
            return await _followed(upstream, result, channel)
        return _outcome(result)


async def _held_call(
    upstream: Upstream, descriptor: Mapping[str, Any], request: ToolRequest, first: Channel,
    pending: Pending,
) -> Any:  # fmt: skip
    """A tool call to a 2025 session upstream, its input requests answered by the outer
    client's rounds (``compose.pending``); its outcome."""

    def channel() -> Channel | None:
        return pending.channel

    def resume() -> None:
        if pending.channel is not None:
            pending.channel.close_stream()

    def go() -> Any:
        return upstream.client.call_tool(
            descriptor["name"],
            request.arguments,
            on_notification=relay(channel),
            on_input=pending.ask,
            on_resume=resume,
            log_level=first.log_level,
        )

    return _outcome(await upstream.send(go))


async def _resumed(upstream: Upstream, request: ToolRequest, channel: Channel) -> Any:
    """A retry that answers a held upstream call's input requests: hand them on, wait."""
    pending = upstream.pending.take(request.request_state)
    if pending is None:
        return Error(
            "Invalid params: the upstream call this input was for is gone (it waited too "
            "long, or this retry reached another process): call the tool again",
            INVALID_PARAMS,
        )
    if not pending.resume(request.input_responses):
        upstream.pending.hold(pending)
        return Error("Invalid params: inputResponses answers none of the requests", INVALID_PARAMS)
    return await pending.next(channel)


async def _followed(upstream: Upstream, created: dict[str, Any], channel: Channel) -> Any:
    """The upstream answered with a task: an outer task follows it (``compose.tasks``)."""
    task_id = created.get("taskId")
    if not isinstance(task_id, str) or upstream.suite is None:
        return Error(f"upstream {upstream.url} answered a task without a taskId", INTERNAL)
    try:
        opened = await upstream.suite.tasks.follow(
            channel.assigns, functools.partial(follow_upstream, upstream, task_id, created)
        )
    except BaseException:  # refused here (quota, store down): not left running upstream
        upstream.background(upstream.client.cancel_task(task_id), f"cancel task {task_id[:8]}")
        raise
    return Followed(opened)


class ProxyPrompt(Prompt):
    """An upstream prompt; ``arg`` is ``(upstream, descriptor)``."""

    def info(self, key: str, arg: Any) -> Any:
        upstream, descriptor = arg
        if key == "name":
            return upstream.prefix + descriptor["name"]
        return descriptor.get(key)

    def arguments(self, arg: Any) -> list[dict[str, Any]]:
        return list(arg[1].get("arguments") or [])

    async def get(self, request: PromptRequest, channel: Channel, arg: Any) -> Any:
        upstream, descriptor = arg

        params = {"name": descriptor["name"], "arguments": dict(request.arguments)}
        return _outcome(
            await upstream.send(_asking(upstream, PROMPTS_GET, params, request, channel))
        )

    async def complete(
        self, argument: str, value: str, context: Mapping[str, str], channel: Channel, arg: Any
    ) -> Any:
        upstream, descriptor = arg
        ref = {"type": "ref/prompt", "name": descriptor["name"]}
        found = await upstream.send(lambda: upstream.client.complete(ref, argument, value, context))
        return [] if isinstance(found, Error) else {"completion": found}


class ProxyRepo(ResourceRepo, prefix=""):
    """Every resource of the upstream (proxy mode: it claims every URI); ``arg`` is the
    upstream. Listing pages, reads and template completions go upstream as they are."""

    def templates(self, arg: Any) -> list[dict[str, Any]]:
        return list(arg.templates or [])

    async def list(self, cursor: Any, channel: Channel, arg: Any) -> Any:
        upstream: Upstream = arg
        found = await upstream.send(lambda: upstream.client.page(RESOURCES_LIST, cursor))
        if isinstance(found, Error):
            return found
        return list(found.get("resources") or []), found.get("nextCursor")

    async def complete_template(
        self,
        template: str,
        argument: str,
        value: str,
        context: Mapping[str, str],
        channel: Channel,
        arg: Any,
    ) -> Any:
        upstream: Upstream = arg
        ref = {"type": "ref/resource", "uri": template}  # URIs are not namespaced
        found = await upstream.send(lambda: upstream.client.complete(ref, argument, value, context))
        return [] if isinstance(found, Error) else {"completion": found}

    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
        upstream: Upstream = arg
        params = {"uri": request.uri}
        return _outcome(
            await upstream.send(_asking(upstream, RESOURCES_READ, params, request, channel))
        )

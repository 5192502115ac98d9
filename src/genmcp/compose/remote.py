"""A remote MCP server's tools, prompts and resources, served by a Suite as proxy entries.

Each upstream tool becomes a :class:`ProxyTool` and each prompt a :class:`ProxyPrompt`,
added to the outer Suite under the mount's namespace by the mount's ``Upstream`` (its pooled
``genmcp.Client``, its listing and its circuit breaker: ``genmcp.compose.upstream``): the
outer's scopes, middleware and transports apply, and a call goes upstream as one request
(``Upstream.send``) with

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

Imports ``compose.upstream`` (re-exporting ``Upstream``, ``UpstreamDown`` and ``Breaker``,
which lived here), ``compose.pending`` and ``compose.tasks``; the upstream gets these entries
as ``PROXIES`` from ``compose.mount`` (it never imports this module). Loaded with the first
remote ``Mount``, never by ``import genmcp``.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping
from typing import Any, Final

from genmcp.catalogs.tools import Followed
from genmcp.channel import Channel
from genmcp.compose.pending import Pending
from genmcp.compose.tasks import follow_upstream
from genmcp.compose.upstream import (  # re-exported: the upstream connection lived here
    INTERNAL,
    Proxies,
    Upstream,
)
from genmcp.errors import INVALID_PARAMS
from genmcp.outcomes import Error, InputRequired, Result
from genmcp.prompts import Prompt, PromptRequest
from genmcp.protocol.methods import MESSAGE, PROGRESS, PROMPTS_GET, RESOURCES_LIST, RESOURCES_READ
from genmcp.protocol.tasks import EXTENSION as TASKS_EXTENSION
from genmcp.protocol.versions import META_SERVER_INFO
from genmcp.resources import ResourceRepo, ResourceRequest
from genmcp.tools import Tool, ToolRequest

__all__ = ["PROXIES", "ProxyPrompt", "ProxyRepo", "ProxyTool"]

_STATE: Final = "upstream"
"""The key of the upstream's ``requestState`` inside the outer's sealed state."""


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


def _proxied(key: str, arg: Any) -> Any:
    """A proxied tool's or prompt's ``info``: the upstream descriptor's, the name prefixed."""
    upstream, descriptor = arg
    if key == "name":
        return upstream.prefix + descriptor["name"]
    return descriptor.get(key)


class ProxyTool(Tool):
    """An upstream tool; ``arg`` is ``(upstream, descriptor)``."""

    def info(self, key: str, arg: Any) -> Any:
        return _proxied(key, arg)

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
        result = await _call_upstream(
            upstream, descriptor, request, channel,
            log_level=channel.log_level, capabilities=capabilities,
            input_responses=request.input_responses,
            request_state=_upstream_state(request.request_state),
        )  # fmt: skip
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

    result = await _call_upstream(
        upstream, descriptor, request, channel,
        on_input=pending.ask, on_resume=resume, log_level=first.log_level,
    )  # fmt: skip
    return _outcome(result)


async def _call_upstream(
    upstream: Upstream, descriptor: Mapping[str, Any], request: ToolRequest,
    to: Channel | Callable[[], Channel | None], **options: Any,
) -> Any:  # fmt: skip
    """``request`` sent on to the upstream tool (``Client.call_tool``'s ``options``), its
    progress and logs relayed to ``to``: the upstream's result, or an ``Error``."""

    def go() -> Any:
        return upstream.client.call_tool(
            descriptor["name"], request.arguments, on_notification=relay(to), **options
        )

    return await upstream.send(go)


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
        return _proxied(key, arg)

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


PROXIES: Final = Proxies(ProxyTool, ProxyPrompt, ProxyRepo)
"""The entries an ``Upstream`` serves its catalog through (``compose.mount`` passes them)."""

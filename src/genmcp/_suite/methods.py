"""The Suite's method handlers: one per MCP method, each a result or the Job that answers.

:class:`SuiteMethods` is a base of ``genmcp.suite.Suite``: the handlers read the Suite's
catalogs and settings (declared below) and return either a result object (answered at once)
or a :class:`~genmcp._suite.call.Job` the Suite runs in a Call. Kept apart from the Suite's
configuration and dispatch so each reads as one concept.

Imports genmcp's core and protocol modules; never a web framework.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from genmcp._suite.job import HookJob, Job
from genmcp._suite.listen import ListenJob, honored_filter
from genmcp._suite.mail import MailRelay
from genmcp._suite.prompts import PromptCatalog
from genmcp._suite.resources import RepoEntry, ResourceCatalog
from genmcp._suite.tasks import TaskService
from genmcp._suite.tools import ToolCatalog
from genmcp.channel import Channel
from genmcp.errors import MCPError
from genmcp.outcomes import CacheControl
from genmcp.protocol.jsonrpc import Request
from genmcp.protocol.prompts import parse_complete_params
from genmcp.storage import Broker

__all__ = ["Response", "SuiteMethods"]

Response = dict[str, Any]


class SuiteMethods:
    """The method handlers of a Suite (see the module docstring)."""

    # what the handlers read; the Suite sets them in its constructor
    _tools: ToolCatalog
    _prompts: PromptCatalog
    _resources: ResourceCatalog
    _mail: MailRelay
    _result_meta: dict[str, Any]
    broker: Broker
    discover_cache_control: CacheControl
    supported_versions: tuple[str, ...]
    instructions: str | None
    tasks: TaskService

    @property
    def capabilities(self) -> dict[str, Any]:
        """ServerCapabilities derived from what is configured (the Suite defines it)."""
        raise TypeError(f"{type(self).__name__} must define capabilities")

    def routes_resource(self, uri: str) -> bool:
        """True when ``uri`` names a served resource (the Suite defines it)."""
        raise TypeError(f"{type(self).__name__} must define routes_resource()")

    def _handlers(self) -> dict[str, Callable[[Request, dict[str, Any], Mapping[str, Any]], Any]]:
        """The method table: MCP method -> handler."""
        return {
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
        visible = _readable_repos(assigns)  # auth: list only what the caller may read
        return self._one_shot(
            request, lambda channel: self._resources.list(request.params, channel, visible)
        )

    def _list_templates(self, request: Request, meta: dict[str, Any], assigns: Any) -> Response:
        self._require(bool(self._resources), request)
        return self._resources.templates(request.params, _readable_repos(assigns))

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
            watch=self.tasks.watch(assigns) if honored.task_ids else None,
        )


def _readable_repos(assigns: Any) -> Callable[[RepoEntry], bool] | None:
    """Auth: None without OAuth, else whether the caller holds a repository's scopes."""
    held = assigns.get("effective_scopes")
    if held is None:
        return None
    return lambda entry: set(entry.repo.required_scopes(entry.arg)) <= held

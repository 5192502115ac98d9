"""The tools a Suite serves, and its ``tools/list`` and ``tools/call`` methods.

The Suite builds a ``tool_entry.ToolEntry`` once per served tool (its validators, its
``tools/list`` descriptor, its ``x-mcp-header`` parameters).

:class:`ToolCatalog` holds the entries and answers ``tools/list`` (pages built once per
change, sealed cursors, merged cache hints) and ``tools/call``: it checks the request and
makes the :class:`ToolJob` a Call runs (``call``, then ``handle_message`` per mailbox message
while streaming, ``handle_close`` when the client leaves), whose outcomes become the result
through ``hooks.py``. Its ``handlers`` are the two methods, for the Suite's method table.

Imports genmcp's core modules; never a web framework.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from genmcp.call.job import Handlers, Job
from genmcp.catalogs.hooks import (
    arguments_of,
    call_hook,
    checked,
    checked_request,
    completed,
    converted,
    debugging,
    error_result,
    result_of,
    watched,
)
from genmcp.catalogs.listing import Catalog
from genmcp.catalogs.request_state import binding_of
from genmcp.catalogs.tool_entry import Pending, SharedValidators, ToolEntry
from genmcp.errors import CallbackReturnError
from genmcp.outcomes import Error, InputDeclined, InputRequired, Result, Stream
from genmcp.protocol import v2607
from genmcp.protocol.jsonrpc import Request
from genmcp.protocol.methods import TOOLS_CALL, TOOLS_LIST
from genmcp.protocol.tasks import declares_tasks, tasks_required
from genmcp.schema import InvalidArguments
from genmcp.tools import Tool, ToolRequest, with_arguments
from genmcp.transforms.transform import Transform, shaped

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = ["Followed", "ToolCatalog", "ToolJob", "ToolProvider"]

log = logging.getLogger("genmcp")


class Followed:
    """The outcome of a call that a task of this Suite continues, the work running elsewhere
    (a remote mount's upstream task, ``TaskService.follow``): answered with the task's
    ``CreateTaskResult`` as it is."""

    __slots__ = ("created",)

    def __init__(self, created: dict[str, Any]) -> None:
        self.created = created


_OUTCOMES: Final = (Result, Stream, Error, InputRequired)
_TAKEN: Final = (*_OUTCOMES, Followed)
"""What ``call`` may return: the public outcomes, and the remote mount's ``Followed``."""

ToolProvider = type[Tool] | tuple[type[Tool], Any]
"""A tool class, or ``(ToolClass, arg)``; ``arg`` reaches every hook."""


class ToolCatalog(Catalog[ToolEntry]):
    """The tools a Suite serves, ``tools/list``, and the job of each ``tools/call``.

    Args:
        schema_options: the Suite's schema build options, under each tool's own.
        transforms: ``genmcp.Transform`` objects reshaping every tool added (in order).
        served: what every catalog is built with (``listing.Served``).
    """

    def __init__(
        self,
        *,
        schema_options: Mapping[str, Any] | None = None,
        transforms: Iterable[Transform] = (),
        lazy_schemas: bool = False,
        **served: Any,
    ) -> None:
        self.schema_options = schema_options
        self.lazy_schemas = lazy_schemas
        self.transforms = tuple(transforms)
        self.renamed: dict[str, str] = {}
        """A name before the transforms -> the name served."""
        self._shared: SharedValidators = {}
        super().__init__(kind="tool", method=TOOLS_LIST, key="tools", make=self._entry, **served)

    def _entry(self, cls: Any, arg: Any) -> ToolEntry:
        if not (self.transforms and isinstance(cls, type) and issubclass(cls, Tool)):
            return ToolEntry(cls, arg, self.schema_options, self._shared, self.lazy_schemas)
        made = shaped(cls, arg, self.transforms)  # every tool, wherever it comes from
        entry = ToolEntry(made, arg, self.schema_options, self._shared, self.lazy_schemas)
        if made is not cls:  # a mount removes the tool by the name it gave it
            self.renamed[cls().info("name", arg)] = entry.name
        return entry

    def check_schemas(self) -> int:
        """Compile every input schema left for first use (``lazy_schemas``); the first
        fault raises. Returns how many were compiled."""
        count = 0
        for entry in self.entries.values():
            if type(entry.validator) is Pending:
                entry.validator = entry.validator.compiled()
                count += 1
        return count

    def listed(self, entry: ToolEntry, hidden: frozenset[str]) -> dict[str, Any]:
        """The caller's own descriptor of ``entry`` (a versioned tool's versions)."""
        return entry.listed(hidden)

    def remove(self, name: str) -> bool:
        """Stop serving ``name``: the served name, or the name a transform changed."""
        if name not in self.entries and name in self.renamed:
            name = self.renamed.pop(name)
        return super().remove(name)

    def handlers(self, on_call: Callable[[], None] | None = None) -> Handlers:
        """``tools/list`` and ``tools/call``; ``on_call``, when given, runs before each call's
        job is made (a Suite with a shared broker starts its mail relay: from the first call
        on, posts from other processes reach its workers). Without it ``tools/call`` is
        ``job`` itself: the hot path makes no extra call."""
        if on_call is None:
            return {TOOLS_LIST: self.list_visible, TOOLS_CALL: self.job}
        started = on_call

        def call(request: Request, meta: dict[str, Any], assigns: Mapping[str, Any]) -> ToolJob:
            started()
            return self.job(request, meta, assigns)

        return {TOOLS_LIST: self.list_visible, TOOLS_CALL: call}

    @property
    def serves_tasks(self) -> bool:
        """True when some tool supports tasks (the Suite then advertises the extension)."""
        return any(entry.task_support != "none" for entry in self.entries.values())

    def header_params(self, name: Any) -> Mapping[str, str]:
        """The ``x-mcp-header`` parameters of the tool ``name`` (none for an unknown tool)."""
        entry = self.entries.get(name) if isinstance(name, str) else None
        return {} if entry is None else entry.header_params

    def job(self, request: Request, meta: dict[str, Any], assigns: Mapping[str, Any]) -> ToolJob:
        """Check one ``tools/call`` and make the job that answers it."""
        params = request.params
        entry = self.requested(params, TOOLS_CALL, assigns, meta)  # hidden: as unknown
        name, arguments = entry.name, arguments_of(params, TOOLS_CALL)
        if entry.task_support == "required" and not declares_tasks(meta):
            raise tasks_required()  # before any hook runs
        binding: Callable[[], str] | None = None  # a first try's: made if the tool asks
        if "inputResponses" in params or "requestState" in params:  # a retry
            responses, state, binding = self.states.retry(params, assigns, name, arguments)
        else:  # a first try (the hot path): nothing to read, no binding to make yet
            responses = state = None
        tool_request = ToolRequest(name, arguments, meta, responses, state)
        return ToolJob(self, entry, tool_request, binding, assigns)

    def complete(self, entry: ToolEntry, result: Any) -> dict[str, Any]:
        """A tool's ``Result`` checked (shape, output schema) and completed."""
        if not isinstance(result, dict) or not isinstance(result.get("content"), list):
            raise CallbackReturnError(
                "tool",
                entry.name,
                "call",
                result,
                "Result(call_tool_result(...)): a CallToolResult dict with a content list",
            )
        if entry.output is None or result.get("isError"):
            return completed(result, self._result_meta)
        if "structuredContent" not in result:
            raise CallbackReturnError(
                "tool",
                entry.name,
                "call",
                result,
                "a result with structuredContent, since the tool declares output_schema "
                "(call_tool_result(structured=...), or return the pydantic model)",
            )
        try:
            entry.output.validate(result["structuredContent"])
        except InvalidArguments as exc:
            raise CallbackReturnError(
                "tool",
                entry.name,
                "call",
                result["structuredContent"],
                f"structuredContent matching the output schema ({exc.describe()})",
            ) from None
        return completed(result, self._result_meta)


class ToolJob(Job):
    """One ``tools/call``: validation, ``call``, then the stream hooks (see the module)."""

    __slots__ = (
        "_assigns",
        "_binding",
        "_catalog",
        "_entry",
        "_request",
        "cancellable",
        "label",
        "task_capable",
    )

    def __init__(
        self,
        catalog: ToolCatalog,
        entry: ToolEntry,
        request: ToolRequest,
        binding: Callable[[], str] | None,
        assigns: Mapping[str, Any],
    ) -> None:
        self._catalog, self._entry, self._request, self._binding = catalog, entry, request, binding
        self._assigns = assigns
        self.label = entry.label
        self.cancellable = entry.call_is_async
        self.task_capable = entry.task_support != "none"  # ``wants_task`` decides per call

    def wants_task(self) -> bool:
        """True when the tool supports tasks and wants this call to run as one."""
        entry = self._entry
        if entry.task_support == "none":
            return False
        return bool(entry.tool.wants_task(self._request, entry.arg))

    async def start(self, channel: Channel) -> Any:
        entry = self._entry
        request = self._request
        validator = entry.validator
        if type(validator) is Pending:  # Suite(lazy_schemas=True): compiled at first use
            validator = entry.validator = validator.checked(entry.label)
        done, arguments = (
            (False, None) if validator is None else validator.inline(request.arguments)
        )
        if done:  # the common call: validated at once on the loop
            if arguments is not request.arguments:  # else with_arguments would keep it
                request = with_arguments(request, arguments)
        else:  # the tool's own validate_request, or a costly validation: off the loop
            request = await checked_request(entry.tool, request, entry.arg, validator)
        if entry.call_is_async:  # the hot path: one await, no thread
            coro = entry.tool.call(request, channel, entry.arg)
            if debugging():
                coro = watched(coro, f"{entry.owner}.call() ({entry.label})")
            outcome = await coro
            if type(outcome) in _TAKEN:
                return outcome
            return checked("tool", entry.name, "call", converted(outcome), _OUTCOMES)
        return await self._invoke("call", request, channel, entry.arg)

    async def message(self, message: Any, channel: Channel, state: Any) -> Any:
        return await self._invoke("handle_message", message, channel, state, self._entry.arg)

    async def close(self, channel: Channel, state: Any) -> None:
        await call_hook(self._entry.tool, "handle_close", channel, state, self._entry.arg)

    async def _invoke(self, hook: str, *args: Any) -> Any:
        outcome = await call_hook(self._entry.tool, hook, *args)
        return checked("tool", self._entry.name, hook, converted(outcome), _OUTCOMES)

    def result(self, outcome: Any) -> dict[str, Any]:
        entry = self._entry
        if isinstance(outcome, InvalidArguments):
            message = f"Invalid arguments for tool {entry.name!r}: {outcome.describe()}"
            return self._catalog.complete(entry, v2607.call_tool_result(error=message))
        if type(outcome) is Result:  # the hot path
            return self._catalog.complete(entry, outcome.result)
        if type(outcome) is Followed:
            return outcome.created
        if isinstance(outcome, InputDeclined):  # request.input(Model): the user said no
            return self._catalog.complete(entry, v2607.call_tool_result(error=outcome.message))
        if isinstance(outcome, BaseException):
            answer = error_result(outcome) if entry.error_results else None
            if answer is None:
                raise outcome
            log.warning("%s raised; answered as an isError result", entry.label, exc_info=outcome)
            return self._catalog.complete(entry, answer)
        return result_of(
            outcome,
            complete=lambda result: self._catalog.complete(entry, result),
            states=self._catalog.states,
            meta=self._request.meta,
            # the binding is needed only to seal InputRequired: computed then, not per call
            binding=self._binding or self._bind,
        )

    def _bind(self) -> str:
        """A first try's binding (a retry's came with its state): the tool and arguments
        called, the caller's principal."""
        return binding_of((self._entry.name, self._request.arguments), self._assigns)

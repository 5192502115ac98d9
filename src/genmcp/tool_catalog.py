"""The tools a Suite serves, and its ``tools/list`` and ``tools/call`` methods.

A :class:`ToolEntry` is what the Suite builds once per served tool: the instance, its
provider ``arg``, the compiled input and output validators, the ``tools/list`` descriptor and
the ``x-mcp-header`` parameters the HTTP transport checks against ``Mcp-Param-*`` headers.
Building it runs the tool's metadata hooks once, so a misconfigured tool fails when the Suite
is built, not at the first call.

:class:`ToolCatalog` holds the entries and answers ``tools/list`` (pages built once per
change, sealed cursors, merged cache hints) and ``tools/call``: it starts a ``Worker`` per
call, keeps the live ones (``workers``), and turns each outcome into the JSON-RPC response;
``InputRequired`` goes through the shared sealed ``requestState`` (``request_state.py``).

Imports genmcp's core modules; never a web framework.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from genmcp.errors import MCPError
from genmcp.listing import Catalog
from genmcp.protocol import v2607
from genmcp.protocol.jsonrpc import Request, RequestId, error_response, result_response
from genmcp.request_state import RequestStates, input_responses, principal_of
from genmcp.schema import (
    ArgumentValidator,
    InvalidArguments,
    advertised_schema,
    compile_schema,
    merge_options,
)
from genmcp.sealing import Sealer, digest
from genmcp.tool import CacheControl, Error, InputRequired, Outcome, Result, Tool, ToolRequest
from genmcp.worker import Worker

__all__ = ["ToolCatalog", "ToolEntry", "ToolProvider"]

log = logging.getLogger("genmcp")

Reply = tuple[dict[str, Any], int]

ToolProvider = type[Tool] | tuple[type[Tool], Any]
"""A tool class, or ``(ToolClass, arg)``; ``arg`` reaches every hook."""


class ToolEntry:
    """One served tool: the instance, its provider ``arg`` and what was built from them once."""

    __slots__ = ("arg", "descriptor", "header_params", "name", "output", "owner", "tool")

    def __init__(
        self, cls: type[Tool], arg: Any, schema_options: Mapping[str, Any] | None = None
    ) -> None:
        if not (isinstance(cls, type) and issubclass(cls, Tool)):
            raise TypeError(f"{cls!r} is not a Tool subclass (give a class or (class, arg))")
        self.owner = cls.__qualname__
        self.tool, self.arg = cls(), arg
        name = self.tool.info("name", arg)
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{self.owner}: a tool needs a non-blank name (class option name=...)")
        self.name = name
        schema = self.tool.input_schema(arg)
        # schema: issue 21, the Suite's schema_options then the tool's, key by key
        options = merge_options(schema_options, self.tool.schema_options(arg), owner=self.owner)
        if type(self.tool).validate_request is Tool.validate_request:
            validator = compile_schema(schema, owner=self.owner, options=options)
            self.tool.__dict__["_genmcp_validator"] = validator
            advertised = validator.advertised
        else:  # the tool validates itself: the schema only describes it
            advertised = advertised_schema(schema, owner=self.owner)
        output = self.tool.output_schema(arg)
        self.output: ArgumentValidator | None = (
            None if output is None else compile_schema(output, owner=self.owner, options=options)
        )
        self.descriptor = self._describe(advertised)
        self.header_params = _header_params(advertised)

    def cache_control(self) -> CacheControl:
        """The tool's cache hint for ``tools/list``."""
        return self.tool.cache_control(self.arg)

    def _describe(self, input_schema: dict[str, Any]) -> dict[str, Any]:
        descriptor: dict[str, Any] = {"name": self.name}
        for key in ("title", "description"):
            value = self.tool.info(key, self.arg)
            if value is not None:
                descriptor[key] = value
        descriptor["inputSchema"] = input_schema
        if self.output is not None:
            descriptor["outputSchema"] = self.output.advertised
        for key in ("annotations", "_meta"):
            value = self.tool.info(key, self.arg)
            if value is not None:
                descriptor[key] = dict(value)
        return descriptor


def _header_params(schema: dict[str, Any]) -> dict[str, str]:
    """Argument name -> ``x-mcp-header`` name, for root properties that declare one."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    found: dict[str, str] = {}
    for prop, spec in properties.items():
        if isinstance(spec, dict) and isinstance(spec.get("x-mcp-header"), str):
            found[prop] = spec["x-mcp-header"]
    return found


class ToolCatalog(Catalog[ToolEntry]):
    """The tools a Suite serves, their live workers, and ``tools/list``, ``tools/call``."""

    kind, method, key = "tool", "tools/list", "tools"

    def __init__(
        self,
        *,
        sealer: Sealer,
        states: RequestStates,
        page_size: int,
        result_meta: Mapping[str, Any],
    ) -> None:
        super().__init__(sealer=sealer, page_size=page_size, result_meta=result_meta)
        self.workers: dict[str, Worker] = {}
        self._states = states
        self.schema_options: Mapping[str, Any] | None = None  # schema: the Suite's (issue 21)

    def make(self, cls: Any, arg: Any) -> ToolEntry:
        return ToolEntry(cls, arg, self.schema_options)

    # -- tools/call ----------------------------------------------------------------------

    def call(self, request: Request, meta: dict[str, Any], assigns: Mapping[str, Any]) -> Worker:
        """Start the worker answering one ``tools/call``."""
        params = request.params
        name = params.get("name")
        if not isinstance(name, str):
            raise MCPError(
                "invalid_params", "Invalid params: tools/call needs params.name (a string)"
            )
        entry = self.entries.get(name)
        if entry is None:
            raise MCPError("unknown_tool", f"Unknown tool: {name!r}", {"name": name})
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        elif not isinstance(arguments, dict):
            raise MCPError(
                "invalid_params", "Invalid params: tools/call arguments must be an object"
            )
        responses = input_responses(params.get("inputResponses"))
        principal = principal_of(assigns)
        state = None
        if "requestState" in params:
            state = self._states.open(params, digest(name, arguments, principal))
        tool_request = ToolRequest(name, arguments, meta, responses, state)

        def finish(outcome: Outcome | BaseException) -> Reply:
            # the binding is needed only to seal InputRequired: computed then, not per call
            return self._finish(request.id, entry, meta, (name, arguments, principal), outcome)

        worker = Worker(
            tool=entry.tool,
            arg=entry.arg,
            name=name,
            request=tool_request,
            meta=meta,
            assigns=assigns,
            finish=finish,
            on_end=self._forget,
        )
        self.workers[worker.id] = worker
        return worker

    def _forget(self, worker: Worker) -> None:
        self.workers.pop(worker.id, None)

    def _finish(
        self,
        request_id: RequestId,
        entry: ToolEntry,
        meta: dict[str, Any],
        binding: tuple[str, Any, str | None],
        outcome: Outcome | BaseException,
    ) -> Reply:
        try:
            return result_response(
                request_id, self._outcome_result(entry, meta, binding, outcome)
            ), 200
        except MCPError as exc:
            return error_response(request_id, exc), exc.status
        except Exception:
            log.exception("tool %r failed", entry.name)
            failure = MCPError("internal_error", f"Internal error in tool {entry.name!r}")
            return error_response(request_id, failure), failure.status

    def _outcome_result(
        self,
        entry: ToolEntry,
        meta: dict[str, Any],
        binding: tuple[str, Any, str | None],
        outcome: Outcome | BaseException,
    ) -> dict[str, Any]:
        if isinstance(outcome, BaseException):
            if isinstance(outcome, InvalidArguments):
                message = f"Invalid arguments for tool {entry.name!r}: {outcome.describe()}"
                return self._complete(entry, v2607.call_tool_result(error=message))
            raise outcome
        if isinstance(outcome, Result):
            return self._complete(entry, outcome.result)
        if isinstance(outcome, Error):
            raise MCPError("internal_error", outcome.message, outcome.data, code=outcome.code)
        if isinstance(outcome, InputRequired):
            return self._states.input_required(meta, digest(*binding), outcome)
        raise TypeError(f"tool {entry.name!r} ended while streaming")  # Stream after close

    def _complete(self, entry: ToolEntry, result: Any) -> dict[str, Any]:
        if not isinstance(result, dict) or not isinstance(result.get("content"), list):
            raise TypeError(
                f"tool {entry.name!r}: Result() needs a CallToolResult dict with a content list "
                f"(use call_tool_result(...)), got {result!r}"
            )
        if entry.output is not None and "structuredContent" in result and not result.get("isError"):
            try:
                entry.output.validate(result["structuredContent"])
            except InvalidArguments as exc:
                raise TypeError(
                    f"tool {entry.name!r}: structuredContent does not match its output schema: "
                    f"{exc.describe()}"
                ) from None
        meta = result.get("_meta")
        merged = self._result_meta if meta is None else {**self._result_meta, **meta}
        return {**result, "resultType": "complete", "_meta": merged}

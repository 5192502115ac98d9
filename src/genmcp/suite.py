"""The Suite: serves a set of tools over MCP, whatever the transport.

It routes a parsed JSON-RPC request to its method handler (one dict lookup),
answers ``server/discover`` and ``tools/list`` from pages built once until the
tool set changes, starts a ``Worker`` per ``tools/call``, and turns each
outcome into the JSON-RPC response. Transports hand it requests whose
``_meta`` they may already have checked, and drain the worker's Outbox.

Imports genmcp's core and protocol modules; never a web framework.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from genmcp.channel import Pending
from genmcp.errors import MCPError
from genmcp.protocol import v2607
from genmcp.protocol.jsonrpc import Request, RequestId, error_response, result_response
from genmcp.protocol.meta import (
    META_CLIENT_CAPABILITIES,
    META_SERVER_INFO,
    check_meta,
    meta_of,
    request_version,
)
from genmcp.protocol.versions import MODERN_VERSIONS
from genmcp.schema import ArgumentValidator, InvalidArguments, advertised_schema, compile_schema
from genmcp.sealing import Sealer, SealError, digest
from genmcp.tool import CacheControl, Error, InputRequired, Outcome, Result, Tool, ToolRequest
from genmcp.worker import Worker

__all__ = ["Suite", "ToolEntry", "ToolProvider", "principal_of"]

log = logging.getLogger("genmcp")

ToolProvider = type[Tool] | tuple[type[Tool], Any]
"""A tool class, or ``(ToolClass, arg)``; ``arg`` reaches every hook."""

Response = dict[str, Any]
Reply = tuple[Response, int]
"""A JSON-RPC response and the HTTP status it should travel with."""

REQUEST_STATE: Final = "request_state"
CURSOR: Final = "cursor:"
CURSOR_MAX_AGE_S: Final = 7 * 24 * 3600.0
"""Cursors outlive any listing session; a change of the tool set voids them sooner."""


class ToolEntry:
    """One served tool: the instance, its provider ``arg`` and what was built from them once."""

    __slots__ = ("arg", "descriptor", "header_params", "name", "output", "owner", "tool")

    def __init__(self, cls: type[Tool], arg: Any) -> None:
        if not (isinstance(cls, type) and issubclass(cls, Tool)):
            raise TypeError(f"{cls!r} is not a Tool subclass (give a class or (class, arg))")
        self.owner = cls.__qualname__
        self.tool, self.arg = cls(), arg
        name = self.tool.info("name", arg)
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{self.owner}: a tool needs a non-blank name (class option name=...)")
        self.name = name
        schema = self.tool.input_schema(arg)
        if type(self.tool).validate_request is Tool.validate_request:
            validator = compile_schema(schema, owner=self.owner)
            self.tool.__dict__["_genmcp_validator"] = validator
            advertised = validator.advertised
        else:  # the tool validates itself: the schema only describes it
            advertised = advertised_schema(schema, owner=self.owner)
        output = self.tool.output_schema(arg)
        self.output: ArgumentValidator | None = (
            None if output is None else compile_schema(output, owner=self.owner)
        )
        self.descriptor = self._describe(advertised)
        self.header_params = _header_params(advertised)

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


def principal_of(assigns: Mapping[str, Any]) -> str | None:
    """Who is calling, as auth recorded it (``principal`` or ``sub`` in the assigns)."""
    for key in ("principal", "sub"):
        value = assigns.get(key)
        if value is not None:
            return str(value)
    return None


class Suite:
    """Serves tools over MCP; transports feed it requests.

    Args:
        server_name: ``serverInfo.name``.
        server_version: ``serverInfo.version``.
        tools: tool classes or ``(ToolClass, arg)`` pairs.
        server_title: optional display name.
        instructions: optional text for the model, sent by ``server/discover``.
        page_size: how many tools one ``tools/list`` page holds.
        secret_key: key(s) that sign ``requestState`` and cursors (current first);
            default ``GENMCP_SECRET_KEY``, else a random per-process key and a warning.
        request_state_max_age_s: how long a ``requestState`` stays valid.
        discover_cache_control: cache hint of ``server/discover``.
    """

    def __init__(
        self,
        *,
        server_name: str,
        server_version: str,
        tools: Iterable[ToolProvider] = (),
        server_title: str | None = None,
        instructions: str | None = None,
        page_size: int = 100,
        secret_key: str | bytes | list[str | bytes] | None = None,
        request_state_max_age_s: float = 1200.0,
        discover_cache_control: CacheControl = ("public", 60_000),
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
        self._result_meta = {META_SERVER_INFO: self.server_info}
        self._tools: dict[str, ToolEntry] = {}
        self._pages: list[Response] | None = None
        self._pages_version = ""
        self._pages_expire = 0.0
        self._workers: dict[str, Worker] = {}
        for provider in tools:
            self.add_tool(provider)
        self._methods: dict[str, Callable[[Request, dict[str, Any], Mapping[str, Any]], Any]] = {
            "server/discover": self._discover,
            "tools/list": self._list_tools,
            "tools/call": self._call_tool,
        }

    # -- configuration ------------------------------------------------------------

    def add_tool(self, provider: ToolProvider) -> ToolEntry:
        """Serve one more tool; a name already served raises ``ValueError``."""
        cls, arg = provider if isinstance(provider, tuple) else (provider, None)
        entry = ToolEntry(cls, arg)
        other = self._tools.get(entry.name)
        if other is not None:
            raise ValueError(
                f"{entry.owner}: tool name {entry.name!r} is already used by {other.owner}"
            )
        self._tools[entry.name] = entry
        self._pages = None
        return entry

    def remove_tool(self, name: str) -> bool:
        """Stop serving the tool ``name``; False when no such tool was served."""
        removed = self._tools.pop(name, None) is not None
        if removed:
            self._pages = None
        return removed

    def tool(self, name: str) -> ToolEntry | None:
        """The entry of the tool ``name``, if served."""
        return self._tools.get(name)

    @property
    def capabilities(self) -> dict[str, Any]:
        """ServerCapabilities derived from what is configured."""
        return {"tools": {}} if self._tools else {}

    # -- workers ------------------------------------------------------------------

    @property
    def live_workers(self) -> int:
        """How many calls are running right now (tests check this returns to zero)."""
        return len(self._workers)

    def send(self, worker_id: str, message: Any) -> bool:
        """Post ``message`` to the mailbox of the worker ``worker_id``; False if it ended."""
        worker = self._workers.get(worker_id)
        return worker is not None and worker.mailbox.send(message)

    async def aclose(self) -> None:
        """Disconnect every live worker (at shutdown)."""
        for worker in list(self._workers.values()):
            worker.disconnect()

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

    # -- tools/list -----------------------------------------------------------------

    def _list_tools(self, request: Request, meta: dict[str, Any], assigns: Any) -> Response:
        fresh = self._pages is not None and time.monotonic() < self._pages_expire
        pages = self._pages if fresh and self._pages is not None else self._build_pages()
        cursor = request.params.get("cursor")
        if cursor is None:
            return pages[0]
        try:
            payload = self.sealer.unseal(CURSOR + "tools/list", cursor, max_age_s=CURSOR_MAX_AGE_S)
        except SealError as exc:
            raise MCPError("bad_cursor", f"Invalid cursor: {exc}") from None
        version, index = payload if isinstance(payload, list) and len(payload) == 2 else (None, -1)
        if version != self._pages_version or not isinstance(index, int) or index >= len(pages):
            raise MCPError("bad_cursor", "Invalid cursor: the tool list has changed; start again")
        return pages[index]

    def _build_pages(self) -> list[Response]:
        entries = sorted(self._tools.values(), key=lambda entry: entry.name)
        self._pages_version = digest([entry.name for entry in entries])[:16]
        self._pages_expire = time.monotonic() + CURSOR_MAX_AGE_S / 2  # cursors in pages stay valid
        scope, ttl = _merge_cache(entry.tool.cache_control(entry.arg) for entry in entries)
        size = self.page_size
        chunks = [entries[i : i + size] for i in range(0, len(entries), size)] or [[]]
        pages: list[Response] = []
        for index, chunk in enumerate(chunks):
            page: Response = {
                "resultType": "complete",
                "tools": [entry.descriptor for entry in chunk],
                "ttlMs": ttl,
                "cacheScope": scope,
                "_meta": self._result_meta,
            }
            if index + 1 < len(chunks):
                cursor = [self._pages_version, index + 1]
                page["nextCursor"] = self.sealer.seal(CURSOR + "tools/list", cursor)
            pages.append(page)
        self._pages = pages
        return pages

    # -- tools/call -----------------------------------------------------------------

    def _call_tool(
        self, request: Request, meta: dict[str, Any], assigns: Mapping[str, Any]
    ) -> Worker:
        params = request.params
        name = params.get("name")
        if not isinstance(name, str):
            raise MCPError(
                "invalid_params", "Invalid params: tools/call needs params.name (a string)"
            )
        entry = self._tools.get(name)
        if entry is None:
            raise MCPError("unknown_tool", f"Unknown tool: {name!r}", {"name": name})
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        elif not isinstance(arguments, dict):
            raise MCPError(
                "invalid_params", "Invalid params: tools/call arguments must be an object"
            )
        responses = _input_responses(params.get("inputResponses"))
        principal = principal_of(assigns)
        binding = digest(name, arguments, principal)
        state = None
        if "requestState" in params:
            state = self._open_state(params["requestState"], binding)
        tool_request = ToolRequest(name, arguments, meta, responses, state)

        def finish(outcome: Outcome | BaseException) -> Reply:
            return self._finish(request.id, entry, meta, binding, outcome)

        worker = Worker(
            tool=entry.tool,
            arg=entry.arg,
            name=name,
            request=tool_request,
            meta=meta,
            assigns=dict(assigns),
            finish=finish,
            on_end=self._forget,
        )
        self._workers[worker.id] = worker
        return worker

    def _forget(self, worker: Worker) -> None:
        self._workers.pop(worker.id, None)

    def _open_state(self, token: Any, binding: str) -> Any:
        try:
            payload = self.sealer.unseal(REQUEST_STATE, token)
        except SealError as exc:
            raise MCPError(
                "bad_request_state",
                f"Invalid requestState ({exc.reason}): {exc}",
                {"reason": exc.reason},
            ) from None
        if not isinstance(payload, dict) or payload.get("b") != binding:
            raise MCPError(
                "bad_request_state",
                "Invalid requestState (rebound): it was issued for another tool, other arguments "
                "or another user",
                {"reason": "rebound"},
            )
        return payload.get("s")

    def _finish(
        self,
        request_id: RequestId,
        entry: ToolEntry,
        meta: dict[str, Any],
        binding: str,
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
        self, entry: ToolEntry, meta: dict[str, Any], binding: str, outcome: Outcome | BaseException
    ) -> Response:
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
            return self._input_required(meta, binding, outcome)
        raise TypeError(f"tool {entry.name!r} ended while streaming")  # Stream after close

    def _complete(self, entry: ToolEntry, result: Any) -> Response:
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

    def _input_required(
        self, meta: dict[str, Any], binding: str, outcome: InputRequired
    ) -> Response:
        declared = meta.get(META_CLIENT_CAPABILITIES) or {}
        missing = (
            v2607.missing_capabilities(outcome.requests, declared) if outcome.requests else None
        )
        if missing:
            raise MCPError(
                "missing_capability",
                "Missing required client capability: " + ", ".join(sorted(missing)),
                {"requiredCapabilities": missing},
            )
        token = self.sealer.seal(REQUEST_STATE, {"b": binding, "s": outcome.state})
        result = v2607.input_required_result(outcome.requests or None, token)
        result["_meta"] = self._result_meta
        return result


def _input_responses(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise MCPError(
            "bad_input_responses",
            "Invalid params: inputResponses must be an object whose values are result objects",
        )
    return value


def _merge_cache(hints: Iterable[CacheControl]) -> CacheControl:
    """Public only if every hint is public; the smallest TTL wins; none: private, 0."""
    merged: CacheControl | None = None
    for scope, ttl in hints:
        if merged is None:
            merged = (scope, ttl)
        else:
            both_public = merged[0] == "public" and scope == "public"
            merged = ("public" if both_public else "private", min(merged[1], ttl))
    return merged or ("private", 0)

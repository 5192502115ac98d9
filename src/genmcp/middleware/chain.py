"""The middleware chain: code that wraps every MCP request the Suite answers, in every era.

A middleware is an async callable ``(request, call_next) -> Call``: it sees an
:class:`MCPRequest` (method, params, checked ``_meta``, assigns, era and what the transport
knows, a :class:`TransportContext`), may change it (``request.replace(...)``) before
``call_next``, may answer it itself (``request.respond(result)``, or raise ``MCPError``), and
may watch the Call it returns (:func:`watch`: each streamed message, then the final
:class:`CallEnd`). Subclass :class:`Middleware` for per-method hooks.

Order: ``Suite(middleware=[a, b, c])`` runs ``a`` first (outermost): ``a`` sees the request
before ``b`` and the Call after ``b``; the Suite's routing is innermost. A middleware that
raises ``MCPError`` is answered with that error; any other exception (or a return that is not
a Call) is logged and answered -32603 with no detail, and a Call already made inside is
disconnected. The chain is the one seam of every request: HTTP, stdio and the test client,
both eras; legacy session methods (``initialize``, ``ping``, ``logging/setLevel``,
``resources/(un)subscribe``) run through it too, answered by the session layer innermost.

Imports asyncio, genmcp's core and the request in flight (``genmcp.call``); no web framework.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, final

from genmcp.call import Call
from genmcp.call.job import Asker
from genmcp.errors import CallbackReturnError, MCPError, internal_error
from genmcp.events import Answer, Ended, Ending, Event, Interim
from genmcp.protocol.jsonrpc import Request, RequestId, error_response, result_response
from genmcp.protocol.methods import METHODS, Hook
from genmcp.protocol.versions import Era

__all__ = [
    "CallEnd",
    "Link",
    "MCPRequest",
    "Middleware",
    "Next",
    "TransportContext",
    "refusal",
    "run_chain",
    "session_ended",
    "watch",
]

log = logging.getLogger("genmcp.middleware")

_NO_HEADERS: Final[Mapping[str, str]] = MappingProxyType({})


@final
@dataclass(frozen=True, slots=True)
class TransportContext:
    """What only the transport knows about a request, handed to the Suite with it.

    Attributes:
        transport: ``network.transport``: ``"tcp"`` (HTTP), ``"pipe"`` (stdio), ``"inproc"``.
        protocol: ``network.protocol.name``: ``"http"``, or None.
        headers: the HTTP request's headers (lower-case names); empty elsewhere.
        era: ``Era.MODERN`` (2026-07-28) or ``Era.LEGACY`` (a 2025 session); a ``str``.
        session_id: a legacy session's id (its random key, never the sealed token).
        protocol_version: a legacy session's negotiated revision.
    """

    transport: str | None = None
    protocol: str | None = None
    headers: Mapping[str, str] = field(default_factory=lambda: _NO_HEADERS)
    era: Era = Era.MODERN
    session_id: str | None = None
    protocol_version: str | None = None

    def replace(self, **changes: Any) -> TransportContext:
        """A copy with ``changes``."""
        return dataclasses.replace(self, **changes)

    def in_session(self, session_id: str, protocol_version: str) -> TransportContext:
        """A copy for a request of the legacy session ``session_id`` (each legacy request:
        built directly, not through ``dataclasses.replace``)."""
        transport, protocol, headers = self.transport, self.protocol, self.headers
        return TransportContext(
            transport, protocol, headers, Era.LEGACY, session_id, protocol_version
        )


NO_CONTEXT: Final = TransportContext()


@final
@dataclass(frozen=True, slots=True)
class MCPRequest:
    """One request as the chain sees it; frozen: change it with :meth:`replace`."""

    request: Request
    assigns: Mapping[str, Any]
    context: TransportContext = NO_CONTEXT
    checked_meta: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def method(self) -> str:
        """The JSON-RPC method."""
        return self.request.method

    @property
    def params(self) -> dict[str, Any]:
        """The request's params (do not mutate: :meth:`replace` them)."""
        return self.request.params

    @property
    def id(self) -> RequestId:
        """The JSON-RPC request id."""
        return self.request.id

    @property
    def era(self) -> Era:
        """``Era.MODERN`` or ``Era.LEGACY`` (equal to ``"modern"`` / ``"legacy"``)."""
        return self.context.era

    @property
    def meta(self) -> Mapping[str, Any]:
        """The request's ``_meta`` (checked when the transport checked it; else as sent)."""
        if self.checked_meta is not None:
            return self.checked_meta
        sent = self.request.params.get("_meta")
        return sent if isinstance(sent, dict) else _NO_HEADERS

    @property
    def target(self) -> str | None:
        """The tool or prompt name, or the resource URI, the request is about (the param its
        method's record names: ``Method.target``)."""
        key = _TARGETS.get(self.request.method)
        value = None if key is None else self.request.params.get(key)
        return value if isinstance(value, str) else None

    def replace(
        self,
        *,
        params: dict[str, Any] | None = None,
        assigns: Mapping[str, Any] | None = None,
    ) -> MCPRequest:
        """A copy with new ``params`` (their ``_meta`` is taken as checked) or ``assigns``."""
        request, meta = self.request, self.checked_meta
        if params is not None:
            request = Request(request.id, request.method, params)
            sent = params.get("_meta")
            meta = sent if meta is not None and isinstance(sent, dict) else meta
        return MCPRequest(request, self.assigns if assigns is None else assigns, self.context, meta)

    def respond(self, result: dict[str, Any]) -> Call:
        """Short-circuit: answer with ``result`` (a result object), nothing further runs."""
        return Call.answered(self.request, Answer(result_response(self.request.id, result)))

    def fail(self, error: MCPError) -> Call:
        """Short-circuit: answer with ``error`` (raising it does the same)."""
        response = error_response(self.request.id, error)
        return Call.answered(self.request, Answer(response, error.reason))


_TARGETS: Final[Mapping[str, str]] = {
    name: method.target for name, method in METHODS.items() if method.target is not None
}
"""Method -> the params key of its target (the records, read once at import)."""

Next = Callable[[MCPRequest], Awaitable[Call]]
"""What a middleware calls to run the rest of the chain."""

Link = Callable[[MCPRequest, Next], Awaitable[Call]]
"""One middleware of the chain: an async callable, or a :class:`Middleware`."""


class Middleware:
    """Base class with per-method hooks; each default calls :meth:`on_request`, which calls
    ``call_next``. Override the hooks you need (all async, all ``(request, call_next)``)."""

    async def __call__(self, request: MCPRequest, call_next: Next) -> Call:
        hook = _HOOKS.get(request.method)
        if hook is None:
            return await self.on_request(request, call_next)
        handler: Link = getattr(self, hook)
        return await handler(request, call_next)

    async def on_request(self, request: MCPRequest, call_next: Next) -> Call:
        """Every request (the other hooks end here by default)."""
        return await call_next(request)

    async def on_call_tool(self, request: MCPRequest, call_next: Next) -> Call:
        """``tools/call``."""
        return await self.on_request(request, call_next)

    async def on_list(self, request: MCPRequest, call_next: Next) -> Call:
        """``tools/list``, ``prompts/list``, ``resources/list``, ``resources/templates/list``."""
        return await self.on_request(request, call_next)

    async def on_read_resource(self, request: MCPRequest, call_next: Next) -> Call:
        """``resources/read``."""
        return await self.on_request(request, call_next)

    async def on_get_prompt(self, request: MCPRequest, call_next: Next) -> Call:
        """``prompts/get``."""
        return await self.on_request(request, call_next)

    def on_session_end(self, context: TransportContext, duration_s: float) -> None:
        """A legacy session ended (DELETE, or the stdio client left) after ``duration_s``."""


_HOOKS: Final[Mapping[str, Hook]] = {
    name: method.hook for name, method in METHODS.items() if method.hook is not None
}
"""Method -> its :class:`Middleware` hook (the records, read once at import)."""

Route = Callable[[Request, Mapping[str, Any], Any, "Asker | None"], Awaitable[Call]]
Local = Callable[[Request], Awaitable[Answer]]


def refusal(failure: MCPError) -> Local:
    """A ``local`` answer that is ``failure`` (a transport's refusal, run through the chain)."""

    async def refuse(request: Request) -> Answer:
        raise failure

    return refuse


async def run_chain(
    chain: Sequence[Link],
    start: MCPRequest,
    route: Route,
    asker: Asker | None = None,
    local: Local | None = None,
) -> Call:
    """Run ``start`` through ``chain`` to ``route`` (the Suite) or ``local`` (a request the
    session layer answers); always a Call, never an exception."""

    async def innermost(request: MCPRequest) -> Call:
        if local is None:
            return await route(request.request, request.assigns, request.checked_meta, asker)
        try:
            answer = await local(request.request)
        except MCPError as exc:
            return request.fail(exc)
        return Call.answered(request.request, answer)

    async def step(index: int, request: MCPRequest) -> Call:
        if index == len(chain):
            return await innermost(request)
        made: list[Call] = []

        async def call_next(forwarded: MCPRequest) -> Call:
            call = await step(index + 1, forwarded)
            made.append(call)
            return call

        handler = chain[index]
        try:
            call = await handler(request, call_next)
            if not isinstance(call, Call):
                raise CallbackReturnError(f"middleware {handler!r} returned {call!r}, not a Call")
            return call
        except MCPError as exc:
            failure = exc
        except Exception:
            log.exception("middleware %r failed on %s", handler, request.method)
            failure = internal_error("a middleware")
        for inner in made:
            inner.disconnect()
        return request.fail(failure)

    return await step(0, start)


def session_ended(chain: Sequence[Link], context: TransportContext, duration_s: float) -> None:
    """Tell each :class:`Middleware` of ``chain`` that a legacy session ended (a plain
    callable has no session hook)."""
    for handler in chain:
        if isinstance(handler, Middleware):
            try:
                handler.on_session_end(context, duration_s)
            except Exception:
                log.exception("middleware %r failed on a session end", handler)


@final
@dataclass(frozen=True, slots=True)
class CallEnd:
    """How a Call ended, as :func:`watch` reports it.

    Attributes:
        answer: the response as the Suite built it (2026-07-28 vocabulary), or None.
        ended: an :class:`~genmcp.events.Ending` (a ``str``): ``ANSWERED``, ``CANCELLED``
            (the client cancelled: no response) or ``DISCONNECTED`` (the client left).
        messages: how many messages (notifications, server requests) went out before.
    """

    answer: Answer | None
    ended: Ending
    messages: int = 0

    @property
    def error(self) -> dict[str, Any] | None:
        """The JSON-RPC error object of an error response."""
        error = None if self.answer is None else self.answer.response.get("error")
        return error if isinstance(error, dict) else None

    @property
    def result(self) -> dict[str, Any] | None:
        """The result object of a successful response."""
        result = None if self.answer is None else self.answer.response.get("result")
        return result if isinstance(result, dict) else None

    @property
    def tool_error(self) -> bool:
        """True for a result with ``isError`` (a tool failure the model reads)."""
        result = self.result
        return result is not None and result.get("isError") is True


class _Watch:
    """A CallObserver that counts messages and reports the CallEnd once."""

    __slots__ = ("_answer", "_cancelled", "_messages", "_on_done", "_on_event")

    def __init__(
        self, on_done: Callable[[CallEnd], None] | None, on_event: Callable[[Event], None] | None
    ) -> None:
        self._on_done, self._on_event = on_done, on_event
        self._answer: Answer | None = None
        self._cancelled = False
        self._messages = 0

    def event(self, event: Event) -> None:
        if isinstance(event, Answer):
            self._answer = event
        elif isinstance(event, Ended):
            self._cancelled = True
        elif isinstance(event, Interim):
            self._messages += 1
            if self._on_event is not None:
                _guarded(self._on_event, event)

    def done(self) -> None:
        if self._on_done is None:
            return
        answer = self._answer
        if answer is not None:
            ended = Ending.ANSWERED
        else:
            ended = Ending.CANCELLED if self._cancelled else Ending.DISCONNECTED
        _guarded(self._on_done, CallEnd(answer, ended, self._messages))


def watch(
    call: Call,
    on_done: Callable[[CallEnd], None] | None = None,
    on_event: Callable[[Event], None] | None = None,
) -> Call:
    """Call ``on_event`` with each message ``call`` sends before its response, and
    ``on_done`` once with its :class:`CallEnd`; returns ``call``. Exceptions are logged."""
    call.observe(_Watch(on_done, on_event))
    return call


def _guarded(callback: Callable[[Any], None], value: Any) -> None:
    try:
        callback(value)
    except Exception:
        log.exception("a middleware watch callback failed")

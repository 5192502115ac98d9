"""OpenTelemetry for every MCP request: a SERVER span and the operation-duration metric.

:class:`Telemetry` is a middleware (``genmcp.middleware``): put it first in
``Suite(middleware=[Telemetry(), ...])``. It follows the OpenTelemetry semantic conventions
for MCP (``docs/gen-ai/mcp.md``, status Development):

- one span of kind SERVER per request, named ``{mcp.method.name} {target}`` (the tool or
  prompt name when it has the spec's tool-name form, 1-128 of ``A-Za-z0-9_-.``, and the
  Suite knows it; else the bare method, as for ``resources/read``: a URI or a name the
  client made up is high-cardinality, and an unknown name is not a metric attribute), with
  ``mcp.method.name``, ``gen_ai.tool.name`` and ``gen_ai.operation.name=execute_tool``,
  ``gen_ai.prompt.name``, ``mcp.resource.uri``, ``jsonrpc.request.id``,
  ``mcp.protocol.version``, ``mcp.session.id`` (legacy sessions), ``network.transport``,
  ``network.protocol.name``; on failure ``error.type`` (the JSON-RPC code, ``tool_error``
  for an ``isError`` result, ``cancelled`` or ``disconnected`` when no response went out),
  ``rpc.response.status_code`` (the code) and status ERROR with the error message;
- events on the span for each message sent before the response (named by its method:
  progress, logs, a legacy input round's server requests), ``mcp.stream.start`` and
  ``mcp.input_required`` (a 2026-07-28 input round: the client retries);
- the parent is the W3C ``traceparent``/``tracestate`` (and ``baggage``) in
  ``params._meta``, through the configured propagator; else the HTTP headers; when both
  carry a context the transport's becomes a link;
- the span ends when the Call is done (a streaming call included; a disconnect is
  recorded), and ``mcp.server.operation.duration`` (s) is recorded then, with the
  convention's attributes; ``mcp.server.session.duration`` when a legacy session ends.

Only ``opentelemetry-api`` is needed (``pip install 'genmcp[otel]'``); with no SDK
configured every span is a no-op. Nothing imports this module unless you do.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from importlib import metadata
from typing import Any, Final

from genmcp.protocol.methods import PROMPTS_GET, TOOLS_CALL

try:
    from opentelemetry import context as otel_context
    from opentelemetry import metrics, propagate, trace
    from opentelemetry.trace import Link, Span, SpanKind, Status, StatusCode
except ImportError as exc:  # pragma: no cover - the extra is not installed
    raise ImportError(
        "genmcp.middleware.telemetry needs the OpenTelemetry API: pip install 'genmcp[otel]'"
    ) from exc

from genmcp.call import Call
from genmcp.events import Answer, Ended, Ending, Event, Interim, StreamStart
from genmcp.middleware.chain import MCPRequest, Middleware, Next, TransportContext
from genmcp.protocol.versions import META_PROTOCOL_VERSION

__all__ = ["DURATION_BUCKETS", "Telemetry"]

DURATION_BUCKETS: Final = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
"""The explicit bucket boundaries the convention advises for both duration histograms."""

_PROPAGATED: Final = ("traceparent", "tracestate", "baggage")
_SPAN_TARGET: Final = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
"""A tool or prompt name put in a span name: the spec's tool-name form (else the bare method)."""
_MAX_ATTRIBUTE: Final = 1024
"""A longer target is cut in the span attributes (a client chose it)."""
_UNKNOWN_TARGET: Final = frozenset({"unknown_tool", "unknown_prompt"})
_TARGET_KEYS: Final = ("gen_ai.tool.name", "gen_ai.prompt.name")
_METRIC_KEYS: Final = frozenset(
    {
        "mcp.method.name",
        "error.type",
        "gen_ai.tool.name",
        "gen_ai.prompt.name",
        "gen_ai.operation.name",
        "rpc.response.status_code",
        "mcp.protocol.version",
        "network.transport",
        "network.protocol.name",
    }
)


class Telemetry(Middleware):
    """Spans and metrics for every request (see the module docstring).

    Args:
        tracer_provider: where spans go (default: the global one).
        meter_provider: where metrics go (default: the global one).
    """

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
    ) -> None:
        version = _version()
        self._tracer = trace.get_tracer("genmcp", version, tracer_provider=tracer_provider)
        meter = metrics.get_meter("genmcp", version, meter_provider=meter_provider)
        self._operation = meter.create_histogram(
            "mcp.server.operation.duration",
            unit="s",
            description="Duration of the MCP request as observed on the server",
            explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
        )
        self._session = meter.create_histogram(
            "mcp.server.session.duration",
            unit="s",
            description="Duration of the MCP session as observed on the server",
            explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
        )

    async def on_request(self, request: MCPRequest, call_next: Next) -> Call:
        started = time.perf_counter()
        attributes = request_attributes(request)
        parent, links = _parents(request)
        span = self._tracer.start_span(
            span_name(request),
            context=parent,
            kind=SpanKind.SERVER,
            attributes=attributes,
            links=links,
        )
        token = otel_context.attach(trace.set_span_in_context(span, parent))
        try:  # the Call's task starts here: the tool's own spans are children of ours
            call = await call_next(request)
        except BaseException:
            span.end()
            raise
        finally:
            otel_context.detach(token)
        call.observe(_Observer(self, span, attributes, started))
        return call

    def on_session_end(self, context: TransportContext, duration_s: float) -> None:
        attributes = _transport_attributes(context)
        attributes.pop("mcp.session.id", None)  # not a metric attribute: unbounded
        if context.protocol_version:
            attributes["mcp.protocol.version"] = context.protocol_version
        self._session.record(duration_s, attributes)

    def _record(self, duration_s: float, attributes: Mapping[str, Any]) -> None:
        kept = {k: v for k, v in attributes.items() if k in _METRIC_KEYS}
        self._operation.record(duration_s, kept)


def span_name(request: MCPRequest) -> str:
    """``{mcp.method.name} {target}`` for a tool or prompt whose name has the spec's form
    (1-128 of ``A-Za-z0-9_-.``), else the method: a client cannot put text of its choosing
    (a newline, a megabyte) into span names."""
    method = request.method
    if method in (TOOLS_CALL, PROMPTS_GET):
        target = request.target
        if target is not None and _SPAN_TARGET.fullmatch(target):
            return f"{method} {target}"
    return method


def request_attributes(request: MCPRequest) -> dict[str, Any]:
    """The span attributes known when the request arrives."""
    attributes = _transport_attributes(request.context)
    attributes["mcp.method.name"] = request.method
    if request.id is not None:
        attributes["jsonrpc.request.id"] = str(request.id)
    target, method = request.target, request.method
    if target is not None:
        target = target[:_MAX_ATTRIBUTE]
        if method == TOOLS_CALL:
            attributes["gen_ai.tool.name"] = target
            attributes["gen_ai.operation.name"] = "execute_tool"
        elif method == PROMPTS_GET:
            attributes["gen_ai.prompt.name"] = target
        else:
            attributes["mcp.resource.uri"] = target
    version = request.context.protocol_version or request.meta.get(META_PROTOCOL_VERSION)
    if isinstance(version, str):
        attributes["mcp.protocol.version"] = version
    return attributes


def _transport_attributes(context: TransportContext) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    if context.transport:
        attributes["network.transport"] = context.transport
    if context.protocol:
        attributes["network.protocol.name"] = context.protocol
    if context.session_id:
        attributes["mcp.session.id"] = context.session_id
    return attributes


def _parents(request: MCPRequest) -> tuple[Any, list[Link]]:
    """The parent context (``_meta`` first, else the HTTP headers) and links to add."""
    meta = request.meta
    carried = {key: meta[key] for key in _PROPAGATED if isinstance(meta.get(key), str)}
    headers = request.context.headers
    sent = {key: headers[key] for key in _PROPAGATED if key in headers}
    if not carried:
        return (propagate.extract(sent) if sent else None), []
    parent = propagate.extract(carried)
    if not _valid(parent):
        return (propagate.extract(sent) if sent else None), []
    if sent:
        transport = trace.get_current_span(propagate.extract(sent)).get_span_context()
        if transport.is_valid:
            return parent, [Link(transport)]
    return parent, []


def _valid(context: Any) -> bool:
    return bool(trace.get_current_span(context).get_span_context().is_valid)


class _Observer:
    """Watches one Call for its span: events as they go out, the end when it is done."""

    __slots__ = ("_answer", "_attributes", "_cancelled", "_owner", "_span", "_started")

    def __init__(
        self, owner: Telemetry, span: Span, attributes: dict[str, Any], started: float
    ) -> None:
        self._owner, self._span, self._attributes = owner, span, attributes
        self._started = started
        self._answer: Answer | None = None
        self._cancelled = False

    def event(self, event: Event) -> None:
        if isinstance(event, Answer):
            self._answer = event
        elif isinstance(event, Ended):
            self._cancelled = True
        elif isinstance(event, Interim) and self._span.is_recording():
            self._span.add_event(_message_name(event.message), _message_attributes(event.message))
        elif isinstance(event, StreamStart) and self._span.is_recording():
            self._span.add_event("mcp.stream.start")

    def done(self) -> None:
        span, attributes = self._span, self._attributes
        outcome = _outcome(self._answer, self._cancelled)
        if outcome is not None:
            error_type, code, message = outcome
            attributes["error.type"] = error_type
            if code is not None:
                attributes["rpc.response.status_code"] = code
            span.set_status(Status(StatusCode.ERROR, message))
            span.set_attributes({k: v for k, v in attributes.items() if k in _ERROR_KEYS})
        elif _input_required(self._answer):
            span.add_event("mcp.input_required")
        if self._answer is not None and self._answer.reason in _UNKNOWN_TARGET:
            span.update_name(self._attributes["mcp.method.name"])  # not a name of ours
            attributes = {k: v for k, v in attributes.items() if k not in _TARGET_KEYS}
        span.end()
        self._owner._record(time.perf_counter() - self._started, attributes)


def _version() -> str:
    """genmcp's version, as installed (read here, not from ``genmcp``: no import upward)."""
    try:
        return metadata.version("genmcp")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return "0+unknown"


_ERROR_KEYS: Final = frozenset({"error.type", "rpc.response.status_code"})


def _outcome(answer: Answer | None, cancelled: bool) -> tuple[str, str | None, str | None] | None:
    """``(error.type, rpc.response.status_code, message)`` of a failure; None on success."""
    if answer is None:
        return (Ending.CANCELLED if cancelled else Ending.DISCONNECTED).value, None, None
    error = answer.response.get("error")
    if isinstance(error, dict):
        code = str(error.get("code", "_OTHER"))
        message = error.get("message")
        return code, code, message if isinstance(message, str) else None
    result = answer.response.get("result")
    if isinstance(result, dict) and result.get("isError") is True:
        return "tool_error", None, None
    return None


def _input_required(answer: Answer | None) -> bool:
    result = None if answer is None else answer.response.get("result")
    return isinstance(result, dict) and result.get("resultType") == "input_required"


def _message_name(message: Mapping[str, Any]) -> str:
    method = message.get("method")
    return method if isinstance(method, str) else "message"


def _message_attributes(message: Mapping[str, Any]) -> dict[str, Any]:
    attributes: dict[str, Any] = {"mcp.method.name": _message_name(message)}
    if "id" in message and message["id"] is not None:  # a server request: an input round
        attributes["jsonrpc.request.id"] = str(message["id"])
    return attributes

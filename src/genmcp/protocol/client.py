"""The client's half of the Streamable HTTP wire: requests, their headers, SSE replies.

* ``build_request``: a 2026-07-28 JSON-RPC request with its ``params._meta``.
* ``request_headers``: the Streamable HTTP headers a request needs (``MCP-Protocol-Version``,
  ``Mcp-Method``, ``Mcp-Name``, ``Mcp-Param-*``), values encoded as the spec says.
* ``SSEParser``: the ``data`` of server-sent events, fed chunk by chunk (linear; an event
  over ``max_event`` bytes raises ``EventTooLarge``).
* ``header_problem``: why a listed tool's ``x-mcp-header`` annotations break the rules
  (clients drop such a tool); ``is_modern_error``: an error only a 2026-07-28 server sends.

Shared by ``genmcp.testing`` and ``genmcp.client`` (which the command line runs on). Pure: no I/O,
no asyncio; imports genmcp's protocol modules only.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any, Final

from genmcp.protocol.methods import METHODS, TOOLS_CALL
from genmcp.protocol.versions import (
    LATEST,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
)

__all__ = [
    "ACCEPT",
    "CLI_INFO",
    "PROTOCOL_VERSION",
    "EventTooLarge",
    "Message",
    "SSEParser",
    "as_object",
    "build_request",
    "encode_header_value",
    "header_params",
    "header_problem",
    "is_modern_error",
    "request_headers",
]

Message = dict[str, Any]
PROTOCOL_VERSION: Final = LATEST
CLI_INFO: Final[Mapping[str, str]] = {"name": "genmcp-cli", "version": "0"}
ACCEPT: Final = "application/json, text/event-stream"
NAME_PARAMS: Final[Mapping[str, str]] = {
    name: method.mcp_name for name, method in METHODS.items() if method.mcp_name is not None
}
"""Method -> the params key its ``Mcp-Name`` header carries (``Method.mcp_name``)."""
_B64_PREFIX: Final = "=?base64?"
_TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""An RFC 9110 token: what an ``x-mcp-header`` name must be."""
HEADER_TYPES: Final = frozenset({"string", "integer", "boolean"})
MODERN_CODES: Final = frozenset({-32020, -32021})
"""JSON-RPC codes only a 2026-07-28 server sends (header mismatch, missing capability)."""


def as_object(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else an empty one (for reading untrusted messages)."""
    return value if isinstance(value, Mapping) else {}


def build_request(
    method: str,
    params: Mapping[str, Any] | None,
    request_id: str | int,
    *,
    version: str,
    capabilities: Mapping[str, Any],
    client_info: Mapping[str, Any] | None = None,
    progress_token: str | int | None = None,
    log_level: str | None = None,
    meta: Mapping[str, Any] | None = None,
) -> Message:
    """A JSON-RPC request whose ``params._meta`` carries what 2026-07-28 requires.

    ``meta`` entries are merged last (a test may override or break any key).
    """
    wanted: dict[str, Any] = {
        META_PROTOCOL_VERSION: version,
        META_CLIENT_CAPABILITIES: dict(capabilities),
    }
    if client_info is not None:
        wanted[META_CLIENT_INFO] = dict(client_info)
    if progress_token is not None:
        wanted["progressToken"] = progress_token
    if log_level is not None:
        wanted[META_LOG_LEVEL] = log_level
    wanted.update(meta or {})
    body_params = {**(params or {}), "_meta": wanted}
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body_params}


def encode_header_value(value: str | int | bool) -> str:
    """An ``Mcp-Name`` / ``Mcp-Param-*`` value: plain when safe, else ``=?base64?...?=``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    plain = (
        value == value.strip(" ")
        and all(" " <= char <= "~" for char in value)
        and not value.lower().startswith(_B64_PREFIX)
    )
    if plain:
        return value
    return _B64_PREFIX + base64.b64encode(value.encode()).decode("ascii") + "?="


def header_params(schema: Any) -> dict[str, str]:
    """Argument name -> ``x-mcp-header`` name, for the root properties of a tool's schema."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return {}
    return {
        name: spec["x-mcp-header"]
        for name, spec in properties.items()
        if isinstance(spec, Mapping) and isinstance(spec.get("x-mcp-header"), str)
    }


def header_problem(schema: Any) -> str | None:
    """Why a tool's ``x-mcp-header`` annotations are invalid, or None when they are fine.

    The rules (a client drops a tool that breaks them): a non-empty RFC 9110 token, unique
    without regard to case, on a root property of type string, integer or boolean.
    """
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return None
    seen: set[str] = set()
    for name, spec in properties.items():
        if not isinstance(spec, Mapping) or "x-mcp-header" not in spec:
            continue
        header = spec["x-mcp-header"]
        if not isinstance(header, str) or not _TOKEN.fullmatch(header):
            return f"property {name!r}: x-mcp-header {header!r} is not a non-empty HTTP token"
        if header.lower() in seen:
            return f"property {name!r}: x-mcp-header {header!r} is used twice"
        seen.add(header.lower())
        if spec.get("type") not in HEADER_TYPES:
            return f"property {name!r}: x-mcp-header needs a string, integer or boolean type"
    return None


def is_modern_error(error: Any) -> bool:
    """True for an error only a 2026-07-28 server gives: a modern code, or -32022 naming it."""
    if not isinstance(error, Mapping):
        return False
    if error.get("code") in MODERN_CODES:
        return True
    data = error.get("data")
    supported = data.get("supported") if isinstance(data, Mapping) else None
    return error.get("code") == -32022 and isinstance(supported, list) and LATEST in supported


def request_headers(message: Any, params: Mapping[str, str] | None = None) -> dict[str, str]:
    """The HTTP headers for POSTing ``message``; ``params`` from ``header_params``."""
    headers = {"accept": ACCEPT, "content-type": "application/json"}
    if not isinstance(message, Mapping) or not isinstance(message.get("method"), str):
        return headers
    method = message["method"]
    body_params = message.get("params")
    body_params = body_params if isinstance(body_params, Mapping) else {}
    meta = body_params.get("_meta")
    version = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, Mapping) else None
    if isinstance(version, str):
        headers["mcp-protocol-version"] = version
    if "id" in message:
        headers["mcp-method"] = method
    name = body_params.get(NAME_PARAMS.get(method, ""))
    if isinstance(name, str | int):
        headers["mcp-name"] = encode_header_value(name)
    arguments = body_params.get("arguments")
    if method == TOOLS_CALL and isinstance(arguments, Mapping):
        for prop, header in (params or {}).items():
            value = arguments.get(prop)
            if isinstance(value, str | int):  # bool is an int
                headers[f"mcp-param-{header.lower()}"] = encode_header_value(value)
    return headers


class EventTooLarge(ValueError):
    """An SSE event (its data, or one line of it still open) over the parser's ``max_event``."""


class SSEParser:
    """Collects the ``data`` of each complete server-sent event; comments are skipped.

    ``last_id`` is the last event id seen (what a client resumes from, ``Last-Event-ID``),
    ``retry_ms`` the last ``retry`` field (how long to wait before resuming), or None.

    Linear in its input: each byte is searched once for its line's end (``scanned`` counts
    them), a line is decoded when it ends, an event joined when a blank line ends it. With
    ``max_event``, an event whose data (with the line still open) passes that many bytes
    raises ``EventTooLarge`` as soon as it does: nothing more of it is held.
    """

    def __init__(self, max_event: int | None = None) -> None:
        self.max_event = max_event
        self.last_id: str | None = None
        self.retry_ms: int | None = None
        self.scanned = 0
        """Bytes searched for a line's end so far (each byte fed once)."""
        self._open: list[bytes] = []  # the pieces of the line not ended yet
        self._open_size = 0
        self._data: list[str] = []  # the event's data lines so far
        self._size = 0  # their bytes
        self._id: str | None = None  # the event's id field, kept when it ends

    def feed(self, chunk: bytes, final: bool = False) -> list[str]:
        """Add bytes; return the data of the events they completed."""
        events: list[str] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self.scanned += end + 1 - start
            piece = chunk[start:end]
            start = end + 1
            if self._open:
                self._open.append(piece)
                piece = b"".join(self._open)
                self._open, self._open_size = [], 0
            self._line(piece.removesuffix(b"\r"), events)
        self.scanned += len(chunk) - start
        if start < len(chunk):
            self._open.append(chunk[start:])
            self._open_size += len(chunk) - start
            self._check()
        if final:
            if self._open:
                piece, self._open, self._open_size = b"".join(self._open), [], 0
                self._line(piece.removesuffix(b"\r"), events)
            self._line(b"", events)
        return events

    def _line(self, raw: bytes, events: list[str]) -> None:
        """One complete line: a field of the event, or the blank line that ends it."""
        if not raw:
            if self._id is not None:
                self.last_id, self._id = self._id, None
            data, self._data, self._size = self._data, [], 0
            if data and any(data):  # "data:" alone: a priming event (an id to resume from)
                events.append("\n".join(data))
            return
        line = raw.decode(errors="replace")
        if line.startswith("data:"):
            self._data.append(line[5:].removeprefix(" "))
            self._size += len(raw)
            self._check()
        elif line.startswith("id:") and "\0" not in line:
            self._id = line[3:].removeprefix(" ")
        elif line.startswith("retry:") and line[6:].strip().isdigit():
            self.retry_ms = int(line[6:].strip())

    def _check(self) -> None:
        if self.max_event is not None and self._size + self._open_size > self.max_event:
            self._open, self._data = [], []
            raise EventTooLarge(f"an SSE event longer than {self.max_event} bytes")

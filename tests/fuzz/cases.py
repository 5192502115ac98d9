"""What one fuzz case is, and the JSON text writer that can also write invalid JSON.

Owns: `Case` (one HTTP request, plus what the oracle needs to judge the answer), `Raw`
(text emitted verbatim, for tokens `json.dumps` refuses or rewrites: lone surrogate escapes,
`NaN`, 5,000-digit numbers, 100,000-deep nesting), `dump()`, and the request templates of
both eras. Pure: no I/O, no genmcp import (the harness is black-box).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

LATEST: Final = "2026-07-28"
LEGACY_VERSIONS: Final = ("2025-03-26", "2025-06-18", "2025-11-25")
ALL_VERSIONS: Final = (LATEST, *LEGACY_VERSIONS)
ACCEPT: Final = "application/json, text/event-stream"
META_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL: Final = "io.modelcontextprotocol/logLevel"
SID: Final = "{SID}"
"""Placeholder in a header value: the runner puts the session's real id there."""

MUTATE_SID: Final = "x-fuzz-mutate-sid"
"""Header the runner removes, replacing the real session id by a mutation seeded by its value."""
PORT: Final = "{PORT}"
"""Placeholder in a header value: the runner puts the server's port there."""

#: The request param that `Mcp-Name` mirrors (spec digest §5.1).
NAME_PARAMS: Final[Mapping[str, str]] = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}


@dataclass(frozen=True)
class Raw:
    """JSON text written as is (may be invalid JSON on purpose)."""

    text: str


@dataclass
class Case:
    """One generated HTTP request and how to judge its answer.

    `versions`: the schema revisions any of which may judge the answer (a garbage body has
    no era, so all four). `session`: a legacy revision whose live session the runner uses
    (its id replaces `SID` in header values; `fresh_session` makes a new one just for this
    case, for DELETE). `expect_status`: statuses the answer must have (None: any below 500).
    `known`: the KNOWN entry (tests/fuzz/known.py) this generator probes, if any.
    """

    category: str
    body: bytes = b""
    headers: dict[str, str | bytes] = field(default_factory=dict)
    http_method: str = "POST"
    rpc_method: str | None = None
    versions: tuple[str, ...] = ALL_VERSIONS
    session: str | None = None
    fresh_session: bool = False
    expect_status: tuple[int, ...] | None = None
    path: str = "/mcp"
    known: str | None = None
    silent_end: bool = False
    """An empty 200 body is fine (a cancelled 2025 request's stream ends without a response)."""
    index: int = -1
    seed: str = ""


@dataclass(frozen=True)
class Catalog:
    """What the server under test serves, read from it before the run (black-box)."""

    tools: Mapping[str, Mapping[str, Any]]
    """Tool name -> inputSchema."""
    prompts: tuple[str, ...]
    resources: tuple[str, ...]
    templates: tuple[str, ...]


def dump(value: Any) -> str:
    """JSON text of `value`; `Raw` parts go in verbatim; str keeps non-ASCII as is."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        items = (f"{_key(k)}:{dump(v)}" for k, v in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(dump(v) for v in value) + "]"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return int.__repr__(value) if -_BIG < value < _BIG else _big_int(value)
    if isinstance(value, float):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


_BIG: Final = 10**4000


def _key(key: object) -> str:
    return key.text if isinstance(key, Raw) else json.dumps(str(key), ensure_ascii=False)


def _big_int(value: int) -> str:
    # str() of an int past 4,300 digits raises ValueError (sys.set_int_max_str_digits).
    sign = "-" if value < 0 else ""
    digits = []
    value = abs(value)
    while value:
        value, chunk = divmod(value, 10**1000)
        digits.append(f"{chunk:01000d}")
    return sign + "".join(reversed(digits)).lstrip("0")


def encode(value: Any) -> bytes:
    """UTF-8 bytes of `dump(value)`; a lone surrogate in a str is written as its escape."""
    return dump(value).encode("utf-8", "backslashreplace")


def meta(version: str = LATEST, **extra: Any) -> dict[str, Any]:
    return {META_VERSION: version, META_CAPABILITIES: {}, **extra}


def modern_request(
    method: str, params: dict[str, Any] | None = None, request_id: Any = 1
) -> dict[str, Any]:
    """A correct 2026-07-28 request (params get the required `_meta`)."""
    params = {**(params or {}), "_meta": {**meta(), **(params or {}).get("_meta", {})}}
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def modern_headers(message: Mapping[str, Any], version: str = LATEST) -> dict[str, str | bytes]:
    """The headers a correct client sends with `message`."""
    headers: dict[str, str | bytes] = {
        "accept": ACCEPT,
        "content-type": "application/json",
        "mcp-protocol-version": version,
    }
    method = message.get("method")
    if isinstance(method, str):
        headers["mcp-method"] = method
        params = message.get("params")
        name_param = NAME_PARAMS.get(method)
        if name_param and isinstance(params, dict) and isinstance(params.get(name_param), str):
            headers["mcp-name"] = header_value(params[name_param])
    return headers


def header_value(value: str) -> str:
    """Plain when safe, else the `=?base64?…?=` form (spec digest §5.1)."""
    unsafe = value != value.strip(" ") or any(not " " <= c <= "~" for c in value)
    if not unsafe and not value.lower().startswith("=?base64?"):
        return value
    data = value.encode("utf-8", "surrogatepass")
    return "=?base64?" + base64.b64encode(data).decode("ascii") + "?="


def legacy_headers(version: str, *, session: bool = True) -> dict[str, str | bytes]:
    headers: dict[str, str | bytes] = {"accept": ACCEPT, "content-type": "application/json"}
    if version != "2025-03-26":
        headers["mcp-protocol-version"] = version
    if session:
        headers["mcp-session-id"] = SID
    return headers


def initialize_request(
    version: str, capabilities: dict[str, Any] | None = None, request_id: Any = 0
) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": capabilities or {},
            "clientInfo": {"name": "genmcp-fuzz", "version": "0"},
        },
    }

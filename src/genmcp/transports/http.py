"""Streamable HTTP rules that need no web framework: guards, limits, header checks.

* ``guard``: Origin and Host allow-lists (DNS rebinding), run before the body
  is read and before auth.
* ``modern_preflight``: the 2026-07-28 request pipeline between parsing and
  the Suite, in the spec digest's order (§5.5): ``_meta`` version, the
  ``MCP-Protocol-Version`` header, version served, ``Mcp-Method`` /
  ``Mcp-Name`` / ``Mcp-Param-*``, the other ``_meta`` keys.
* ``decode_header_value``: the ``=?base64?...?=`` header form.
* ``response_status``: the HTTP status a response travels with: the only place a protocol
  outcome becomes a status (through ``errors.http_status``, the one table).

Headers arrive as a dict of lower-cased names to str values. Imports genmcp's
pure modules only; never Starlette or FastAPI.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final
from urllib.parse import urlsplit

from genmcp.errors import MCPError, http_status
from genmcp.events import Answer
from genmcp.protocol.jsonrpc import Request
from genmcp.protocol.meta import META_PROTOCOL_VERSION, check_meta, meta_of, request_version

__all__ = [
    "LOCAL_HOSTS",
    "MAX_BODY_BYTES",
    "decode_header_value",
    "guard",
    "modern_preflight",
    "response_status",
]

MAX_BODY_BYTES: Final = 4 * 1024 * 1024
LOCAL_HOSTS: Final = ("127.0.0.1", "localhost", "::1")
"""Hosts allowed by default: a server bound to loopback is safe from DNS rebinding."""

_B64_PREFIX: Final = "=?base64?"
_B64_SUFFIX: Final = "?="
_DECIMAL: Final = re.compile(r"-?[0-9]+")
_NAME_HEADERS: Final = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


@functools.lru_cache(maxsize=256)  # a server sees few distinct Host and Origin values
def _hostname(value: str) -> str | None:
    """The host part of a ``Host`` header or an origin, lower-cased, without port."""
    try:
        parts = urlsplit(value if "//" in value else "//" + value)
        return parts.hostname
    except ValueError:
        return None


def guard(
    headers: Mapping[str, str],
    allowed_hosts: Iterable[str] | None,
    allowed_origins: Iterable[str] | None,
) -> MCPError | None:
    """Check ``Host`` and ``Origin`` against the allow-lists; the 403 error, or None.

    ``allowed_hosts`` holds host names (any port); ``None`` or ``"*"`` allows all.
    An ``Origin`` is allowed when it is listed in ``allowed_origins`` exactly
    (``scheme://host[:port]``) or its host is an allowed host.
    """
    hosts = allowed_hosts
    if hosts is not None and not isinstance(hosts, frozenset):  # callers may pass it built
        hosts = frozenset(hosts)
    if hosts is not None and "*" not in hosts:
        host = headers.get("host")
        if host is None or _hostname(host) not in hosts:
            return MCPError("forbidden_host", f"Forbidden: Host {host!r} is not allowed")
    origin = headers.get("origin")
    if origin is None:
        return None
    if allowed_origins is not None and ("*" in allowed_origins or origin in allowed_origins):
        return None
    if hosts is None or "*" in hosts or _hostname(origin) in hosts:
        return None
    return MCPError("forbidden_origin", f"Forbidden: Origin {origin!r} is not allowed")


def decode_header_value(value: str) -> str:
    """Decode an ``Mcp-*`` header value (plain, or ``=?base64?<b64>?=``)."""
    value = value.strip(" \t")  # HTTP optional whitespace only, not Unicode spaces
    if value.startswith(_B64_PREFIX) and value.endswith(_B64_SUFFIX):
        encoded = value[len(_B64_PREFIX) : -len(_B64_SUFFIX)]
        try:
            return base64.b64decode(encoded, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise MCPError(
                "header_mismatch", "Header mismatch: invalid base64 header value"
            ) from None
    if not (value.isascii() and value.isprintable()):  # visible ASCII and spaces only
        raise MCPError("header_mismatch", "Header mismatch: header value has invalid characters")
    return value


def _header(headers: Mapping[str, str], name: str) -> str:
    value = headers.get(name.lower())
    if value is None:
        raise MCPError("header_mismatch", f"Header mismatch: the {name} header is required")
    return decode_header_value(value)


HeaderParams = Callable[[Any], Mapping[str, str]]
"""Tool name -> its ``x-mcp-header`` parameters (argument name -> header name)."""


def response_status(final: Answer, *, legacy: bool) -> int:
    """The HTTP status of a request's response.

    A modern error travels with its reason's status; a legacy session request's error with
    200 (a legacy client reads a 404 as "session gone" and a 400 as a transport failure).
    """
    return 200 if legacy else http_status(final.reason)


def modern_preflight(
    headers: Mapping[str, str],
    request: Request,
    versions: tuple[str, ...],
    header_params: HeaderParams,
) -> dict[str, Any]:
    """Run the modern pipeline's checks up to the Suite; return the checked ``_meta``.

    ``versions`` are the modern versions served; ``header_params`` gives the header
    parameters of a tool, checked against its ``Mcp-Param-*`` headers.
    """
    meta = meta_of(request.params)
    if meta.get(META_PROTOCOL_VERSION) is None:
        request_version(meta)  # raises the missing-key error
    version = _header(headers, "MCP-Protocol-Version")
    if version != meta[META_PROTOCOL_VERSION]:
        raise MCPError(
            "header_mismatch",
            f"Header mismatch: MCP-Protocol-Version {version!r} differs from "
            f"_meta protocolVersion {meta[META_PROTOCOL_VERSION]!r}",
        )
    request_version(meta, versions)
    method = _header(headers, "Mcp-Method")
    if method != request.method:
        raise MCPError(
            "header_mismatch",
            f"Header mismatch: Mcp-Method {method!r} differs from {request.method!r}",
        )
    _check_name(headers, request)
    if request.method == "tools/call":
        _check_params(headers, request, header_params(request.params.get("name")))
    check_meta(meta)
    return meta


def _check_name(headers: Mapping[str, str], request: Request) -> None:
    key = _NAME_HEADERS.get(request.method)
    if key is None:
        return
    name = _header(headers, "Mcp-Name")
    if name != request.params.get(key):
        raise MCPError(
            "header_mismatch",
            f"Header mismatch: Mcp-Name {name!r} differs from params.{key} "
            f"{request.params.get(key)!r}",
        )


def _check_params(headers: Mapping[str, str], request: Request, params: Mapping[str, str]) -> None:
    arguments = request.params.get("arguments")
    if not params or not isinstance(arguments, dict):
        return
    for prop, header in params.items():
        value = arguments.get(prop)
        if value is None:
            continue
        sent = _header(headers, f"Mcp-Param-{header}")
        if not _same_value(sent, value):
            raise MCPError(
                "header_mismatch",
                f"Header mismatch: Mcp-Param-{header} {sent!r} differs from argument {prop!r}",
            )


def _same_value(sent: str, value: Any) -> bool:
    if isinstance(value, bool):
        return sent == ("true" if value else "false")
    if isinstance(value, int):
        return _DECIMAL.fullmatch(sent) is not None and int(sent) == value
    return isinstance(value, str) and sent == value

"""Streamable HTTP rules that need no web framework: guards, limits, header checks.

* ``guard``: Origin and Host allow-lists (DNS rebinding), run before the body
  is read and before auth; ``host_of`` / ``origin_host`` parse the two headers strictly and
  ``host_allow_list`` normalizes ``allowed_hosts`` once.
* ``modern_preflight``: the 2026-07-28 request pipeline between parsing and
  the Suite, in the spec digest's order (§5.5): ``_meta`` version, the
  ``MCP-Protocol-Version`` header, version served, ``Mcp-Method`` /
  ``Mcp-Name`` / ``Mcp-Param-*``, the other ``_meta`` keys.
* ``decode_header_value``: the ``=?base64?...?=`` header form.
* ``response_status``: the HTTP status a response travels with: the only place a protocol
  outcome becomes a status (through ``errors.http_status``, the one table);
  ``response_headers``: the ``Retry-After`` a 429/503 carries.

Headers arrive as a dict of lower-cased names to str values. Imports genmcp's
pure modules only; never Starlette or FastAPI.
"""

from __future__ import annotations

import base64
import binascii
import functools
import ipaddress
import logging
import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from genmcp.errors import MCPError, http_status
from genmcp.events import Answer
from genmcp.protocol.jsonrpc import Request
from genmcp.protocol.meta import check_meta, meta_of, request_version
from genmcp.protocol.methods import METHODS, TOOLS_CALL
from genmcp.protocol.versions import META_PROTOCOL_VERSION

log = logging.getLogger("genmcp")
_REFUSALS_LOGGED: set[str] = set()  # capped per process, whatever the routers (tests/layout)
_MAX_REFUSALS_LOGGED: Final = 64  # hostile traffic must not flood the log

__all__ = [
    "LOCAL_HOSTS",
    "MAX_BODY_BYTES",
    "decode_header_value",
    "guard",
    "host_allow_list",
    "host_of",
    "modern_preflight",
    "origin_host",
    "response_headers",
    "response_status",
]

MAX_BODY_BYTES: Final = 4 * 1024 * 1024
LOCAL_HOSTS: Final = ("127.0.0.1", "localhost", "::1")
"""Hosts allowed by default: a server bound to loopback is safe from DNS rebinding."""

_B64_PREFIX: Final = "=?base64?"
_B64_SUFFIX: Final = "?="
_DECIMAL: Final = re.compile(r"-?[0-9]+")
_NAME_HEADERS: Final[Mapping[str, str]] = {
    name: method.mcp_name for name, method in METHODS.items() if method.mcp_name is not None
}
"""Method -> the params key its ``Mcp-Name`` header repeats (``Method.mcp_name``)."""


# RFC 3986 authority without userinfo: an IP-literal or a reg-name of letters, digits, "-", "."
# and "_", then an optional port of 1-5 digits. Nothing else may follow (no path, no "@").
_AUTHORITY: Final = re.compile(
    r"(?:\[(?P<ip6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9._-]+))(?::(?P<port>[0-9]{1,5}))?"
)
_ORIGIN: Final = re.compile(r"(?P<scheme>https?)://(?P<authority>[^/?#@]+)")
_MAX_AUTHORITY_CHARS: Final = 255 + 8


@functools.lru_cache(maxsize=256)  # a server sees few distinct Host and Origin values
def host_of(authority: str) -> str | None:
    """The host of a ``Host`` header value (``host[:port]``), lower-cased; None if malformed.

    Strict: no userinfo, no path or other trailing characters, a port only of digits in
    1-65535, IPv6 only as a bracketed literal (returned compressed, e.g. ``::1``).
    """
    value = authority.lower()
    if len(value) > _MAX_AUTHORITY_CHARS or not value.isascii():
        return None
    match = _AUTHORITY.fullmatch(value)
    if match is None:
        return None
    port = match["port"]
    if port is not None and not 0 < int(port) <= 65535:
        return None
    if match["ip6"] is None:
        return match["name"]
    try:
        return ipaddress.IPv6Address(match["ip6"]).compressed
    except ValueError:
        return None


@functools.lru_cache(maxsize=256)
def origin_host(origin: str) -> str | None:
    """The host of an ``http(s)://host[:port]`` origin, lower-cased; None for anything else.

    Other schemes and ``null`` have no host to match: list them in ``allowed_origins``.
    """
    match = _ORIGIN.fullmatch(origin.lower())
    return None if match is None else host_of(match["authority"])


def host_allow_list(hosts: Iterable[str]) -> frozenset[str]:
    """``allowed_hosts`` as ``guard`` compares them: lower-case, IPv6 compressed, no brackets.

    Raises ``ValueError`` for an entry that is not a bare host name or IP literal (a port,
    a scheme or a path would never match).
    """
    normal = set()
    for entry in hosts:
        if entry == "*":
            normal.add(entry)
            continue
        literal = f"[{entry}]" if ":" in entry and not entry.startswith("[") else entry
        host = host_of(literal)
        if host is None or ":" in literal.rpartition("]")[2]:
            raise ValueError(
                f"allowed_hosts entry {entry!r} is not a host name or IP literal without a port"
            )
        normal.add(host)
    return frozenset(normal)


def guard(
    headers: Mapping[str, str],
    allowed_hosts: Iterable[str] | None,
    allowed_origins: Iterable[str] | None,
) -> MCPError | None:
    """Check ``Host`` and ``Origin`` against the allow-lists; the error, or None.

    A ``Host`` that is missing, malformed or not allowed is 421 Misdirected Request; an
    ``Origin`` present and not allowed is 403 Forbidden (the spec's DNS-rebinding rule); the
    Host is checked first, as the official Python SDK does. ``allowed_hosts`` holds
    lower-case host names (any valid port); ``None`` or ``"*"`` allows all. An ``Origin``
    is allowed when it is listed in ``allowed_origins`` exactly (``scheme://host[:port]``)
    or it is a well-formed ``http(s)`` origin whose host is an allowed host.
    """
    hosts = allowed_hosts
    if hosts is not None and not isinstance(hosts, frozenset):  # callers may pass it built
        hosts = host_allow_list(hosts)
    if hosts is not None and "*" not in hosts:
        host = headers.get("host")
        if host is None or host_of(host) not in hosts:
            _log_refusal("Host", host, "allowed_hosts=[...] (the host name, no port)")
            return MCPError(
                "forbidden_host",
                f"Misdirected Request: Host {host!r} is not allowed by this server "
                "(its allowed_hosts)",
            )
    origin = headers.get("origin")
    if origin is None:
        return None
    if allowed_origins is not None and ("*" in allowed_origins or origin in allowed_origins):
        return None
    if hosts is None or "*" in hosts or origin_host(origin) in hosts:
        return None
    _log_refusal("Origin", origin, "allowed_origins=[...] (or its host in allowed_hosts=)")
    return MCPError("forbidden_origin", f"Forbidden: Origin {origin!r} is not allowed")


def _log_refusal(header: str, value: str | None, fix: str) -> None:
    """Log a refused ``Host``/``Origin`` once per value (up to a cap), with the fix."""
    key = f"{header}:{value}"
    if key in _REFUSALS_LOGGED or len(_REFUSALS_LOGGED) >= _MAX_REFUSALS_LOGGED:
        return
    _REFUSALS_LOGGED.add(key)
    log.warning(
        "refused a request with %s %r: not in the router's allow-list (loopback names by "
        "default, against DNS rebinding). Serving behind a real host name? Pass it to "
        "mcp_router(%s)",
        header,
        value,
        fix,
    )


def decode_header_value(value: str) -> str:
    """Decode an ``Mcp-*`` header value (plain, or ``=?base64?<b64>?=``)."""
    return _decode_short(value) if len(value) <= 128 else _decode(value)


@functools.lru_cache(maxsize=512)  # few distinct short values: versions, methods, tool names
def _decode_short(value: str) -> str:
    return _decode(value)


def _decode(value: str) -> str:
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
    return _decode_short(value) if len(value) <= 128 else _decode(value)  # decode_header_value


HeaderParams = Callable[[Any], Mapping[str, str]]
"""Tool name -> its ``x-mcp-header`` parameters (argument name -> header name)."""


def response_status(final: Answer, *, legacy: bool) -> int:
    """The HTTP status of a request's response.

    A modern error travels with its reason's status; a legacy session request's error with
    200 (a legacy client reads a 404 as "session gone" and a 400 as a transport failure),
    except a server-side 5xx (storage unavailable, shutting down), which says "retry".
    """
    status = http_status(final.reason)
    if final.reason in _ALWAYS_HTTP:  # SEP-3304's 429, SEP-2792's 400: a session's too
        return status
    return 200 if legacy and status < 500 else status


_RETRYABLE: Final = frozenset({429, 503})
_ALWAYS_HTTP: Final = frozenset({"rate_limited_sep3304", "language_mismatch"})
"""Reasons whose status a legacy session's answer keeps (an opted-in draft says so)."""


def response_headers(final: Answer, *, legacy: bool) -> tuple[tuple[str, str], ...]:
    """Headers a response's status calls for: ``Retry-After`` (whole seconds, at least 1)
    on a modern 429 or 503 whose error carries ``data.retryAfter`` (``middleware.ratelimit``),
    and on a SEP-3304 429 (``data.retryAfterMs``, in both eras) with ``RateLimit-Limit`` and
    ``RateLimit-Remaining`` from ``data.limit`` and ``data.remaining``."""
    if final.reason == "rate_limited_sep3304":
        return _sep3304_headers(final)
    if legacy or final.reason is None or http_status(final.reason) not in _RETRYABLE:
        return ()
    error = final.response.get("error")
    data = error.get("data") if isinstance(error, dict) else None
    wait = data.get("retryAfter") if isinstance(data, dict) else None
    if isinstance(wait, int | float) and not isinstance(wait, bool) and math.isfinite(wait):
        return (("retry-after", str(max(1, math.ceil(wait)))),)
    return ()


def _sep3304_headers(final: Answer) -> tuple[tuple[str, str], ...]:
    error = final.response.get("error")
    data = error.get("data") if isinstance(error, dict) else None
    if not isinstance(data, dict):
        return ()
    found: list[tuple[str, str]] = []
    wait = data.get("retryAfterMs")
    if isinstance(wait, int) and not isinstance(wait, bool):
        found.append(("retry-after", str(max(1, math.ceil(wait / 1000)))))
    for name, header in (("limit", "ratelimit-limit"), ("remaining", "ratelimit-remaining")):
        value = data.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            found.append((header, str(value)))
    return tuple(found)


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
    if request.method == TOOLS_CALL:
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

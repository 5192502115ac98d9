"""The request ``_meta`` of MCP 2026-07-28: presence, types and the version served.

Split in two steps so the HTTP transport can put its header checks between
them, in the order the spec digest (§5.5) gives: ``request_version`` (missing
``_meta`` or version: -32602; version not served: -32022), then
``check_meta`` (client capabilities, log level, progress token: -32602).

The ``_meta`` key names are defined in :mod:`genmcp.protocol.versions`; the ones checked
here are re-exported with the checks. :func:`absent_capabilities` compares two
ClientCapabilities objects (``Channel.require_capability``).

Pure: no I/O; imports only genmcp's errors and versions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from genmcp.errors import MCPError
from genmcp.protocol.versions import (
    META_CLIENT_CAPABILITIES,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    MODERN_VERSIONS,
)

__all__ = ["LOG_LEVELS", "absent_capabilities", "check_meta", "meta_of", "request_version"]

LOG_LEVELS: Final[tuple[str, ...]] = (
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
)  # fmt: skip
"""Logging levels in increasing severity (RFC 5424 order, least severe first)."""


def meta_of(params: dict[str, Any]) -> dict[str, Any]:
    """The request's ``params._meta`` object, or the missing-``_meta`` error."""
    meta = params.get("_meta")
    if meta is None:
        raise MCPError("missing_meta", "Invalid params: params._meta is required")
    if not isinstance(meta, dict):
        raise MCPError("invalid_meta", "Invalid params: params._meta must be an object")
    return meta


def request_version(meta: dict[str, Any], served: tuple[str, ...] = MODERN_VERSIONS) -> str:
    """The protocol version the request names, checked against the ``served`` ones."""
    version = meta.get(META_PROTOCOL_VERSION)
    if version is None:
        raise MCPError(
            "missing_meta", f"Invalid params: _meta[{META_PROTOCOL_VERSION!r}] is required"
        )
    if not isinstance(version, str) or version not in served:
        raise MCPError(
            "unsupported_version",
            f"Unsupported protocol version: {version!r}",
            {"supported": list(served), "requested": version},
        )
    return version


def check_meta(meta: dict[str, Any]) -> None:
    """Check the other ``_meta`` keys the spec defines (types and allowed values)."""
    caps = meta.get(META_CLIENT_CAPABILITIES)
    if caps is None:
        raise MCPError(
            "missing_meta", f"Invalid params: _meta[{META_CLIENT_CAPABILITIES!r}] is required"
        )
    if not isinstance(caps, dict):
        raise MCPError(
            "invalid_meta", f"Invalid params: _meta[{META_CLIENT_CAPABILITIES!r}] must be an object"
        )
    level = meta.get(META_LOG_LEVEL)
    if level is not None and (not isinstance(level, str) or level not in LOG_LEVELS):
        raise MCPError(
            "bad_log_level",
            f"Invalid params: _meta[{META_LOG_LEVEL!r}] must be one of " + ", ".join(LOG_LEVELS),
        )
    token = meta.get("progressToken")
    if token is not None and (isinstance(token, bool) or not isinstance(token, str | int)):
        raise MCPError(
            "invalid_meta", "Invalid params: _meta.progressToken must be a string or an integer"
        )


def absent_capabilities(required: Mapping[str, Any], declared: Mapping[str, Any]) -> dict[str, Any]:
    """The part of ``required`` absent from ``declared``, both ClientCapabilities objects.

    A plain structural difference: a key counts as declared when ``declared`` has an object
    there, and nested keys are compared the same way. It knows nothing of input requests;
    what the nested requests of an ``input_required`` result need and the client lacks
    (with elicitation's form-mode rule) is ``input_requests.missing_capabilities``.
    """
    missing: dict[str, Any] = {}
    for key, needed in required.items():
        have = declared.get(key)
        if not isinstance(have, Mapping):
            missing[key] = needed
        elif isinstance(needed, Mapping) and needed:
            deeper = absent_capabilities(needed, have)
            if deeper:
                missing[key] = deeper
    return missing

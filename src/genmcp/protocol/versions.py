"""Protocol revisions genmcp serves, newest first, and which era a request is in.

The era rules of the whole project live here, in one place (``era_of``). For one HTTP
request, the first matching rule wins:

1. ``GET`` or ``DELETE``: **modern** when the ``MCP-Protocol-Version`` header names a
   version that is not a legacy one (the transport answers 405), else **legacy** (the
   session's notification stream, or the end of a session).
2. A JSON array body (a 2025-03-26 batch): **legacy**.
3. A JSON-RPC response (no ``method``; a client answering a server-initiated request):
   **legacy**.
4. ``params._meta`` names a protocol version, or the ``MCP-Protocol-Version`` header names
   a version that is not a legacy one: **modern** (2026-07-28, stateless). This rule comes
   before ``initialize``, so a modern ``initialize`` gets the modern "method not found",
   and a modern request carrying a stray ``Mcp-Session-Id`` stays modern.
5. ``initialize``, a legacy version in the header, or an ``Mcp-Session-Id``: **legacy**
   (2025-11-25, 2025-06-18, 2025-03-26: ``initialize`` plus ``Mcp-Session-Id``).
6. Neither a version nor a session: **legacy**, as 2025-03-26 (the spec lets a server treat
   a request without ``MCP-Protocol-Version`` that way); it then needs a session id.

A modern request is never affected by the legacy rules: whatever carries the 2026-07-28
markers (``_meta`` version, or a non-legacy header) is modern, whatever else it carries.

This module is the only home of the version strings and of the reserved ``_meta`` keys.

Pure: no I/O, nothing from genmcp.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

__all__ = [
    "LATEST",
    "LEGACY_VERSIONS",
    "META_CLIENT_CAPABILITIES",
    "META_CLIENT_INFO",
    "META_LOG_LEVEL",
    "META_PREFIX",
    "META_PROTOCOL_VERSION",
    "META_SERVER_INFO",
    "META_SUBSCRIPTION_ID",
    "MODERN_VERSIONS",
    "SSE_POLLING",
    "SUPPORTED_VERSIONS",
    "Era",
    "at_least",
    "era_of",
    "negotiate_legacy",
]

LATEST: Final = "2026-07-28"
"""The newest revision: the one modern (stateless) revision genmcp speaks."""
MODERN_VERSIONS: tuple[str, ...] = (LATEST,)
LEGACY_VERSIONS: tuple[str, ...] = ("2025-11-25", "2025-06-18", "2025-03-26")
SUPPORTED_VERSIONS: tuple[str, ...] = MODERN_VERSIONS + LEGACY_VERSIONS
SSE_POLLING: Final = "2025-11-25"
"""The first revision whose SSE streams are primed (an id, empty data) and may be closed by
the server before the response, to be resumed with ``Last-Event-ID`` (SEP-1699)."""

META_PREFIX: Final = "io.modelcontextprotocol/"
"""The reserved ``_meta`` key prefix."""
META_PROTOCOL_VERSION: Final = META_PREFIX + "protocolVersion"
META_CLIENT_CAPABILITIES: Final = META_PREFIX + "clientCapabilities"
META_CLIENT_INFO: Final = META_PREFIX + "clientInfo"
META_LOG_LEVEL: Final = META_PREFIX + "logLevel"
META_SERVER_INFO: Final = META_PREFIX + "serverInfo"
META_SUBSCRIPTION_ID: Final = META_PREFIX + "subscriptionId"


class Era(StrEnum):
    """The two ways a request can be served (a ``str``: ``Era.LEGACY == "legacy"``)."""

    MODERN = "modern"
    LEGACY = "legacy"


# Members read on every request, bound once: on Python 3.11 a read such as ``Era.MODERN`` goes
# through EnumType's ``__getattr__`` hook (about 1k instructions); a module name does not.
_MODERN: Final = Era.MODERN
_LEGACY: Final = Era.LEGACY


_AGE: Final = {version: age for age, version in enumerate(SUPPORTED_VERSIONS)}
"""Each supported version's place, newest first (``at_least`` runs per translated field)."""


def at_least(version: str, minimum: str) -> bool:
    """True when ``version`` is ``minimum`` or newer; unknown versions count as oldest."""
    oldest = _AGE.get(minimum)
    if oldest is None:
        raise ValueError(f"unknown minimum protocol version {minimum!r}")
    age = _AGE.get(version) if isinstance(version, str) else None
    return age is not None and age <= oldest


def negotiate_legacy(requested: Any) -> str:
    """The version to answer ``initialize`` with: the requested one, else our newest legacy."""
    if isinstance(requested, str) and requested in LEGACY_VERSIONS:
        return requested
    return LEGACY_VERSIONS[0]


def era_of(
    method: str | None,
    params: dict[str, Any] | None,
    header_version: str | None,
    session_id: str | None,
    *,
    http_method: str = "POST",
    batch: bool = False,
) -> Era:
    """Decide the era of one HTTP request (the module docstring lists the rules, in order).

    Args:
        method: the JSON-RPC method; None for a response (or a batch, or a GET/DELETE).
        params: the message's ``params``, if any.
        header_version: the ``MCP-Protocol-Version`` header, if sent.
        session_id: the ``Mcp-Session-Id`` header, if sent.
        http_method: ``"POST"``, ``"GET"`` or ``"DELETE"``.
        batch: the body is a JSON array.
    """
    modern_header = header_version is not None and header_version not in LEGACY_VERSIONS
    if http_method != "POST":
        return _MODERN if modern_header else _LEGACY
    if batch or method is None:
        return _LEGACY
    meta = params.get("_meta") if params else None
    if modern_header or (isinstance(meta, dict) and META_PROTOCOL_VERSION in meta):
        return _MODERN
    return _LEGACY

"""Protocol revisions genmcp serves, newest first, and which era a request is in.

The era rules of the whole project live here, in one place:

* A request is **modern** (2026-07-28, stateless) when its ``_meta`` names a
  protocol version, or when its ``MCP-Protocol-Version`` header names a
  version that is not a legacy one.
* It is **legacy** (2025-11-25, 2025-06-18, 2025-03-26; ``initialize`` plus
  ``Mcp-Session-Id``) when it is ``initialize``, carries a session id, names a
  legacy version in the header, or names no version at all (the spec lets a
  server treat such a request as 2025-03-26).

Pure: no I/O, nothing from genmcp.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

__all__ = [
    "LEGACY_VERSIONS",
    "MODERN_VERSIONS",
    "SUPPORTED_VERSIONS",
    "Era",
    "at_least",
    "era_of",
    "negotiate_legacy",
]

MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)
LEGACY_VERSIONS: tuple[str, ...] = ("2025-11-25", "2025-06-18", "2025-03-26")
SUPPORTED_VERSIONS: tuple[str, ...] = MODERN_VERSIONS + LEGACY_VERSIONS

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"


class Era(Enum):
    """The two ways a request can be served."""

    MODERN = "modern"
    LEGACY = "legacy"


def at_least(version: str, minimum: str) -> bool:
    """True when ``version`` is ``minimum`` or newer; unknown versions count as oldest."""
    if minimum not in SUPPORTED_VERSIONS:
        raise ValueError(f"unknown minimum protocol version {minimum!r}")
    if version not in SUPPORTED_VERSIONS:
        return False
    return SUPPORTED_VERSIONS.index(version) <= SUPPORTED_VERSIONS.index(minimum)


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
) -> Era:
    """Decide the era of one HTTP POST (first matching rule wins)."""
    if method == "initialize":
        return Era.LEGACY
    meta = params.get("_meta") if params else None
    if isinstance(meta, dict) and META_PROTOCOL_VERSION in meta:
        return Era.MODERN
    if header_version is not None and header_version not in LEGACY_VERSIONS:
        return Era.MODERN
    if session_id is not None or header_version is not None:
        return Era.LEGACY
    return Era.LEGACY

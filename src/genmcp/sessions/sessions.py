"""A verified legacy session: what its sealed ``Mcp-Session-Id`` says, once checked.

Imports only genmcp's protocol layer; no asyncio.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from genmcp.protocol.legacy import client_capabilities
from genmcp.protocol.versions import LEGACY_VERSIONS

__all__ = ["Session", "session_of"]


@dataclass(frozen=True, slots=True)
class Session:
    """A verified legacy session."""

    key: str
    version: str
    capabilities: dict[str, Any]
    client_info: dict[str, Any]
    expires_at: float
    epoch: str = ""
    log_level: Any = None
    modern_capabilities: dict[str, Any] = field(default_factory=dict)
    """``capabilities`` as 2026-07-28 ``ClientCapabilities`` (``protocol.legacy``), made once."""

    @property
    def ttl_s(self) -> float:
        """Seconds until the session id expires."""
        return max(self.expires_at - time.time(), 0.0)


def session_of(payload: Any, max_age_s: float) -> Session | None:
    """The session a sealed id's payload describes, or None when it is not one of ours."""
    if not isinstance(payload, dict):
        return None
    key, version, caps, info, issued = (payload.get(k) for k in ("k", "v", "c", "i", "t"))
    epoch = payload.get("e", "")
    if not (
        isinstance(key, str)
        and version in LEGACY_VERSIONS
        and isinstance(caps, dict)
        and isinstance(info, dict)
        and isinstance(issued, int)
        and isinstance(epoch, str)
    ):
        return None
    modern = client_capabilities(caps, version)
    return Session(key, version, caps, info, issued + max_age_s, epoch, None, modern)

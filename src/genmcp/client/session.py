"""A 2025 session as the client sees it: the handshake, the session headers, request shapes.

When a server has no 2026-07-28 (``server/discover`` is not answered as a modern server
would), ``Client`` opens a session: :func:`initialize_request` at the newest 2025 revision
(or the one asked for), :meth:`LegacySession.accept` on its result, then
``notifications/initialized``. Every later request is :meth:`LegacySession.request`
(no per-request ``_meta`` version or capabilities: they hold for the session) with the
session's :meth:`LegacySession.headers`; a request is cancelled with
:meth:`LegacySession.cancelled` (``notifications/cancelled``), which 2026-07-28 replaced
with closing the stream.

Pure: builds messages; ``Client`` sends them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from genmcp.protocol.client import ACCEPT, Message
from genmcp.protocol.methods import CANCELLED, INITIALIZE, INITIALIZED
from genmcp.protocol.versions import LEGACY_VERSIONS

__all__ = ["LegacySession", "initialize_request"]

SESSION_CAPABILITIES: Final = frozenset({"elicitation", "sampling", "roots", "experimental"})
"""The client capabilities a 2025 ``initialize`` carries (``extensions`` is 2026-07-28)."""


def initialize_request(
    request_id: str | int,
    version: str,
    capabilities: Mapping[str, Any],
    client_info: Mapping[str, Any],
) -> Message:
    """The ``initialize`` request that opens a session at ``version``."""
    if version not in LEGACY_VERSIONS:
        raise ValueError(f"{version!r} is not a 2025 revision ({', '.join(LEGACY_VERSIONS)})")
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": INITIALIZE,
        "params": {
            "protocolVersion": version,
            "capabilities": {k: v for k, v in capabilities.items() if k in SESSION_CAPABILITIES},
            "clientInfo": dict(client_info),
        },
    }


@dataclass
class LegacySession:
    """One open 2025 session: its id (None when the server gave none), revision, result."""

    session_id: str | None
    version: str
    server: dict[str, Any] = field(default_factory=dict)
    """The ``initialize`` result."""
    log_level: str | None = None
    """The level last set with ``logging/setLevel`` (session-wide in 2025)."""

    @classmethod
    def accept(cls, result: Any, session_id: str | None) -> LegacySession | None:
        """The session an ``initialize`` result opens, or None when it is not a 2025 one."""
        if not isinstance(result, Mapping) or result.get("protocolVersion") not in LEGACY_VERSIONS:
            return None
        return cls(session_id, result["protocolVersion"], dict(result))

    def headers(self) -> dict[str, str]:
        """The headers every request of the session carries."""
        found = {"accept": ACCEPT, "content-type": "application/json"}
        found["mcp-protocol-version"] = self.version
        if self.session_id is not None:
            found["mcp-session-id"] = self.session_id
        return found

    @staticmethod
    def request(
        method: str,
        params: Mapping[str, Any] | None,
        request_id: int | str,
        progress_token: str | int | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> Message:
        """A 2025 request: no protocol ``_meta``; ``params``' own ``_meta``, the
        ``progressToken`` when given, then ``meta``, merged last as ``build_request`` does (a
        test may override or break any key). ``Client`` and ``MCPTestClient`` both build
        theirs here."""
        body = dict(params or {})
        wanted = dict(body.pop("_meta", None) or {})
        if progress_token is not None:
            wanted["progressToken"] = progress_token
        wanted.update(meta or {})
        if wanted:
            body["_meta"] = wanted
        return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body}

    @staticmethod
    def initialized() -> Message:
        """``notifications/initialized``, sent once the handshake's result is in."""
        return {"jsonrpc": "2.0", "method": INITIALIZED}

    @staticmethod
    def cancelled(request_id: int | str, reason: str = "cancelled by the client") -> Message:
        """The notification that cancels a request in flight (2025, and stdio in any era)."""
        params = {"requestId": request_id, "reason": reason}
        return {"jsonrpc": "2.0", "method": CANCELLED, "params": params}

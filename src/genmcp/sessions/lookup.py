"""Which live session a legacy message names: its sealed id verified, the registry asked.

A session id is a sealed token (``session_ids``); the registry says whether the session still
lives (not ended, not begun before the store lost its data) and holds its log level. The
faults are ``MCPError`` reasons the transport answers with its status: no id,
``session_required`` (400); an unknown, tampered, expired, ended or other user's id,
``session_not_found`` (404; when sessions live in one process's memory and the id is another
process's, the message says the fix and the server log says it once); a version other than
the negotiated one, ``invalid_request`` (400). One registry round trip per request.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from genmcp.catalogs.request_state import principal_of
from genmcp.errors import MCPError
from genmcp.sessions.session_ids import SessionIds
from genmcp.sessions.sessions import Session
from genmcp.storage import SessionRegistry
from genmcp.storage.memory import MemorySessionRegistry

__all__ = ["FOREIGN_SESSION", "LOG_LEVEL", "SESSION_ENDED", "SessionLookup"]

log = logging.getLogger("genmcp")

LOG_LEVEL: Final = "log_level"
"""The registry field of a session's ``logging/setLevel`` level."""
FOREIGN_SESSION: Final = (
    "it was begun by another process of this server, and this one keeps 2025 sessions in "
    "its own memory: with several workers, share one session store, mcp_router(..., "
    "redis_url=...) or GENMCP_REDIS_URL (docs/guides/scaling-out.md), or run one worker"
)
"""Why a verified session id is unknown here when sessions live in memory, and the fix."""
SESSION_ENDED: Final = "Session not found: it ended (deleted or expired) while this request ran"
"""The error message of a request stopped because its session ended."""


class SessionLookup:
    """Finds the live session of a session id (see the module docstring).

    ``ids`` verifies the sealed ids; ``registry`` holds what they cannot say;
    ``max_age_s`` is how long an id stays valid after ``initialize``.
    """

    def __init__(self, ids: SessionIds, registry: SessionRegistry, max_age_s: float) -> None:
        self.ids, self.registry, self.max_age_s = ids, registry, max_age_s
        self._told_foreign = False  # a foreign session is logged once, not per request

    async def find(
        self, token: str | None, version: str | None, assigns: Mapping[str, Any]
    ) -> Session:
        """The session ``token`` names, sent with protocol ``version`` (None: not said).

        Raises ``session_required`` without a token, ``session_not_found`` when it is not
        (or no more) ours, ``invalid_request`` for another version than the negotiated one.
        """
        if token is None:
            raise MCPError("session_required", "Bad Request: Mcp-Session-Id header is required")
        who = principal_of(assigns) if assigns else None  # no auth: nobody (the hot path)
        session = self.ids.verify(token, who, self.max_age_s)
        state = await self.registry.lookup(session.key, session.epoch, (LOG_LEVEL,))
        if state is None:  # ended, or begun before the session store lost its data
            raise await self._not_found(session)
        if state[LOG_LEVEL] is not None:
            session = replace(session, log_level=state[LOG_LEVEL])
        if version is not None and version != session.version:
            raise MCPError(
                "invalid_request",
                f"Bad Request: MCP-Protocol-Version {version!r} is not the session's "
                f"negotiated version {session.version!r}",
            )
        return session

    async def _not_found(self, session: Session) -> MCPError:
        """``session_not_found`` for a session the registry does not hold; when the id
        verified but names another process's in-memory registry (several workers, no shared
        store), the message says the fix and the server log says it once."""
        registry = self.registry
        if not isinstance(registry, MemorySessionRegistry):
            return MCPError("session_not_found", "Session not found")
        if session.epoch == await registry.epoch(self.max_age_s):
            return MCPError("session_not_found", "Session not found")  # ended here
        if not self._told_foreign:
            self._told_foreign = True
            log.warning("a 2025 session was refused (logged once): %s", FOREIGN_SESSION)
        return MCPError("session_not_found", f"Session not found: {FOREIGN_SESSION}")

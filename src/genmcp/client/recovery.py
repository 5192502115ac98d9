"""The one retry a client's request gets: an error it can fix itself, then send again.

Two: a server that answers -32022 with a modern error speaks 2026-07-28 after all (the
version negotiation round of a client that guessed a session), and a tool call refused for
its missing ``x-mcp-header`` headers (-32020) of a tool the client never listed: one listing
teaches them (``client.tool_headers``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from genmcp.client.connection import Connection
from genmcp.client.tool_headers import ToolHeaders
from genmcp.protocol.client import is_modern_error
from genmcp.protocol.methods import TOOLS_CALL

__all__ = ["recoverable"]


async def recoverable(
    connection: Connection,
    headers: ToolHeaders,
    relist: Callable[[], Awaitable[Any]],
    method: str,
    params: Any,
    error: Any,
) -> bool:
    """True when one retry may fix ``error``: a version the server named, or headers
    (learned here by ``relist``, the client's ``list_tools``)."""
    code = error.get("code") if isinstance(error, Mapping) else None
    if connection.session is None and code == -32022 and is_modern_error(error):
        return True  # it speaks 2026-07-28 after all (a version negotiation round)
    if code == -32020 and method == TOOLS_CALL and isinstance(params, Mapping):
        if headers.of(params.get("name")) is None:
            await relist()  # learn its x-mcp-header parameters
            return headers.of(params.get("name")) is not None
    return False

"""A legacy session's GET stream: the Suite's change notifications, for one session.

Carries list changes, and ``notifications/resources/updated`` only for the URIs the session
subscribed to (read from the registry; none while it is unreachable: fail closed),
translated for the session's revision. It ends when the session is deleted or a newer GET
of the same session replaces it (topic :func:`get_topic`). Its events carry no SSE id: a GET
stream is not resumable (a resumed POST stream is, ``legacy.resume``).

Imports asyncio and genmcp's core; never a web framework.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Final

from genmcp._suite.listen import CHANGES
from genmcp.protocol import legacy
from genmcp.storage import SessionRegistry, Subscription
from genmcp.storage.guard import StorageUnavailable

__all__ = ["SessionStream", "get_topic"]

_RESOURCES: Final = "resources"
_UPDATED: Final = "notifications/resources/updated"


def get_topic(session: str) -> str:
    """Where a newer GET of ``session`` tells the open one to end."""
    return f"legacy/{session}/get"


class SessionStream:
    """A session's GET stream: ``async for message in stream`` until it ends.

    Carries the Suite's change notifications (list changes; resource updates only for the
    URIs the session subscribed to), translated for the session's revision. It ends when
    the session is deleted or a newer GET of the same session replaces it.
    """

    def __init__(
        self, registry: SessionRegistry, session: str, version: str, subscription: Subscription
    ) -> None:
        self._registry, self._session, self._version = registry, session, version
        self._subscription = subscription

    def close(self) -> None:
        """Stop the stream (idempotent); iterating ends it too."""
        self._subscription.close()

    async def sse(self) -> AsyncIterator[tuple[str | None, dict[str, Any]]]:
        """``(id, message)`` pairs for SSE (this stream's events carry no id)."""
        async for message in self:
            yield None, message

    async def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        session, registry = self._session, self._registry
        try:
            while True:
                topic, message = await self._subscription.receive()
                if topic != CHANGES:
                    return  # the session ended, or a newer GET replaced this one
                if message.get("method") != _UPDATED or await _subscribed(
                    registry, session, message.get("params", {}).get("uri")
                ):
                    yield legacy.legacy_message(message, self._version)
        finally:
            self._subscription.close()


async def _subscribed(registry: SessionRegistry, session: str, uri: Any) -> bool:
    """Whether ``session`` subscribed to ``uri`` (not while the registry is unreachable)."""
    try:
        return uri in await registry.members(session, _RESOURCES)
    except StorageUnavailable:
        return False

"""A legacy session's GET stream: the change notifications not tied to a request.

Imports genmcp's core, storage and protocol; never a web framework.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Final

from genmcp._suite.listen import CHANGES
from genmcp.protocol import legacy
from genmcp.storage import SessionRegistry, Subscription

__all__ = ["RESOURCES", "SessionStream"]

RESOURCES: Final = "resources"
"""The session field holding the URIs it subscribed to."""
_UPDATED: Final = "notifications/resources/updated"


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

    async def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        session, registry = self._session, self._registry
        try:
            while True:
                topic, message = await self._subscription.receive()
                if topic != CHANGES:
                    return  # the session ended, or a newer GET replaced this one
                if message.get("method") != _UPDATED or (
                    message.get("params", {}).get("uri")
                    in await registry.members(session, RESOURCES)
                ):
                    yield legacy.legacy_message(message, self._version)
        finally:
            self._subscription.close()

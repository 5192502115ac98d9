"""What a 2025 session answers itself: ``ping``, ``logging/setLevel``, ``resources/(un)subscribe``.

These are the session's methods, not the Suite's (2026-07-28 has none of them): the level is
kept in the session registry, which every later request of the session reads; a subscription
is kept there too, one atomic update per URI (concurrent ones, on any process, lose nothing),
and in the Suite's ``interest`` (a remote mount follows the URIs held). The subscribe methods
exist only while the Suite serves resources. The server runs each through the middleware
chain as a ``local`` answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from genmcp.errors import MCPError
from genmcp.events import Answer
from genmcp.protocol import legacy
from genmcp.protocol.jsonrpc import Request, result_response
from genmcp.protocol.methods import (
    LOGGING_SET_LEVEL,
    PING,
    RESOURCES_SUBSCRIBE,
    RESOURCES_UNSUBSCRIBE,
)
from genmcp.sessions.lookup import LOG_LEVEL
from genmcp.sessions.sessions import Session
from genmcp.storage import SessionRegistry
from genmcp.sync.interest import Interest

__all__ = ["SUBSCRIBED", "SessionMethods"]

SUBSCRIBED: Final = "resources"
"""The registry field of a session's subscribed URIs (named as the capability they need):
written here, read by the session's GET stream (``sessions.get_stream``)."""


class SessionMethods:
    """Answers the session's own methods (see the module docstring).

    ``registry`` keeps the level and the subscriptions; ``interest`` is the Suite's;
    ``capabilities`` reads the Suite's current capabilities.
    """

    def __init__(
        self,
        registry: SessionRegistry,
        interest: Interest,
        capabilities: Callable[[], Mapping[str, Any]],
    ) -> None:
        self._registry, self._interest, self._capabilities = registry, interest, capabilities

    def answers(self, method: str) -> bool:
        """True when ``method`` is one the session answers itself (now)."""
        if method in (PING, LOGGING_SET_LEVEL):
            return True
        subscribing = method in (RESOURCES_SUBSCRIBE, RESOURCES_UNSUBSCRIBE)
        return subscribing and SUBSCRIBED in self._capabilities()

    async def answer(self, session: Session, request: Request) -> Answer:
        """The answer to ``request`` of ``session``: an empty result once it is done."""
        if request.method == LOGGING_SET_LEVEL:
            level = legacy.log_level(request.params)
            await self._registry.put(session.key, LOG_LEVEL, level, session.ttl_s)
        elif request.method != PING:
            await self._subscribe(session, request.method, request.params)
        return Answer(result_response(request.id, {}))

    async def _subscribe(self, session: Session, method: str, params: Mapping[str, Any]) -> None:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise MCPError("invalid_params", f"Invalid params: {method} needs params.uri")
        if method == RESOURCES_SUBSCRIBE:
            await self._registry.add(session.key, SUBSCRIBED, uri, session.ttl_s)
            self._interest.hold(session.key, (uri,), ttl_s=session.ttl_s)
        else:
            await self._registry.discard(session.key, SUBSCRIBED, uri, session.ttl_s)
            self._interest.release(session.key, (uri,))

"""The answer to one request handed straight to a Suite, read through the real relay."""

from __future__ import annotations

from typing import Any

from genmcp.call.relay import Relay
from genmcp.errors import http_status
from genmcp.events import Answer
from genmcp.protocol.jsonrpc import Request
from genmcp.suite import Suite


async def answer_of(
    suite: Suite, request: Request, assigns: dict[str, Any] | None = None
) -> tuple[dict[str, Any], int]:
    """The response to ``request`` and the HTTP status the transport would send it with."""
    async for event in Relay(await suite.handle(request, assigns or {})):
        if isinstance(event, Answer):
            return event.response, http_status(event.reason)
    raise AssertionError(f"{request.method} ended without a response")

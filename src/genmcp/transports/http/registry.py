"""``Registry``: what an ASGI handler serves, found by the handler's identity.

``fastapi.endpoint.ENDPOINTS`` is the one instance: every ``MCPEndpoint`` registers
itself when made, and ``mcp_router`` registers the function of each API route it builds
(the route that runs auth dependencies, then hands the request to the endpoint). stdio and
the start-up checks then find the endpoint behind any route with
``ENDPOINTS.get(route.endpoint)``, with no attribute read off the handler.

Entries are weak on both sides: dropping a router drops its entries.

Imports nothing from genmcp.
"""

from __future__ import annotations

import weakref
from typing import Generic, TypeVar

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Values of type ``T`` by the ASGI handler that serves them (weakly held)."""

    def __init__(self) -> None:
        self._served: weakref.WeakKeyDictionary[object, weakref.ReferenceType[T]] = (
            weakref.WeakKeyDictionary()
        )

    def add(self, handler: object, value: T) -> None:
        """Record that ``handler`` serves ``value`` (both must be weakly referable)."""
        self._served[handler] = weakref.ref(value)

    def get(self, handler: object) -> T | None:
        """What ``handler`` serves, or None."""
        try:
            found = self._served.get(handler)
        except TypeError:  # not weakly referable (a builtin, an unhashable): not registered
            return None
        return None if found is None else found()

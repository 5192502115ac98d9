"""The one place genmcp reads what FastAPI and Starlette do not promise.

Every entry below reaches past the public API of FastAPI or Starlette (a private attribute,
an internal function, a scope key). Each says which versions it was checked on and what it
does when the internal is gone or changed: a correct path, perhaps slower, never a crash.
Each fallback has a test (``tests/transports/test_compat.py``) that takes the internal away.

Outside this module genmcp uses only FastAPI's and Starlette's public API.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import fastapi.routing

__all__ = ["routes_changed", "served_routes"]


# -- route tables ---------------------------------------------------------------------------
#
# How an app's routes, includes and mounts are read and changed at start-up.
#


def routes_changed(router: Any) -> None:
    """Tell ``router`` its route list was changed in place.

    FastAPI 0.16x caches what it matches per route list and clears the cache in the private
    ``_mark_routes_changed`` (checked on 0.165.0). Older releases have no cache and no such
    method: there is nothing to clear, so the call does nothing.
    """
    changed = getattr(router, "_mark_routes_changed", None)
    if callable(changed):
        changed()


_ROUTE_CONTEXTS: Callable[[Sequence[Any]], Iterable[Any]] | None = getattr(
    fastapi.routing, "iter_route_contexts", None
)
"""FastAPI 0.16x's walk of a route list through its lazy includes (undocumented)."""


def served_routes(routes: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
    """``(defined, served)`` for each route ``routes`` serve, through FastAPI's includes.

    ``defined`` is the route object as declared (an ``APIRoute``, a ``Mount``...); ``served``
    answers ``path``, ``path_format``, ``methods``, ``response_model``, ``status_code``,
    ``response_class`` and ``endpoint`` as the app serves it (the include's prefix, tags and
    defaults applied). FastAPI 0.16x keeps an include lazy, one route object for the whole
    included router, and walks it with ``fastapi.routing.iter_route_contexts`` (checked on
    0.165.0). Earlier releases (checked on 0.115.14 and 0.135.0) copy the included routes into
    the list, merged: there each route serves as defined. Without the function a lazy include
    is not entered here; ``route_tools`` then reads its operations from the OpenAPI document
    alone, which FastAPI builds through includes on every release.
    """
    walk = _ROUTE_CONTEXTS
    if walk is None:
        for route in routes:
            yield route, route
        return
    for context in walk(routes):
        yield getattr(context, "original_route", context), context


# -- dependencies ---------------------------------------------------------------------------
#
# How a dependency is solved for a call the way FastAPI solves it for a request.
#


# -- application state ----------------------------------------------------------------------
#
# How ``app.state`` and the lifespan state are read.
#

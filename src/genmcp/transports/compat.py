"""The one place genmcp reads what FastAPI and Starlette do not promise.

Every entry below reaches past the public API of FastAPI or Starlette (a private attribute,
an internal function, a scope key). Each says which versions it was checked on and what it
does when the internal is gone or changed: a correct path, perhaps slower, never a crash.
Each fallback has a test (``tests/transports/test_compat.py``) that takes the internal away.

Outside this module genmcp uses only FastAPI's and Starlette's public API.
"""

from __future__ import annotations

from typing import Any

__all__ = ["included", "plain_include", "routes_changed"]


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


def included(route: Any) -> tuple[Any, str] | None:
    """``(router, prefix)`` when ``route`` is FastAPI's lazy include of a router, else None.

    FastAPI 0.16x keeps ``include_router`` lazy: the app's route list holds one private
    ``_IncludedRouter`` per include, with ``original_router`` and ``include_context.prefix``
    (checked on 0.165.0). FastAPI 0.115 and 0.135 (checked on 0.115.14 and 0.135.0) copy the
    router's routes into the app instead, so every route is already in the app's own list:
    None there, and the walk over the app's routes finds them. Should the lazy include
    change shape, None again: what reads it then sees only the app's own routes (an include
    stays an include; ``MCPTestClient(app)`` asks for ``suite=``), never a wrong route.
    """
    router = getattr(route, "original_router", None)
    prefix = getattr(getattr(route, "include_context", None), "prefix", None)
    if router is None or not isinstance(prefix, str):
        return None
    return router, prefix


def plain_include(route: Any) -> tuple[Any, str] | None:
    """:func:`included`, when nothing of the include applies beyond its prefix; else None.

    A lazy include may also carry its own ``max_body_size`` (``include_context``) and its router
    low-priority routes (``_low_priority_routes``; both checked on 0.165.0). When
    either is there, or cannot be read, the include is not plain: None, and the include
    stays as FastAPI made it (correct, one match more per request).
    """
    found = included(route)
    if found is None:
        return None
    limit = getattr(getattr(route, "include_context", None), "max_body_size", False)
    if limit is not None:  # a limit of its own, or no way to read it: not plain
        return None
    low = getattr(found[0], "_low_priority_routes", None)
    if not isinstance(low, list) or low:
        return None
    return found


# -- dependencies ---------------------------------------------------------------------------
#
# How a dependency is solved for a call the way FastAPI solves it for a request.
#


# -- application state ----------------------------------------------------------------------
#
# How ``app.state`` and the lifespan state are read.
#

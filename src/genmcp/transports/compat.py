"""The one place genmcp reads what FastAPI and Starlette do not promise.

Every entry below reaches past the public API of FastAPI or Starlette (a private attribute,
an internal function, a scope key). Each says which versions it was checked on and what it
does when the internal is gone or changed: a correct path, perhaps slower, never a crash.
Each fallback has a test (``tests/transports/test_compat.py``) that takes the internal away.

Outside this module genmcp uses only FastAPI's and Starlette's public API.
"""

from __future__ import annotations

from typing import Any

__all__ = ["routes_changed"]


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


# -- dependencies ---------------------------------------------------------------------------
#
# How a dependency is solved for a call the way FastAPI solves it for a request.
#


# -- application state ----------------------------------------------------------------------
#
# How ``app.state`` and the lifespan state are read.
#

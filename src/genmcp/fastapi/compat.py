"""The one place genmcp reads what FastAPI and Starlette do not promise.

Every entry below reaches past the public API of FastAPI or Starlette (a private attribute,
an internal function, a scope key). Each says which versions it was checked on and what it
does when the internal is gone or changed: a correct path, perhaps slower, never a crash.
Each fallback has a test (``tests/fastapi/test_compat.py``) that takes the internal away.

Outside this module genmcp uses only FastAPI's and Starlette's public API.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AsyncExitStack
from typing import Any

import fastapi.routing

__all__ = [
    "clear_stale_exit",
    "dependency_scope",
    "included",
    "plain_include",
    "routes_changed",
    "served_routes",
    "solve_keywords",
]


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
# ``fastapi.dependencies.utils.solve_dependencies`` is FastAPI's internal solver (no public
# API solves a dependency outside a route); ``fastapi.depends`` calls it with what
# these two entries give.
#

_STACK_KEYS = ("fastapi_inner_astack", "fastapi_function_astack")


def dependency_scope(scope: Mapping[str, Any], stack: AsyncExitStack) -> dict[str, Any]:
    """A copy of the ASGI ``scope`` whose ``yield`` dependencies end on ``stack``.

    FastAPI 0.121 and later (checked on 0.135.0 and 0.165.0) take the exit stacks of
    ``yield`` dependencies from the scope keys ``fastapi_inner_astack`` (request scope) and
    ``fastapi_function_astack`` (``Depends(scope="function")``), and keep the anyio cancel
    scope of async-generator dependencies under ``fastapi_async_cleanup_scopes``; both
    stacks are the call's one ``stack``. Earlier releases (checked on 0.115.14) read no key
    and take the stack as the ``async_exit_stack`` argument (:func:`solve_keywords`): the
    keys are then unused. A copy per set of dependencies, so the cleanup scope FastAPI
    files in it is theirs.
    """
    copied = {**scope}
    copied.pop("fastapi_async_cleanup_scopes", None)  # the route's own, if any
    for key in _STACK_KEYS:
        copied[key] = stack
    return copied


_SOLVE_KEYWORDS = frozenset({"async_exit_stack", "embed_body_fields"})


def solve_keywords(solve: Callable[..., Any]) -> frozenset[str]:
    """Which of ``async_exit_stack`` and ``embed_body_fields`` this FastAPI's
    ``solve_dependencies`` takes (read once, at import).

    ``async_exit_stack`` is where 0.115 files the cleanups (0.165.0 still requires it and
    ignores it); ``embed_body_fields`` came in 0.113. Each is passed only when the signature
    names it (checked on 0.115.14, 0.135.0, 0.165.0): a release without one still solves.
    Without a readable signature, both are passed (what every release since 0.113 takes).
    """
    try:
        return _SOLVE_KEYWORDS & set(inspect.signature(solve).parameters)
    except (TypeError, ValueError):
        return _SOLVE_KEYWORDS


# -- application state ----------------------------------------------------------------------
#
# How ``app.state`` and the lifespan state are read.
#


# -- server exit ----------------------------------------------------------------------------
#
# How a stream learns that the server is stopping (sse-starlette's watch of uvicorn).
#


def clear_stale_exit() -> None:
    """Forget an exit sse-starlette remembers from a server of this process that stopped.

    sse-starlette keeps uvicorn's exit signal in ``AppStatus.should_exit``, a class attribute
    shared by the whole process, and ends every stream at once while it is set (checked on
    3.0.0 and 3.7.1). Once one server of a process has stopped (a test's live server, an app
    that embeds and restarts one), every later stream of that process would end as it opened.
    A server that is starting has no exit pending, so its lifespan clears the flag. Before
    the first stream sse-starlette is not imported and there is nothing to clear; without the
    attribute nothing is done.
    """
    module = sys.modules.get("sse_starlette.sse")
    status = getattr(module, "AppStatus", None)
    if getattr(status, "should_exit", False) is True:
        status.should_exit = False  # type: ignore[union-attr]

"""The one place genmcp reads what FastAPI and Starlette do not promise.

Every entry below reaches past the public API of FastAPI or Starlette (a private attribute,
an internal function, a scope key), or of the server under them (uvicorn's exit). Each says
which versions it was checked on and what it does when the internal is gone or changed: a
correct path, perhaps slower, never a crash. Each fallback has a test
(``tests/fastapi/test_compat.py``) that takes the internal away.

Outside this module genmcp uses only FastAPI's and Starlette's public API.
"""

from __future__ import annotations

import asyncio
import inspect
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AsyncExitStack
from typing import Any, Final

import fastapi.routing

__all__ = [
    "EXIT_POLL_S",
    "dependency_scope",
    "included",
    "plain_include",
    "routes_changed",
    "served_routes",
    "server_exit",
    "solve_keywords",
    "uvicorn_exiting",
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
# How a stream learns that the server is stopping: uvicorn's ``Server``, found through the
# signal handler it installs. Not FastAPI's or Starlette's, but the same kind of reach.
#

EXIT_POLL_S: Final = 0.25
"""How often the exit watch reads uvicorn's flag while streams are open."""


def uvicorn_exiting() -> bool:
    """Whether the uvicorn server of this process's main thread was asked to exit.

    For as long as it serves, uvicorn installs its ``Server``'s bound ``handle_exit`` as the
    SIGTERM and SIGINT handler (``Server.capture_signals``, main thread only), and sets the
    server's ``should_exit`` on the signal, as does code that embeds it (checked on 0.31.1
    and 0.55.0). The handler is read afresh each time, so a server that stopped is never
    mistaken for one started after it. When it is not a uvicorn ``Server``'s (no uvicorn,
    a server run in another thread, another ASGI server, a changed uvicorn): False, and
    open streams end when the server's own graceful-shutdown timeout cancels them.
    """
    module = sys.modules.get("uvicorn.server")
    server_class = getattr(module, "Server", None)
    server = getattr(signal.getsignal(signal.SIGTERM), "__self__", None)
    if not isinstance(server_class, type) or not isinstance(server, server_class):
        return False
    return getattr(server, "should_exit", False) is True


_watch: asyncio.Task[None] | None = None  # uvicorn's exit is the process's (tests/layout)


async def server_exit() -> None:
    """Return once the server is asked to exit (:func:`uvicorn_exiting`, every
    ``EXIT_POLL_S``): one watch per event loop, shared by every stream that awaits it."""
    global _watch
    loop = asyncio.get_running_loop()
    watch = _watch
    if watch is None or watch.done() or watch.get_loop() is not loop:
        watch = _watch = loop.create_task(_poll_exit(), name="genmcp:server-exit")
    await asyncio.shield(watch)


async def _poll_exit() -> None:
    while not uvicorn_exiting():  # noqa: ASYNC110 (a plain attribute: no event to wait on)
        await asyncio.sleep(EXIT_POLL_S)

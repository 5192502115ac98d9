"""Which Suite a target serves, and how an app around it is hosted: for stdio and the CLI.

A target is a Suite, an ``MCPRouter`` (its ``suite``) or an app that mounts one. An app is
found and run by an app host (``AppHost``): the FastAPI adapter registers its own on import
(:func:`host_apps`, ``genmcp.fastapi.stdio_app``), so this layer never imports the adapter
above it. :func:`served` runs an app's lifespan and auth around serving its Suite.
Imports the Suite and the app context; no event loop of its own, never a web framework.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Protocol

from genmcp.context import AppContext
from genmcp.suite import Suite

__all__ = [
    "AppHost",
    "HostedApp",
    "carried_suite",
    "host_apps",
    "require_suite",
    "served",
    "suite_of",
]


class HostedApp(Protocol):
    """What an app host gives stdio to serve: the Suite, the assigns, a context per call."""

    @property
    def suite(self) -> Suite: ...

    @property
    def assigns(self) -> Mapping[str, Any]: ...

    @property
    def context(self) -> Callable[[], AppContext]: ...


class AppHost(Protocol):
    """Serves an app (anything but a Suite) over stdio: finds its Suite, runs its lifespan
    and auth around serving. The FastAPI adapter is the one (``genmcp.fastapi.stdio_app``);
    ``genmcp.fastapi`` registers it on import (:func:`host_apps`), so stdio never imports the
    adapter above it, and an app that serves MCP was built with the adapter, so it is there."""

    def suite_of(self, target: Any) -> Suite | None:
        """The one Suite ``target`` serves, or None."""
        ...

    def hosted(
        self,
        target: Any,
        *,
        headers: Mapping[str, str] | None = None,
        assigns: Mapping[str, Any] | None = None,
    ) -> contextlib.AbstractAsyncContextManager[HostedApp]:
        """Run ``target``'s lifespan and auth; yields what to serve."""
        ...


_HOSTS: list[AppHost] = []  # filled at import by a higher layer: no upward import (tests/layout)


def host_apps(host: AppHost) -> None:
    """Serve apps through ``host`` (the FastAPI adapter registers itself once, on import)."""
    if host not in _HOSTS:
        _HOSTS.append(host)


def carried_suite(target: object) -> Suite | None:
    """``target`` when it is a Suite, its ``suite`` when that is one (an ``MCPRouter``), else
    None; no routes are searched."""
    if isinstance(target, Suite):
        return target
    # a user's object of any type (what ``MODULE:ATTR`` names): the router is a class of a
    # layer above this one, and whatever carries a Suite as ``suite`` serves it, so the
    # attribute is asked for, not a class
    found = getattr(target, "suite", None)
    return found if isinstance(found, Suite) else None


def suite_of(target: Any) -> Suite | None:
    """The Suite behind ``target``: a Suite, an ``MCPRouter``, or an app that mounts one.

    An app's routes are searched by the app host (``genmcp.fastapi.stdio_app.suite_of``:
    through mounts and included routers, for the MCP endpoint); None when no single Suite
    is found.
    """
    found = carried_suite(target)
    if found is not None:
        return found
    for host in _HOSTS:
        suite = host.suite_of(target)
        if suite is not None:
            return suite
    return None


@contextlib.asynccontextmanager
async def served(
    target: Any, options: dict[str, Any]
) -> AsyncIterator[tuple[Suite, dict[str, Any]]]:
    """The Suite and server options; an app's lifespan and auth run around the block."""
    headers = options.pop("headers", None)
    if isinstance(target, Suite):
        if headers:
            raise TypeError("headers= feed an app's auth dependency; a Suite takes assigns=")
        yield target, options
        return
    if not _HOSTS:
        require_suite(target)  # no adapter imported: nothing can serve an app's Suite
    hosted = _HOSTS[0].hosted(target, headers=headers, assigns=options.pop("assigns", None))
    async with hosted as app:
        yield app.suite, {**options, "assigns": app.assigns, "context": app.context}


def require_suite(target: Any) -> Suite:
    """``suite_of(target)``, or a ``TypeError`` saying what to give instead."""
    suite = suite_of(target)
    if suite is None:
        raise TypeError(
            f"no Suite found in {target!r}: give a Suite, an MCPRouter, or an app that "
            "includes exactly one mcp_router"
        )
    return suite

"""stdio for an app: its lifespan, its auth dependency, and a context per call.

``genmcp run shop:app --transport stdio`` serves the app's Suite over stdio as uvicorn serves
it over HTTP: the app's lifespan runs first (and the routers' it includes), every call sees
its state (``channel.state``) and may ``await channel.resolve(dependency)``, each call with
its own dependency cache and cleanup.

stdio has no HTTP headers, so an endpoint with an auth dependency needs the credentials it
reads given once, on the command line (``--header 'Authorization: Bearer ...'``): the
dependency runs once at startup against a stand-in request carrying them, and its value is
``channel.assigns`` of every call. Or ``assigns=`` (``--assigns '{"principal": "me"}'``) names
the principal and skips it. Without either, the dependency's refusal is an
:class:`AuthRequired` saying both fixes; never a silent unauthenticated server.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from genmcp.context import AppContext
from genmcp.fastapi.compat import included
from genmcp.fastapi.depends import local_context, local_request, run_auth
from genmcp.fastapi.endpoint import ENDPOINTS
from genmcp.fastapi.lifespan import lifespan
from genmcp.fastapi.router import MCPRouter, mcp_app
from genmcp.suite import Suite
from genmcp.transports.hosting import carried_suite

__all__ = ["AuthRequired", "Hosted", "hosted", "mcp_of", "suite_of"]


class AuthRequired(PermissionError):
    """The endpoint's auth dependency refused stdio's stand-in request."""


@dataclass(frozen=True, slots=True)
class Hosted:
    """What stdio serves: the Suite, the assigns of every call, a context per call."""

    suite: Suite
    assigns: Mapping[str, Any]
    context: Callable[[], AppContext]


def mcp_of(target: Any, _depth: int = 0) -> list[tuple[Suite, Any]]:
    """Every (Suite, auth dependency or None) an app, router or Suite serves.

    Walks the routes, includes and mounts; a route's endpoint is found in
    ``ENDPOINTS`` (``transports.http.registry``)."""
    if isinstance(target, Suite):
        return [(target, None)]
    if isinstance(target, MCPRouter):
        return [(target.suite, target.auth)]
    endpoint = ENDPOINTS.get(target)  # a route's handler: the endpoint, or its API route's
    if endpoint is not None:
        return [(endpoint.suite, None if endpoint.auth is None else endpoint.auth.dependency)]
    if _depth > 5:
        return []
    found: list[tuple[Suite, Any]] = []
    for inner in _inside(target):
        for pair in mcp_of(inner, _depth + 1):
            if pair not in found:
                found.append(pair)
    return found


def _inside(target: Any) -> Iterator[Any]:
    """What the routes of ``target`` lead to: an included router, a route's endpoint, a
    mount's app (never ``target`` itself)."""
    for route in getattr(target, "routes", None) or ():
        include = included(route)
        inner_targets = (include[0],) if include else (
            getattr(route, "endpoint", None), getattr(route, "app", None)  # a route, a mount
        )
        yield from (inner for inner in inner_targets if inner is not None and inner is not target)


def suite_of(target: Any, _depth: int = 0) -> Suite | None:
    """The one Suite behind an app, a router or a route (``transports.hosting.suite_of``).

    Routes are searched (through mounts and included routers) for the MCP endpoint, found
    by its route's handler in ``ENDPOINTS`` (a raw route's endpoint, or the function of the
    API route that runs its auth dependency, wherever FastAPI copied that route); None
    when no single Suite is found.
    """
    found = carried_suite(target)
    if found is not None:
        return found
    endpoint = ENDPOINTS.get(target)
    if endpoint is not None:
        return endpoint.suite
    if _depth > 4:
        return None
    suites = set()
    for inner in _inside(target):
        suite = suite_of(inner, _depth + 1)
        if suite is not None:
            suites.add(suite)
    return suites.pop() if len(suites) == 1 else None


@contextlib.asynccontextmanager
async def hosted(
    target: Any,
    *,
    headers: Mapping[str, str] | None = None,
    assigns: Mapping[str, Any] | None = None,
    path: str = "/mcp",
) -> AsyncIterator[Hosted]:
    """Run ``target``'s lifespan and auth for stdio; yields what to serve.

    Raises ``TypeError`` when ``target`` serves no single Suite, ``AuthRequired`` when the
    auth dependency refuses, ``LifespanError`` when the lifespan fails.
    """
    served = mcp_of(target)
    suites = {suite for suite, _ in served}
    if len(suites) != 1:
        raise TypeError(
            f"{target!r} serves {len(suites) or 'no'} MCP Suite(s): give a Suite, an MCPRouter "
            "or an app that includes exactly one mcp_router"
        )
    suite, auth = served[0]
    app = mcp_app(target, path=path) if isinstance(target, Suite | MCPRouter) else target
    async with lifespan(app) as state:
        request = local_request(app, state, headers or {}, path)

        def context() -> AppContext:
            return local_context(app, state, request)

        if assigns is None and auth is not None:
            assigns = await _authenticate(auth, context(), headers or {})
        yield Hosted(suite, dict(assigns or {}), context)


async def _authenticate(
    auth: Callable[..., Any], context: AppContext, headers: Mapping[str, str]
) -> Mapping[str, Any]:
    try:
        return await run_auth(auth, context)
    except PermissionError as exc:
        given = ", ".join(sorted(headers)) or "no headers"
        raise AuthRequired(
            f"the MCP endpoint's auth dependency refused stdio ({exc}; given: {given}). stdio "
            "has no HTTP headers: pass the ones it reads, e.g. genmcp run APP --transport "
            "stdio --header 'Authorization: Bearer TOKEN', or name the principal with "
            '--assigns \'{"principal": "me"}\''
        ) from None

"""FastAPI dependencies and app state for hooks: the :class:`~genmcp.context.AppContext` of HTTP
requests and of stdio, and the solver behind ``await channel.resolve(dependency)``.

* ``http_context(scope)``: the context of one HTTP request (``scope["app"]``, the lifespan
  state in ``scope["state"]``, a Starlette ``Request``), bound by the endpoint.
* ``solve``: FastAPI's own dependency machinery (``get_dependant``/``solve_dependencies``):
  sub-dependencies, ``app.dependency_overrides``, ``Security`` scopes, header/query/cookie
  parameters and ``yield`` dependencies, cached in the given ``Dependencies`` (one hook
  invocation's, or one Call's) and cleaned up when whoever opened them closes them, in the
  task that resolved (what differs between FastAPI releases: ``fastapi.compat``). A
  dependency's ``HTTPException``, or a parameter the request lacks, is a JSON-RPC error the
  client can read; the request body was read by MCP, so ``Body`` parameters are refused.
* ``local_request(app, state, headers)``: the stand-in request of a process with no HTTP
  (stdio): the app, its lifespan state and the headers given on the command line.
* ``run_auth(auth, context)``: an endpoint's auth dependency run once for stdio.
* ``remember_auth(scope, auth, value)``: the route's auth result, handed to ``solve`` so a
  dependency using ``Depends(auth)`` reuses it: the first ``solve`` into a set of
  ``Dependencies`` seeds their cache by solving ``auth`` once more with FastAPI overriding it
  by the known value, so FastAPI files it under its own cache key (which is internal) and
  never calls ``auth`` again.

A web module (imports FastAPI and Starlette).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fastapi import Depends, HTTPException, params
from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import get_dependant, solve_dependencies
from starlette.requests import Request as HTTPRequest
from starlette.responses import Response as HTTPResponse
from starlette.types import Scope

from genmcp.context import AppContext, AppState, Dependencies
from genmcp.errors import MCPError
from genmcp.fastapi.compat import dependency_scope, solve_keywords

__all__ = ["http_context", "local_request", "remember_auth", "run_auth", "solve"]

_AUTH_KEY = "genmcp.solved_auth"

_dependants: dict[Any, Dependant] = {}  # a memo per dependency: code, bounded (tests/layout)
_KEYWORDS = solve_keywords(solve_dependencies)


def _dependant_of(dependency: Any) -> Dependant:
    """A dependant whose one parameter is ``dependency`` (made once per dependency)."""
    try:
        return _dependants[dependency]
    except (KeyError, TypeError):
        pass
    marker = dependency if isinstance(dependency, params.Depends) else Depends(dependency)
    if marker.dependency is None:
        raise TypeError("channel.resolve(Depends()) needs the dependency: Depends(get_db)")

    def root(value: Any = marker) -> Any:
        return value

    dependant = get_dependant(path="", call=root)
    if dependant.body_params:
        raise TypeError(
            f"{marker.dependency!r} reads the request body, which MCP owns: take its input "
            "from the tool's arguments, headers, the query or app state instead"
        )
    try:
        _dependants[dependency] = dependant
    except TypeError:
        pass  # unhashable: solved again next time
    return dependant


async def solve(dependency: Any, context: AppContext, dependencies: Dependencies) -> Any:
    """``dependency`` resolved with the request of ``context``, cached in ``dependencies``
    and its cleanup on their stack (run when they are closed)."""
    request = context.http_request
    if not isinstance(request, HTTPRequest):
        raise RuntimeError("channel.resolve needs an HTTP request (or stdio's stand-in)")
    dependant = _dependant_of(dependency)
    cache = dependencies.cache
    solving = dependencies.solver_state
    if solving is None:  # the first solve into these dependencies
        scope = dependency_scope(request.scope, dependencies.stack)
        solving = dependencies.solver_state = HTTPRequest(scope, request.receive)
        seed = request.scope.get(_AUTH_KEY)
        if seed is not None:
            await _seed(seed, context, dependencies, solving)
    try:
        solved = await solve_dependencies(
            request=solving,
            dependant=dependant,
            dependency_overrides_provider=context.app
            if hasattr(context.app, "dependency_overrides")
            else None,
            dependency_cache=cache,
            **_keywords(dependencies),
        )
    except HTTPException as exc:
        raise _refusal(dependant, exc) from None
    if solved.errors:
        problems = [
            f"{'.'.join(str(part) for part in error.get('loc', ()))}: {error.get('msg')}"
            for error in solved.errors
        ]
        raise MCPError(
            "invalid_params",
            f"Invalid params: the request lacks what {_name(dependant)} needs "
            f"({'; '.join(problems)})",
            {"errors": problems},
        )
    cache.update(solved.dependency_cache)
    return solved.values["value"]


def _keywords(dependencies: Dependencies) -> dict[str, Any]:
    """What this FastAPI's ``solve_dependencies`` takes besides the request and cache."""
    given: dict[str, Any] = {}
    if "async_exit_stack" in _KEYWORDS:
        given["async_exit_stack"] = dependencies.stack
    if "embed_body_fields" in _KEYWORDS:
        given["embed_body_fields"] = False
    return given


def remember_auth(scope: Scope, auth: Callable[..., Any], value: Any) -> None:
    """Keep the value the route's ``Depends(auth)`` gave, for the request's first ``solve``."""
    scope[_AUTH_KEY] = (auth, value)


class _Known:
    """A ``dependency_overrides_provider`` answering ``auth`` with the value it gave."""

    def __init__(self, auth: Callable[..., Any], value: Any) -> None:
        self.dependency_overrides = {auth: lambda: value}


async def _seed(
    seed: tuple[Callable[..., Any], Any],
    context: AppContext,
    dependencies: Dependencies,
    request: HTTPRequest,
) -> None:
    auth, value = seed
    solved = await solve_dependencies(
        request=request,
        dependant=_dependant_of(auth),
        dependency_overrides_provider=_Known(auth, value),
        dependency_cache=dependencies.cache,
        **_keywords(dependencies),
    )
    dependencies.cache.update(solved.dependency_cache)


def _name(dependant: Dependant) -> str:
    call = dependant.dependencies[0].call if dependant.dependencies else None
    return getattr(call, "__qualname__", None) or repr(call)


def _refusal(dependant: Dependant, exc: HTTPException) -> MCPError:
    detail = exc.detail if isinstance(exc.detail, str) else repr(exc.detail)
    return MCPError(
        "invalid_request",
        f"Refused by {_name(dependant)}: {detail} (HTTP {exc.status_code})",
        {"status": exc.status_code, "detail": exc.detail},
    )


def http_context(scope: Scope, solver: bool = True) -> AppContext:
    """The context of one HTTP request: its app, lifespan state and Starlette request."""
    return AppContext.of_request(scope.get("app"), scope, HTTPRequest, solve if solver else None)


def local_request(
    app: Any, state: Mapping[str, Any] | None, headers: Mapping[str, str], path: str = "/mcp"
) -> HTTPRequest:
    """The stand-in request of a process without HTTP (stdio): headers from configuration."""
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "stdio",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
        "client": None,
        "server": None,
        "app": app,
        "state": dict(state or {}),
    }
    return HTTPRequest(scope)


def local_context(app: Any, state: Mapping[str, Any] | None, request: HTTPRequest) -> AppContext:
    """A fresh per-call context around stdio's stand-in request."""
    return AppContext(
        app=app,
        state=AppState(state, getattr(app, "state", None)),
        http_request=request,
        solver=solve,
    )


async def run_auth(auth: Callable[..., Any], context: AppContext) -> Mapping[str, Any]:
    """Run an endpoint's auth dependency once (stdio); its value as ``channel.assigns``.

    A ``yield`` auth dependency is torn down before this returns, in this task.
    Raises ``PermissionError`` with the refusal when the dependency refuses.
    """
    dependencies = Dependencies()
    try:
        value = await solve(auth, context, dependencies)
    except MCPError as exc:
        await dependencies.close(exc)
        raise PermissionError(exc.message) from None
    await dependencies.close()
    if isinstance(value, HTTPResponse):
        raise PermissionError(
            f"the auth dependency answered HTTP {value.status_code} (a challenge)"
        )
    if value is None:
        return {}
    return value if isinstance(value, Mapping) else {"principal": value}

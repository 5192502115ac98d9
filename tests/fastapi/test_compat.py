"""``fastapi/compat.py``: each reach past FastAPI's public API, and its fallback.

Each entry is tested twice: on the FastAPI installed (the internal is there and used) and with
the internal taken away (the fallback path is correct).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import pytest
from fastapi import APIRouter, Depends, FastAPI
from fastapi.dependencies.utils import get_dependant, solve_dependencies
from fastapi.routing import APIRoute
from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.routing import Route
from tests.routes_as_tools.test_table import BLUE, make_app

from genmcp import Suite, mcp_app, mcp_router, tool
from genmcp.fastapi import compat
from genmcp.fastapi.compat import (
    clear_stale_exit,
    dependency_scope,
    included,
    plain_include,
    routes_changed,
    served_routes,
    solve_keywords,
)
from genmcp.routes_as_tools import BuildError, RouteTool, route_tools, routes_router
from genmcp.testing import MCPTestClient
from genmcp.transports.stdio import suite_of


def _late() -> str:
    return "late"


def test_a_route_added_in_place_is_seen_once_the_router_is_told() -> None:
    app = FastAPI()
    assert "/late" not in app.openapi()["paths"]  # FastAPI keeps this document cached
    app.router.routes.append(APIRoute("/late", _late))
    routes_changed(app.router)
    cached = not hasattr(app.router, "_mark_routes_changed")  # a release that never re-reads
    assert ("/late" in app.openapi()["paths"]) is not cached


def test_a_router_without_a_route_cache_is_left_alone() -> None:
    class Plain:  # a router of a release with no route cache: no private method to call
        routes: list[Route] = []

    routes_changed(Plain())
    assert Plain.routes == []


# -- route tables: served_routes ------------------------------------------------------------


def _options(tools: list[type[RouteTool]]) -> list[tuple[Any, ...]]:
    keys = ("name", "description", "input_schema", "output_schema", "annotations")
    return [tuple(tool().option(key) for key in keys) for tool in tools]


def test_the_routes_an_app_serves_include_its_included_routers() -> None:
    served = {
        (sorted(route.methods)[0], route.path)
        for defined, route in served_routes(make_app().routes)
        if isinstance(defined, APIRoute)
    }
    assert {("GET", "/api/tickets/{tid}/files/{name:path}"), ("GET", "/api/ping"),
            ("GET", "/reports/weekly"), ("POST", "/api/tickets")} <= served


async def test_without_the_walk_route_tools_reads_included_routes_from_the_document(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = make_app()
    walked = _options(route_tools(app))
    monkeypatch.setattr(compat, "_ROUTE_CONTEXTS", None)  # a release without the walk
    assert _options(route_tools(app)) == walked
    app.include_router(routes_router(app, server_name="t", server_version="1",
                                     forward_headers=["x-team"], tags=["read"]),
                       prefix="/mcp")
    async with MCPTestClient(app, headers=BLUE) as client:
        read = await client.call_tool("get_ticket", {"tid": 7})
    async with MCPTestClient(app) as client:
        refused = await client.call_tool("get_ticket", {"tid": 7})
    assert read.result["structuredContent"] == {"id": 7, "path": "/api/tickets/7"}
    assert json.loads(refused.content[0]["text"]) == {"status": 403, "detail": "team blue only"}


def test_without_the_walk_a_documented_stream_is_still_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    router = APIRouter(prefix="/feed")

    @router.get("/events", response_class=EventSourceResponse, operation_id="events")
    async def events() -> EventSourceResponse:
        return EventSourceResponse(iter([]))

    app = FastAPI()
    app.include_router(router)
    with pytest.raises(BuildError, match=r"GET /feed/events \(events\).*(stream|EventSource)"):
        route_tools(app)
    monkeypatch.setattr(compat, "_ROUTE_CONTEXTS", None)
    with pytest.raises(BuildError, match=r"GET /feed/events \(events\).*(stream|EventSource)"):
        route_tools(app)
# -- dependencies -----------------------------------------------------------------------

LOG: list[tuple[str, Any]] = []


async def _session() -> AsyncIterator[str]:
    LOG.append(("setup", asyncio.current_task()))
    yield "session"
    LOG.append(("teardown", asyncio.current_task()))


async def test_a_yield_dependency_solved_with_the_scope_and_keywords_ends_on_the_stack() -> None:
    LOG.clear()

    def root(value: str = Depends(_session)) -> str:
        return value

    route_scope = {"type": "http", "headers": [], "query_string": b"", "path": "/", "app": None}
    route_scope["fastapi_async_cleanup_scopes"] = {}  # the enclosing route's: not ours
    async with AsyncExitStack() as stack:
        scope = dependency_scope(route_scope, stack)
        keywords = {"async_exit_stack": stack, "embed_body_fields": False}
        taken = solve_keywords(solve_dependencies)
        solved = await solve_dependencies(
            request=Request(scope),
            dependant=get_dependant(path="", call=root),
            dependency_cache={},
            **{name: value for name, value in keywords.items() if name in taken},
        )
        assert solved.values == {"value": "session"} and len(LOG) == 1
    assert [kind for kind, _ in LOG] == ["setup", "teardown"]  # on our stack, as it closed
    assert LOG[0][1] is LOG[1][1] is asyncio.current_task()
    assert scope["fastapi_inner_astack"] is scope["fastapi_function_astack"] is stack
    assert route_scope["fastapi_async_cleanup_scopes"] == {}  # the original is left alone
    assert "fastapi_inner_astack" not in route_scope


def test_the_solver_keywords_are_those_the_release_takes() -> None:
    assert solve_keywords(solve_dependencies) == {"async_exit_stack", "embed_body_fields"}

    async def early(*, request: Any, dependant: Any, async_exit_stack: Any) -> None: ...

    async def later(*, request: Any, dependant: Any, dependency_cache: Any = None) -> None: ...

    assert solve_keywords(early) == {"async_exit_stack"}  # before embed_body_fields
    assert solve_keywords(later) == frozenset()  # a release that dropped both

    class Opaque:  # a solver whose signature cannot be read: pass what every release took
        __signature__ = "unreadable"

        def __call__(self, **given: Any) -> None: ...

    assert solve_keywords(Opaque()) == {"async_exit_stack", "embed_body_fields"}
def _app_with(router: APIRouter, **options: Any) -> FastAPI:
    app = FastAPI()
    app.include_router(router, prefix="/mcp", **options)
    return app


def test_an_include_is_read_where_fastapi_keeps_it_lazy_and_the_copy_elsewhere() -> None:
    router = mcp_router(suite=Suite(server_name="s", server_version="1"))
    app = _app_with(router)
    found = [included(route) for route in app.routes if included(route) is not None]
    copied = [r for r in app.routes if getattr(r, "endpoint", None) is router.endpoint]
    # 0.16x: one lazy include, its router and prefix; 0.115 and 0.135: the routes copied
    assert found in ([(router, "/mcp")], []) and bool(found) is not bool(copied)
    assert [plain_include(route) for route in app.routes if included(route)] == found
    assert suite_of(app) is router.suite


def test_an_include_whose_internals_are_gone_is_no_include() -> None:
    class Changed:  # a lazy include of a later release, its attributes renamed
        path = "/mcp"
        router = APIRouter()

    assert included(Changed()) is None and plain_include(Changed()) is None


def test_an_include_with_parts_it_cannot_read_is_not_plain() -> None:
    class Context:
        prefix = "/mcp"  # and no max_body_size: a release that renamed it

    class Router:  # a router of a release that keeps no low-priority routes apart
        routes: list[Route] = []

    class Include:
        original_router = Router()
        include_context = Context()

    assert included(Include()) == (Include.original_router, "/mcp")
    assert plain_include(Include()) is None
    Context.max_body_size = None  # type: ignore[attr-defined]
    assert plain_include(Include()) is None  # the router's low-priority routes: unreadable
    Include.original_router._low_priority_routes = []  # type: ignore[attr-defined]
    assert plain_include(Include()) == (Include.original_router, "/mcp")
    Include.original_router._low_priority_routes = [APIRoute("/x", _late)]  # type: ignore[attr-defined]
    assert plain_include(Include()) is None



# -- server exit: clear_stale_exit ----------------------------------------------------------


@tool
async def compat_echo(text: str) -> str:
    """Says it back."""
    return text


async def test_a_starting_server_forgets_the_exit_of_one_that_stopped_before() -> None:
    from sse_starlette.sse import AppStatus

    suite = Suite(server_name="t", server_version="1", tools=[compat_echo])
    AppStatus.should_exit = True  # what a stopped server of this process leaves behind
    try:
        async with MCPTestClient(mcp_app(suite)) as client:
            assert AppStatus.should_exit is False
            async with client.listen(tools=True) as changes:
                suite.remove_tool("compat_echo")
                assert (await changes.next())["method"] == "notifications/tools/list_changed"
    finally:
        AppStatus.should_exit = False


def test_nothing_is_cleared_before_sse_starlette_is_loaded_or_without_its_flag() -> None:
    import sys

    loaded = sys.modules.pop("sse_starlette.sse", None)
    try:
        clear_stale_exit()  # never imported: nothing to clear, nothing imported
        assert "sse_starlette.sse" not in sys.modules
    finally:
        if loaded is not None:
            sys.modules["sse_starlette.sse"] = loaded

"""``fastapi/compat.py``: each reach past FastAPI's public API, and its fallback.

Each entry is tested twice: on the FastAPI installed (the internal is there and used) and with
the internal taken away (the fallback path is correct).
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from typing import Any

import pytest
import uvicorn
from fastapi import APIRouter, Depends, FastAPI
from fastapi.dependencies.utils import get_dependant, solve_dependencies
from fastapi.routing import APIRoute
from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.routing import Route
from tests.routes_as_tools.test_table import BLUE, make_app

from genmcp import Suite, mcp_router
from genmcp.fastapi import compat
from genmcp.fastapi.compat import (
    dependency_scope,
    included,
    plain_include,
    routes_changed,
    served_routes,
    server_exit,
    solve_keywords,
    uvicorn_exiting,
)
from genmcp.routes_as_tools import BuildError, RouteTool, route_tools, routes_router
from genmcp.testing import MCPTestClient
from genmcp.transports.hosting import suite_of


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



# -- server exit: uvicorn_exiting, server_exit ----------------------------------------------


def _uvicorn_server() -> uvicorn.Server:
    return uvicorn.Server(uvicorn.Config(FastAPI()))


@pytest.fixture(autouse=True)
def _no_exit_left_behind() -> Iterator[None]:
    """sse-starlette (imported by these tests) patches uvicorn's ``handle_exit`` to set its
    process-wide ``AppStatus.should_exit``: a test calling it would end every sse-starlette
    stream of the later tests of this process (the official SDK's server among them)."""
    yield
    status = getattr(sys.modules.get("sse_starlette.sse"), "AppStatus", None)
    if status is not None:
        status.should_exit = False


def _with_sigterm_handler(handler: Any) -> Any:
    return signal.signal(signal.SIGTERM, handler)  # the tests run in the main thread


def test_the_exit_of_the_uvicorn_server_serving_is_seen_and_a_later_server_starts_clean() -> None:
    stopped, started = _uvicorn_server(), _uvicorn_server()
    previous = _with_sigterm_handler(stopped.handle_exit)  # as Server.capture_signals does
    try:
        assert uvicorn_exiting() is False
        stopped.handle_exit(signal.SIGTERM, None)  # what the SIGTERM calls
        assert uvicorn_exiting() is True
        _with_sigterm_handler(started.handle_exit)  # the next server of this process
        assert uvicorn_exiting() is False  # no stale exit from the one that stopped
        started.should_exit = True  # code that embeds uvicorn stops it so
        assert uvicorn_exiting() is True
    finally:
        _with_sigterm_handler(previous)


def test_without_a_uvicorn_server_behind_the_signal_no_exit_is_seen() -> None:
    class NotUvicorn:
        should_exit = True

        def handle_exit(self, sig: int, frame: Any) -> None:
            """Someone else's handler."""

    previous = _with_sigterm_handler(signal.SIG_DFL)
    try:
        assert uvicorn_exiting() is False  # no server at all (another ASGI server, a thread)
        _with_sigterm_handler(NotUvicorn().handle_exit)
        assert uvicorn_exiting() is False  # a handler of something else: never read
    finally:
        _with_sigterm_handler(previous)


async def test_every_waiter_of_one_loop_shares_one_watch_that_returns_at_the_exit() -> None:
    server = _uvicorn_server()
    previous = _with_sigterm_handler(server.handle_exit)
    try:
        waiters = [asyncio.ensure_future(server_exit()) for _ in range(3)]
        await asyncio.sleep(compat.EXIT_POLL_S / 2)
        assert not any(waiter.done() for waiter in waiters)
        watches = [t for t in asyncio.all_tasks() if t.get_name() == "genmcp:server-exit"]
        assert len(watches) == 1
        waiters[0].cancel()  # one stream leaving does not stop the others' watch
        server.handle_exit(signal.SIGTERM, None)
        await asyncio.wait_for(asyncio.gather(*waiters[1:]), 5)  # a hang guard
        await asyncio.wait_for(server_exit(), 5)  # a stream opened during the exit ends too
    finally:
        _with_sigterm_handler(previous)

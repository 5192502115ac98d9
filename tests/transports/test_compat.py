"""``transports/compat.py``: each reach past FastAPI's public API, and its fallback.

Each entry is tested twice: on the FastAPI installed (the internal is there and used) and with
the internal taken away (the fallback path is correct).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute
from starlette.routing import Route

from genmcp import Suite, mcp_router
from genmcp.transports.compat import included, plain_include, routes_changed
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


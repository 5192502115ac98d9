"""``transports/compat.py``: each reach past FastAPI's public API, and its fallback.

Each entry is tested twice: on the FastAPI installed (the internal is there and used) and with
the internal taken away (the fallback path is correct).
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.routing import APIRoute
from starlette.routing import Route

from genmcp.transports.compat import routes_changed


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

"""``transports/http/registry.py``: endpoints found by their route's handler, held weakly.

Every ``MCPEndpoint`` registers itself and ``mcp_router`` registers each API route's
function; a dropped router leaves nothing behind; the start-up check finds endpoints of
API routes through it (two routers with auth at one prefix fail at startup).
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from fastapi import FastAPI

from genmcp import Suite, mcp_router
from genmcp.fastapi.endpoint import ENDPOINTS, MCPEndpoint
from genmcp.transports.http.registry import Registry


class Value:
    """Something weakly referable to register."""


def handler() -> None:
    return None


def test_get_finds_what_was_added_by_identity_only() -> None:
    registry: Registry[Value] = Registry()
    value = Value()
    registry.add(handler, value)
    assert registry.get(handler) is value
    assert registry.get(lambda: None) is None
    for unusable in (None, 3, "handler", [handler], {"a": 1}):  # not weakly referable
        assert registry.get(unusable) is None


def test_entries_go_with_their_handler_or_their_value() -> None:
    registry: Registry[Value] = Registry()
    kept = Value()

    def short_lived() -> None:
        return None

    registry.add(short_lived, kept)
    gone = weakref.ref(short_lived)
    del short_lived
    gc.collect()
    assert gone() is None and len(registry._served) == 0
    value = Value()
    registry.add(handler, value)
    del value
    gc.collect()
    assert registry.get(handler) is None


def suite() -> Suite:
    return Suite(server_name="s", server_version="1")


def test_endpoints_and_api_routes_are_registered() -> None:
    endpoint = MCPEndpoint(suite())
    assert ENDPOINTS.get(endpoint) is endpoint
    router = mcp_router(suite=suite(), auth=lambda: {"principal": "p"})
    functions = [route.endpoint for route in router.routes]  # type: ignore[attr-defined]
    assert len(functions) == 2  # "" and "/"
    for function in functions:
        assert function is not router.endpoint and ENDPOINTS.get(function) is router.endpoint


def test_a_dropped_router_leaves_nothing_behind() -> None:
    """The registry holds no endpoint alive. (A router with auth dependencies is not used
    here: FastAPI's own caches keep its route function, and with it the endpoint.)"""

    def build() -> tuple[weakref.ref[Any], weakref.ref[Any]]:
        router = mcp_router(suite=suite())
        app = FastAPI()
        app.include_router(router, prefix="/mcp")
        return weakref.ref(router.endpoint), weakref.ref(app)

    gc.collect()  # what earlier tests dropped goes first: only this test's router may go now
    before = len(ENDPOINTS._served)
    endpoint, app = build()
    gc.collect()
    assert endpoint() is None and app() is None
    assert len(ENDPOINTS._served) == before


async def test_two_routers_with_auth_at_one_prefix_fail_at_startup() -> None:
    app = FastAPI()
    for _ in range(2):
        app.include_router(mcp_router(suite=suite(), auth=lambda: None), prefix="/mcp")
    with pytest.raises(RuntimeError, match="two MCP routers are mounted at /mcp"):
        async with app.router.lifespan_context(app):
            pass
    alone = FastAPI()
    alone.include_router(mcp_router(suite=suite(), auth=lambda: None), prefix="/mcp")
    async with alone.router.lifespan_context(alone):
        pass

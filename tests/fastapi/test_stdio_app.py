"""``fastapi/stdio_app.py``: what stdio serves of an app, found through the registry.

``mcp_of`` walks an app's routes, includes and mounts and finds each MCP endpoint in
``fastapi.endpoint.ENDPOINTS`` (a raw route's endpoint, an API route's function), with
the auth dependency stdio runs once; ``hosted`` runs the app's lifespan and that
dependency against the headers given on the command line.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI, Header, HTTPException

from genmcp import Suite, mcp_router
from genmcp.fastapi.endpoint import MCPEndpoint
from genmcp.fastapi.stdio_app import AuthRequired, hosted, mcp_of
from genmcp.transports.http.auth import Auth, DependencyAuth


def suite(name: str = "s") -> Suite:
    return Suite(server_name=name, server_version="1")


def bearer(authorization: str | None = Header(None)) -> dict[str, Any]:
    if authorization != "Bearer t":
        raise HTTPException(401, "a bearer token is required")
    return {"principal": "alice"}


class HeaderAuth(Auth):
    """An ``Auth`` with a request check: its route is raw, stdio runs its dependency."""

    async def _check(self, scope: Any, suite: Suite) -> dict[str, Any]:
        return {"principal": "raw"}

    @property
    def request_check(self) -> Any:
        return self._check

    message_check = None

    @property
    def dependency(self) -> Any:
        return bearer


def app_with(router: Any, prefix: str = "/mcp") -> FastAPI:
    app = FastAPI()
    app.include_router(router, prefix=prefix)
    return app


def test_every_kind_of_route_is_found_with_the_dependency_stdio_runs() -> None:
    plain, raw, routed, custom = suite("plain"), suite("raw"), suite("routed"), suite("custom")
    assert mcp_of(plain) == [(plain, None)]
    assert mcp_of(mcp_router(suite=raw)) == [(raw, None)]
    assert mcp_of(app_with(mcp_router(suite=raw))) == [(raw, None)]  # the raw endpoint route
    assert mcp_of(app_with(mcp_router(suite=routed, auth=bearer))) == [(routed, bearer)]
    wrapped = DependencyAuth(bearer)
    assert mcp_of(app_with(mcp_router(suite=routed, auth=wrapped))) == [(routed, bearer)]
    router = mcp_router(suite=custom, auth=HeaderAuth())
    assert router.endpoint.authenticate is not None  # checked in the endpoint ...
    assert mcp_of(app_with(router)) == [(custom, bearer)]  # ... and by stdio, once


def test_mounts_hand_made_endpoints_and_several_suites() -> None:
    one, two, hand = suite("one"), suite("two"), suite("hand")
    inner = app_with(mcp_router(suite=one, auth=bearer))
    outer = FastAPI()
    outer.mount("/inner", inner)
    outer.include_router(mcp_router(suite=two), prefix="/two")
    outer.add_route("/hand", MCPEndpoint(hand), methods=["POST"])  # registered when made
    assert mcp_of(outer) == [(one, bearer), (two, None), (hand, None)]


def test_a_route_function_not_made_by_mcp_router_is_not_an_endpoint() -> None:
    app = FastAPI()

    @app.post("/mcp")
    async def look_alike() -> dict[str, Any]:  # a function with a suite is not an endpoint
        return {}

    look_alike.suite = suite()  # type: ignore[attr-defined]
    assert mcp_of(app) == []


async def test_hosted_runs_the_lifespan_and_the_dependency_once() -> None:
    served = suite()
    app = app_with(mcp_router(suite=served, auth=bearer))
    async with hosted(app, headers={"Authorization": "Bearer t"}) as found:
        assert found.suite is served and found.assigns == {"principal": "alice"}
    async with hosted(app, assigns={"principal": "me"}) as named:  # skips the dependency
        assert named.assigns == {"principal": "me"}
    with pytest.raises(AuthRequired, match="--header 'Authorization: Bearer TOKEN'"):
        async with hosted(app, headers={"Authorization": "Bearer wrong"}):
            pass


async def test_hosted_refuses_an_app_with_no_or_several_suites() -> None:
    empty = FastAPI()
    with pytest.raises(TypeError, match="serves no MCP Suite"):
        async with hosted(empty):
            pass
    two = app_with(mcp_router(suite=suite("a")), "/a")
    two.include_router(mcp_router(suite=suite("b")), prefix="/b")
    with pytest.raises(TypeError, match="serves 2 MCP Suite"):
        async with hosted(two):
            pass

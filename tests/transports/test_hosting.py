"""``transports.hosting``: the Suite behind a target (a Suite, a router, an app through the
registered app host, a host of one's own), the refusal that says what to give instead, and
``served``: a Suite as it is, an app's lifespan and auth around the block.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest
from fastapi import FastAPI

import genmcp.fastapi  # registers the FastAPI app host on import
from genmcp import Suite, mcp_router
from genmcp.context import AppContext
from genmcp.transports import hosting
from genmcp.transports.hosting import (
    HostedApp,
    carried_suite,
    host_apps,
    require_suite,
    served,
    suite_of,
)


def suite(name: str = "s") -> Suite:
    return Suite(server_name=name, server_version="1")


def test_the_suite_behind_a_suite_a_router_and_an_app() -> None:
    alone = suite()
    assert suite_of(alone) is alone
    router = genmcp.fastapi.mcp_router(suite=suite())
    assert suite_of(router) is router.suite
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    assert suite_of(app) is router.suite  # found by the FastAPI host, through the include
    assert suite_of(FastAPI()) is None and suite_of(object()) is None


class Holder:
    """A user's object that carries something as ``suite``."""

    def __init__(self, suite: object) -> None:
        self.suite = suite


def test_a_carried_suite_is_the_suite_itself_or_its_suite_attribute_no_routes_searched() -> None:
    alone = suite()
    router = mcp_router(suite=suite())
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    assert carried_suite(alone) is alone and carried_suite(router) is router.suite
    assert carried_suite(Holder(alone)) is alone  # any object carrying one, not only a router
    assert carried_suite(Holder("not a suite")) is None and carried_suite(object()) is None
    assert carried_suite(app) is None and suite_of(app) is router.suite  # the host searches


def test_require_suite_says_what_to_give_instead() -> None:
    router = mcp_router(suite=suite())
    assert require_suite(router) is router.suite
    with pytest.raises(TypeError, match="give a Suite, an MCPRouter, or an app that includes"):
        require_suite(FastAPI())


class Box:
    """A target no host but ``BoxHost`` knows."""

    def __init__(self, inside: Suite) -> None:
        self.inside = inside


class BoxHost:
    """An app host of one's own: finds the Suite in a Box, hosts nothing."""

    def suite_of(self, target: Any) -> Suite | None:
        return target.inside if isinstance(target, Box) else None

    def hosted(
        self,
        target: Any,
        *,
        headers: Mapping[str, str] | None = None,
        assigns: Mapping[str, Any] | None = None,
    ) -> contextlib.AbstractAsyncContextManager[HostedApp]:
        raise AssertionError("not asked here")


def test_a_registered_host_is_asked_once_for_what_it_knows() -> None:
    host, boxed = BoxHost(), suite("boxed")
    assert suite_of(Box(boxed)) is None
    host_apps(host)
    host_apps(host)  # registered once
    try:
        assert suite_of(Box(boxed)) is boxed
        assert [each for each in hosting._HOSTS if each is host] == [host]
    finally:
        hosting._HOSTS.remove(host)


async def test_a_suite_is_served_as_it_is_and_takes_no_headers() -> None:
    alone = suite()
    async with served(alone, {"assigns": {"principal": "me"}}) as (found, options):
        assert found is alone and options == {"assigns": {"principal": "me"}}
    with pytest.raises(TypeError, match="a Suite takes assigns="):
        async with served(alone, {"headers": {"Authorization": "Bearer t"}}):
            pass


async def test_an_app_is_served_inside_its_lifespan_with_its_assigns() -> None:
    seen: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        seen.append("start")
        yield
        seen.append("stop")

    router = mcp_router(suite=suite())
    app = FastAPI(lifespan=lifespan)
    app.include_router(router, prefix="/mcp")
    options: dict[str, Any] = {"assigns": {"principal": "me"}, "shutdown_grace_s": 1.0}
    async with served(app, options) as (found, kept):
        assert found is router.suite and seen == ["start"]
        assert kept["assigns"] == {"principal": "me"} and kept["shutdown_grace_s"] == 1.0
        assert isinstance(kept["context"](), AppContext)
    assert seen == ["start", "stop"]

"""``mcp_router(docs=...)`` and ``tenants_router(docs=...)``: the page's route, only when on.

Off (the default), the app's routes after start-up are exactly those of a router built
without the argument: nothing of the page is on the request path. On, the page is one more
route beside the endpoint, served without the endpoint's auth (the page holds nothing; its
calls carry the visitor's credentials), and flattened into the app with the endpoint.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI, HTTPException

from genmcp import Suite, Tenants, mcp_router, tenants_router
from genmcp.docsui import DOCS_ENV, DocsPage, page_bytes
from genmcp.fastapi.router import DOCS_ROUTE_NAME, ROUTE_NAME
from support.server import LiveServers


def route_names(app: FastAPI) -> list[tuple[str, str]]:
    return [(getattr(r, "path", ""), getattr(r, "name", "")) for r in app.router.routes]


def started(live: LiveServers, **options: Any) -> tuple[str, FastAPI]:
    app = FastAPI()
    app.include_router(mcp_router(server_name="s", server_version="1", **options), prefix="/mcp")
    return live(app), app


def test_off_by_default_the_routes_are_unchanged(
    live_server: LiveServers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(DOCS_ENV, raising=False)
    base, default = started(live_server)
    _, off = started(live_server, docs=False)
    _, on = started(live_server, docs=True)
    assert route_names(default) == route_names(off)
    assert len(route_names(on)) == len(route_names(off)) + 1
    assert ("/mcp/docs", DOCS_ROUTE_NAME) in route_names(on)
    assert not any(isinstance(getattr(r, "app", None), DocsPage) for r in default.router.routes)
    assert httpx.get(f"{base}/mcp/docs").status_code == 404


def test_on_the_page_is_flattened_beside_the_endpoint(live_server: LiveServers) -> None:
    base, app = started(live_server, docs=True)
    names = [name for _, name in route_names(app)]
    assert names.count(ROUTE_NAME) == 2  # /mcp and /mcp/: still the app's own routes
    assert httpx.get(f"{base}/mcp/docs").content == page_bytes()


def test_the_environment_turns_it_on_when_not_given(
    live_server: LiveServers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DOCS_ENV, "1")
    base, _ = started(live_server)
    assert httpx.get(f"{base}/mcp/docs").status_code == 200
    base, _ = started(live_server, docs=False)  # an explicit False wins
    assert httpx.get(f"{base}/mcp/docs").status_code == 404


def deny() -> None:
    raise HTTPException(401, "no")


def test_the_page_is_served_without_the_endpoints_auth(live_server: LiveServers) -> None:
    base, _ = started(live_server, docs=True, auth=deny)
    assert httpx.post(f"{base}/mcp", json={}).status_code == 401
    assert httpx.get(f"{base}/mcp/docs").content == page_bytes()


def test_each_tenant_has_the_page(live_server: LiveServers) -> None:
    tenants = Tenants(lambda tenant, **shared: Suite(server_name=tenant, server_version="1",
                                                     **shared), known={"acme"})  # fmt: skip
    app = FastAPI()
    app.include_router(tenants_router(tenants, docs=True))
    bare = FastAPI()
    bare.include_router(tenants_router(tenants))
    base, plain = live_server(app), live_server(bare)
    assert httpx.get(f"{base}/t/acme/mcp/docs").content == page_bytes()
    assert httpx.get(f"{plain}/t/acme/mcp/docs").status_code == 404

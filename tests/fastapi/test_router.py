"""``mcp_router`` (``fastapi/router.py``) and the ``HTTPOptions`` it takes.

The HTTP options and their defaults are defined once, in ``HTTPOptions``: ``mcp_router``'s
keywords and ``options=`` build the same endpoint, a bad value fails when the router is
built with the option's name, and the options given are the ones a real server enforces.
Without auth the endpoint is the route itself and calls no auth hook.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from typing import Any, Final

import httpx
import pytest
from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute
from starlette.routing import Route

from genmcp import HTTPOptions, Suite, mcp_router
from genmcp.fastapi import HTTPOptions as FastAPIHTTPOptions
from genmcp.fastapi.compat import included
from genmcp.fastapi.endpoint import MCPEndpoint
from genmcp.transports.http.options import OPTION_NAMES
from support.oauth import VERSION, call_message
from support.server import LiveServers

OPTIONS = {
    "allowed_hosts",
    "allowed_origins",
    "max_body_bytes",
    "body_timeout_s",
    "keepalive_s",
    "send_timeout_s",
    "drain_s",
    "shutdown_grace_s",
}

SOME: dict[str, Any] = {
    "allowed_hosts": ["MCP.Example.com", "::1"],
    "allowed_origins": ["https://app.example"],
    "max_body_bytes": 2048,
    "body_timeout_s": 3.5,
    "keepalive_s": 0,
    "send_timeout_s": None,
    "drain_s": 4.0,
    "shutdown_grace_s": 0.25,
}


def suite() -> Suite:
    return Suite(server_name="s", server_version="1")


def test_the_options_and_their_defaults_are_defined_once() -> None:
    assert OPTION_NAMES == OPTIONS == {field.name for field in dataclasses.fields(HTTPOptions)}
    assert FastAPIHTTPOptions is HTTPOptions
    assert not OPTIONS & set(inspect.signature(mcp_router).parameters)  # not written again
    assert not OPTIONS & set(inspect.signature(MCPEndpoint).parameters)
    defaults = HTTPOptions()
    assert mcp_router(suite=suite()).endpoint.options == defaults
    assert MCPEndpoint(suite()).options == defaults


def test_keywords_and_options_build_the_same_endpoint() -> None:
    by_keywords = mcp_router(suite=suite(), **SOME).endpoint.options
    by_object = mcp_router(suite=suite(), options=HTTPOptions(**SOME)).endpoint.options
    assert by_keywords == by_object == HTTPOptions(**SOME)
    one = mcp_router(server_name="a", server_version="1", keepalive_s=5, page_size=7)
    assert one.endpoint.options == HTTPOptions(keepalive_s=5)  # the rest went to the Suite
    assert one.suite.page_size == 7


def test_options_and_keywords_together_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"not both \(keepalive_s, max_body_bytes\)"):
        mcp_router(suite=suite(), options=HTTPOptions(), keepalive_s=1, max_body_bytes=9)
    with pytest.raises(TypeError, match="options= takes an HTTPOptions"):
        mcp_router(suite=suite(), options={"keepalive_s": 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="give tools and Suite options to the Suite"):
        mcp_router(suite=suite(), keepalive_s=1, page_size=3)  # HTTP options are fine here
    with pytest.raises(TypeError, match="keepalive"):  # a misspelt option reaches Suite
        mcp_router(server_name="a", server_version="1", keepalive=1)


@pytest.mark.parametrize(
    ("option", "value", "error", "says"),
    [
        ("allowed_hosts", ["localhost:8000"], ValueError, "without a port"),
        ("max_body_bytes", 0, ValueError, "max_body_bytes must be at least 1"),
        ("keepalive_s", "15", TypeError, "keepalive_s must be a number of seconds"),
    ],
)
def test_a_bad_keyword_fails_when_the_router_is_built_naming_the_option(
    option: str, value: Any, error: type[Exception], says: str
) -> None:
    """Every check is ``HTTPOptions``'s (tests/transports/http/test_options.py): the keywords
    reach it unchanged."""
    with pytest.raises(error, match=says):
        mcp_router(suite=suite(), **{option: value})


def test_without_auth_the_endpoint_is_the_route_and_calls_no_hook() -> None:
    router = mcp_router(suite=suite(), path="/x")
    assert len(router.routes) == 2  # "/x" and "/x/": Starlette routes, no API route
    assert all(isinstance(r, Route) and not isinstance(r, APIRoute) for r in router.routes)
    assert all(route.endpoint is router.endpoint for route in router.routes)  # type: ignore[attr-defined]
    endpoint = router.endpoint
    assert (endpoint.auth, endpoint.authenticate, endpoint.authorize) == (None, None, None)
    assert router.auth is None


def tools_list() -> tuple[dict[str, str], bytes]:
    """The headers and body of a 2026-07-28 ``tools/list`` request."""
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": VERSION,
        "mcp-method": "tools/list",
    }
    meta = call_message("any", {}, 1)["params"]["_meta"]
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    return headers, json.dumps(body).encode()


@pytest.mark.parametrize("given", ["keywords", "options"])
async def test_a_real_server_enforces_the_options_given(
    given: str, live_server: LiveServers
) -> None:
    chosen: dict[str, Any] = {"max_body_bytes": 300, "allowed_hosts": ["127.0.0.1"]}
    options = chosen if given == "keywords" else {"options": HTTPOptions(**chosen)}
    app = FastAPI()
    app.include_router(mcp_router(suite=suite(), **options), prefix="/mcp")
    url = live_server(app) + "/mcp"
    headers, ping = tools_list()
    async with httpx.AsyncClient(timeout=10) as client:
        small = await client.post(url, content=ping, headers=headers)
        large = await client.post(url, content=ping + b" " * 300, headers=headers)
        elsewhere = await client.post(url, content=ping, headers={**headers, "host": "localhost"})
    assert small.status_code == 200 and small.json()["result"]["tools"] == [], small.text
    assert large.status_code == 413 and "300 bytes" in large.json()["error"]["message"]
    assert elsewhere.status_code == 421  # localhost is a default host, not one given here


MCP_HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": VERSION,
    "mcp-method": "tools/list",
}


def _list_body() -> bytes:
    meta = call_message("any", {}, 1)["params"]["_meta"]
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                       "params": {"_meta": meta}}).encode()  # fmt: skip


def _lazy_includes(app: FastAPI) -> list[Any]:
    return [r for r in app.routes if included(r) is not None]


def _includes_lazily() -> bool:
    """FastAPI 0.16x keeps an include lazy; 0.115 and 0.135 copy the router's routes."""
    app = FastAPI()
    app.include_router(mcp_router(suite=suite()), prefix="/mcp")
    return bool(_lazy_includes(app))


LAZY: Final = _includes_lazily()
_INCLUDE_PARAMETERS: Final = inspect.signature(FastAPI.include_router).parameters
BODY_LIMIT_ON_INCLUDE: Final = "max_body_size" in _INCLUDE_PARAMETERS


@pytest.mark.parametrize("catch_all", [False, True], ids=["plain", "catch-all"])
async def test_a_raw_router_becomes_the_apps_own_routes_at_start_up_precedence_kept(
    catch_all: bool, live_server: LiveServers
) -> None:
    """At start-up the lazy include of a raw router is replaced by its two routes (FastAPI
    would match them twice a request), moved ahead of plain routes that cannot match their
    paths (FastAPI's docs, ``/health``) but not of one that can (``/{page}``): every
    request is answered by the route that answered it before."""
    app = FastAPI()

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"ok": "health"}

    if catch_all:

        @app.get("/{page}")
        def page(page: str) -> dict[str, str]:
            return {"page": page}

    router = mcp_router(suite=suite())
    app.include_router(router, prefix="/mcp")

    @app.post("/mcp")
    def shadowed() -> dict[str, str]:  # after the include: never reached, then or now
        return {"ok": "shadowed"}

    assert len(_lazy_includes(app)) == LAZY  # FastAPI's lazy include, before start-up
    base = live_server(app)
    assert _lazy_includes(app) == []
    paths = [getattr(r, "path", None) for r in app.routes]
    ahead = ["/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc", "/health", "/{page}"]
    if catch_all or not LAZY:  # behind what can match them; or copied where included
        first = [*ahead[: None if catch_all else -1], "/mcp", "/mcp/"]
    else:
        first = ["/mcp", "/mcp/", *ahead[:-1]]
    assert paths[: len(first)] == first, paths
    flat = [r for r in app.routes if getattr(r, "endpoint", None) is router.endpoint]
    assert len(flat) == 2 and not any(isinstance(r, APIRoute) for r in flat)
    assert app.url_path_for(flat[0].name) == "/mcp"  # type: ignore[attr-defined]
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        for at in ("/mcp", "/mcp/"):
            listed = await http.post(at, content=_list_body(), headers=MCP_HEADERS)
            assert listed.status_code == 200 and listed.json()["result"]["tools"] == [], at
        got = await http.get("/mcp")  # the catch-all, declared first, wins a GET
        assert got.json() == {"page": "mcp"} if catch_all else got.status_code == 400
        assert (await http.get("/health")).json() == {"ok": "health"}
        assert (await http.get("/mcp/sse")).status_code == 404  # the wrong-path help still
        assert (await http.get("/openapi.json")).status_code == 200
    live_server.last.stop()
    live_server(app)  # a second start-up finds the routes in place: nothing is added twice
    assert [getattr(r, "path", None) for r in app.routes] == paths


@pytest.mark.parametrize("shape", ["auth", "max_body_size", "nested"])
async def test_an_include_the_app_cannot_take_over_stays_an_include_and_serves(
    shape: str, live_server: LiveServers
) -> None:
    """An API route (an auth dependency), an include's own ``max_body_size`` and a router
    nested in another are left to FastAPI: the include stays, and still serves MCP."""
    if shape == "max_body_size" and not BODY_LIMIT_ON_INCLUDE:
        pytest.skip("this FastAPI's include_router takes no max_body_size")
    app = FastAPI()
    if shape == "auth":
        app.include_router(mcp_router(suite=suite(), auth=lambda: {"p": 1}), prefix="/mcp")
    elif shape == "max_body_size":
        app.include_router(mcp_router(suite=suite()), prefix="/mcp", max_body_size=400)
    else:
        outer = APIRouter()
        outer.include_router(mcp_router(suite=suite()), prefix="/mcp")
        app.include_router(outer, prefix="/api")
    base = live_server(app)
    assert len(_lazy_includes(app)) == LAZY
    url = base + ("/api/mcp" if shape == "nested" else "/mcp")
    async with httpx.AsyncClient(timeout=10) as http:
        listed = await http.post(url, content=_list_body(), headers=MCP_HEADERS)
        assert listed.status_code == 200 and listed.json()["result"]["tools"] == [], listed.text
        if shape == "max_body_size":  # FastAPI's own limit, as before
            large = await http.post(url, content=_list_body() + b" " * 400, headers=MCP_HEADERS)
            assert large.status_code == 413


async def test_the_endpoint_answers_behind_a_root_path_a_mount_and_a_path_parameter(
    live_server: LiveServers,
) -> None:
    # its route compares the path when there is no root_path (the hot path); each of these
    # takes Starlette's own match instead, and answers as before
    plain = FastAPI()
    plain.include_router(mcp_router(suite=suite()), prefix="/mcp")
    tenants = FastAPI()
    tenants.include_router(mcp_router(suite=suite()), prefix="/t/{tenant}/mcp")
    inner, outer = FastAPI(), FastAPI()
    inner.include_router(mcp_router(suite=suite()), prefix="/mcp")
    outer.mount("/api", inner)
    urls = [
        live_server(plain) + "/mcp",
        live_server(plain, root_path="/base") + "/mcp",
        live_server(tenants) + "/t/acme/mcp",
        live_server(outer) + "/api/mcp",
    ]
    headers, listing = tools_list()
    async with httpx.AsyncClient(timeout=10) as client:
        for url in urls:
            answer = await client.post(url, content=listing, headers=headers)
            assert (url, answer.status_code, answer.json()["result"]["tools"]) == (url, 200, [])
            elsewhere = await client.post(url + "x", content=listing, headers=headers)
            trailing = await client.post(url + "/", content=listing, headers=headers)
            assert (elsewhere.status_code, trailing.status_code) == (404, 200)

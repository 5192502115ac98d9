"""RouteTool over real uvicorn servers: the caller wherever the tools are served, ASGI paths,
header arguments no HTTP client could send.

``route_tools(app)`` mixed into an ordinary ``mcp_router(auth=...)`` (no wrapper) must hand
the route the caller's ``Authorization`` and the app's lifespan state, in both eras, as
``routes_router`` does; ``routes_router`` takes ``suite=`` and ``legacy=`` as ``mcp_router``
does. Path arguments arrive decoded in ``scope["path"]`` and encoded in ``raw_path``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

import pytest
from fastapi import Depends, FastAPI, Header, HTTPException, Request

from genmcp import Suite, mcp_router
from genmcp.routes_as_tools import route_tools, routes_router
from genmcp.sessions import LegacyServer
from genmcp.testing import MCPTestClient
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServers

TOKEN = {"Authorization": "Bearer t1"}


def make_app() -> FastAPI:
    """An app with a lifespan-made "pool" and routes that report what they were given."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        yield {"db": "the-pool"}

    app = FastAPI(lifespan=lifespan)

    @app.get("/echo/{name}", operation_id="echo")
    async def echo(
        request: Request, name: str, x_tag: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        return {
            "authorization": request.headers.get("authorization"),
            "db": getattr(request.state, "db", None),
            "name": name,
            "path": request.scope["path"],
            "raw_path": request.scope["raw_path"].decode("ascii"),
            "tag": x_tag,
        }

    @app.get("/files/{rest:path}", operation_id="file")
    async def file(request: Request, rest: str) -> dict[str, Any]:
        return {"rest": rest, "raw_path": request.scope["raw_path"].decode("ascii")}

    return app


def require_bearer(authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """The MCP router's own auth: a plain FastAPI dependency."""
    if authorization != "Bearer t1":
        raise HTTPException(401, "Bearer t1 required")
    return {"principal": "t1"}


@pytest.fixture(scope="module")
def mixed(live: LiveServers) -> str:
    """``route_tools`` mixed into ``mcp_router(auth=...)``: no forwarding wrapper."""
    app = make_app()
    tools = route_tools(app, headers=True)
    app.include_router(
        mcp_router(server_name="mixed", server_version="1", tools=tools, auth=require_bearer),
        prefix="/mcp",
    )
    return live(app)


async def modern_call(base: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    async with ModernClient(base, headers=TOKEN) as mcp:
        reply = await mcp.request("tools/call", {"name": name, "arguments": arguments})
    assert reply.status == 200, reply
    result: dict[str, Any] = reply.result
    return result


async def legacy_call(base: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    async with LegacyClient(base) as mcp:
        mcp.http.headers.update(TOKEN)
        await mcp.open()
        reply = await mcp.request("tools/call", {"name": name, "arguments": arguments})
    assert reply.status == 200, reply
    result: dict[str, Any] = reply.result
    return result


def answer(result: dict[str, Any]) -> Any:
    assert result.get("isError") is not True, result
    return json.loads(result["content"][0]["text"])


@pytest.mark.parametrize("call", [modern_call, legacy_call], ids=["2026", "2025"])
async def test_mixed_route_tools_get_the_caller_and_the_lifespan_state(
    mixed: str, call: Any
) -> None:
    seen = answer(await call(mixed, "echo", {"name": "x"}))
    assert (seen["authorization"], seen["db"]) == ("Bearer t1", "the-pool")


@pytest.mark.parametrize(
    ("name", "path", "raw_path"),
    [
        ("josé", "/echo/josé", "/echo/jos%C3%A9"),
        ("a%20b", "/echo/a%20b", "/echo/a%2520b"),
        ("a b?c#d", "/echo/a b?c#d", "/echo/a%20b%3Fc%23d"),
    ],
)
async def test_path_arguments_arrive_decoded_with_an_encoded_raw_path(
    mixed: str, name: str, path: str, raw_path: str
) -> None:
    seen = answer(await modern_call(mixed, "echo", {"name": name}))
    assert (seen["name"], seen["path"], seen["raw_path"]) == (name, path, raw_path)


async def test_a_path_convertor_keeps_its_slashes(mixed: str) -> None:
    seen = answer(await modern_call(mixed, "file", {"rest": "a/é b.txt"}))
    assert seen == {"rest": "a/é b.txt", "raw_path": "/files/a/%C3%A9%20b.txt"}


@pytest.mark.parametrize(
    ("arguments", "named", "why"),
    [
        ({"name": "x", "x-tag": "t1\r\nX-Injected: 1"}, "x-tag", "CR, LF or NUL"),
        ({"name": "x", "x-tag": "t1\nX-Injected: 1"}, "x-tag", "CR, LF or NUL"),
        ({"name": "x", "x-tag": "a\x00b"}, "x-tag", "CR, LF or NUL"),
        ({"name": "x", "x-tag": "日本"}, "x-tag", "Latin-1"),
        ({"name": "a/b"}, "name", "'/'"),
    ],
)
async def test_arguments_no_http_client_could_send_are_refused_by_name(
    mixed: str, arguments: dict[str, Any], named: str, why: str
) -> None:
    result = await modern_call(mixed, "echo", arguments)
    assert result.get("isError") is True, result
    report = json.loads(result["content"][0]["text"])
    assert named in report["detail"] and why in report["detail"], report
    assert list(report["errors"]) == [named]


async def test_a_plain_header_argument_reaches_the_route(mixed: str) -> None:
    seen = answer(await modern_call(mixed, "echo", {"name": "x", "x-tag": "café"}))
    assert seen["tag"] == "café"


async def test_routes_router_takes_a_suite_and_a_legacy_server(live: LiveServers) -> None:
    app = make_app()
    suite = Suite(server_name="own", server_version="1")
    legacy = LegacyServer(suite, session_max_age_s=60)
    router = routes_router(
        app, suite=suite, legacy=legacy, auth=require_bearer, operations=["echo"]
    )
    assert router.suite is suite and router.endpoint.legacy is legacy
    app.include_router(router, prefix="/mcp")
    base = live(app)
    for call in (modern_call, legacy_call):
        seen = answer(await call(base, "echo", {"name": "y"}))
        assert (seen["authorization"], seen["db"], seen["name"]) == ("Bearer t1", "the-pool", "y")
    with pytest.raises(TypeError, match="give tools to the Suite"):
        routes_router(
            make_app(), suite=Suite(server_name="s", server_version="1"), tools=route_tools(app)
        )


ROUTE_DEPENDENCY: list[tuple[str, Any]] = []


async def _route_session() -> AsyncIterator[str]:
    ROUTE_DEPENDENCY.append(("setup", asyncio.current_task()))
    try:
        yield "session"
    except HTTPException as exc:
        ROUTE_DEPENDENCY.append(("caught", exc.status_code))
        raise
    finally:
        ROUTE_DEPENDENCY.append(("teardown", asyncio.current_task()))


@pytest.mark.parametrize("version", ["2026-07-28", "2025-11-25"])
async def test_a_routes_yield_dependency_runs_in_the_calls_task(version: str) -> None:
    """Issue 45: the route runs in-process in the call's task, its yield dependency too."""
    app = FastAPI()

    @app.get("/stock/{item}", operation_id="stock")
    async def stock(item: str, session: Annotated[str, Depends(_route_session)]) -> str:
        if item == "gone":
            raise HTTPException(404, "no such item")
        return f"{item} via {session}"

    app.include_router(
        mcp_router(server_name="r", server_version="1", tools=route_tools(app)), prefix="/mcp"
    )
    ROUTE_DEPENDENCY.clear()
    async with MCPTestClient(app, protocol_version=version) as client:
        saw = await client.call_tool("stock", {"item": "saw"})
        assert json.loads(saw.text) == {"result": "saw via session"}
        assert (await client.call_tool("stock", {"item": "gone"})).is_error
    setups = [task for kind, task in ROUTE_DEPENDENCY if kind == "setup"]
    teardowns = [task for kind, task in ROUTE_DEPENDENCY if kind == "teardown"]
    assert len(setups) == 2 and setups == teardowns
    assert ("caught", 404) in ROUTE_DEPENDENCY

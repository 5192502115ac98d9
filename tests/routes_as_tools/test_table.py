"""``routes_as_tools.table`` through ``route_tools``: an app built of routers; includes (nested)
with their prefix, tags and dependencies; operation ids as ``app.openapi()`` shows them; mounts.

FastAPI 0.16x keeps an include lazy (one route standing for the included router); earlier
releases copy the routes in. Either way the tools are the operations ``app.openapi()``
lists, and a call goes through the app, so the routers' dependencies run.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException, Request
from fastapi.routing import APIRoute
from pydantic import BaseModel

from genmcp.routes_as_tools import BuildError, RouteTool, route_tools, routes_router
from genmcp.testing import MCPTestClient

BLUE = {"X-Team": "blue"}


class Ticket(BaseModel):
    id: int
    path: str


class NewTicket(BaseModel):
    title: str


def team(x_team: Annotated[str | None, Header()] = None) -> str:
    """The ``api`` router's dependency: every route below it is team blue's only."""
    if x_team != "blue":
        raise HTTPException(403, "team blue only")
    return x_team


def by_name(route: APIRoute) -> str:
    return f"reports_{route.name}"


async def audit(request: Request) -> None:
    """The include's dependency (``app.include_router(api, dependencies=...)``)."""
    request.app.state.audited.append(request.url.path)


def make_app() -> FastAPI:
    """``/api`` (router dependency ``team``) includes ``/tickets`` (tags); a mounted app."""
    tickets = APIRouter(prefix="/tickets", tags=["tickets"])

    @tickets.get("/{tid}", operation_id="get_ticket", tags=["read"])
    async def get_ticket(tid: int, request: Request) -> Ticket:
        """Reads one ticket."""
        return Ticket(id=tid, path=request.url.path)

    @tickets.post("", status_code=201)  # no operation id: FastAPI makes one from the path
    async def open_ticket(new: NewTicket, request: Request) -> Ticket:
        return Ticket(id=1, path=request.url.path)

    @tickets.get("/{tid}/files/{name:path}", operation_id="ticket_file")
    async def ticket_file(tid: int, name: str) -> dict[str, str]:
        return {"name": name}

    @tickets.get("/hidden", operation_id="hidden", include_in_schema=False)
    async def hidden() -> str:
        return "hidden"

    api = APIRouter(dependencies=[Depends(team)])

    @api.get("/ping", operation_id="ping")
    async def ping() -> str:
        return "pong"

    api.include_router(tickets, tags=["support"])
    reports = APIRouter(prefix="/reports", generate_unique_id_function=by_name)

    @reports.get("/weekly")
    async def weekly() -> str:
        return "weekly"

    internal = APIRouter(prefix="/internal")

    @internal.get("/stats", operation_id="stats")
    async def stats() -> str:
        return "stats"

    app = FastAPI()
    app.state.audited = []
    app.include_router(api, prefix="/api", dependencies=[Depends(audit)])
    app.include_router(reports)
    app.include_router(internal, include_in_schema=False)
    mounted = FastAPI()

    @mounted.get("/status", operation_id="legacy_status")
    async def status() -> str:
        return "up"

    app.mount("/legacy", mounted)
    return app


APP = make_app()
OPENAPI = APP.openapi()


def names(tools: list[type[RouteTool]]) -> list[str]:
    return sorted(tool().option("name") for tool in tools)


def operations() -> dict[str, tuple[str, str, list[str]]]:
    """operation id -> (METHOD, path, tags) as ``app.openapi()`` lists them."""
    return {
        operation["operationId"]: (method.upper(), path, operation.get("tags", []))
        for path, item in OPENAPI["paths"].items()
        for method, operation in item.items()
    }


def test_every_included_operation_is_a_tool_named_as_app_openapi_names_it() -> None:
    listed = operations()
    assert names(route_tools(APP)) == sorted(listed)
    assert sorted(listed) == ["get_ticket", "open_ticket_api_tickets_post", "ping",
                              "reports_weekly", "ticket_file"]
    assert listed["get_ticket"] == ("GET", "/api/tickets/{tid}", ["support", "tickets", "read"])
    for tool in route_tools(APP):
        method, path, _ = listed[tool().option("name")]
        assert (tool.route.method, tool.route.path.replace(":path", "")) == (method, path)


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        ({"tags": ["tickets"]}, ["get_ticket", "open_ticket_api_tickets_post", "ticket_file"]),
        ({"tags": ["support"], "methods": ["GET"]}, ["get_ticket", "ticket_file"]),
        ({"tags": ["read"]}, ["get_ticket"]),
        ({"paths": ["/api/*"], "exclude_tags": ["support"]}, ["ping"]),
        ({"paths": ["/api/tickets/*"]}, ["get_ticket", "ticket_file"]),
        ({"operations": ["open_ticket_api_tickets_post"]}, ["open_ticket_api_tickets_post"]),
    ],
)
def test_selection_sees_the_include_prefix_and_tags(
    selection: dict[str, Any], expected: list[str]
) -> None:
    assert names(route_tools(APP, **selection)) == expected


@pytest.mark.parametrize("hidden", ["hidden", "stats"], ids=["route", "include"])
def test_a_route_left_out_of_the_schema_is_not_a_tool(hidden: str) -> None:
    with pytest.raises(BuildError, match=rf"\['{hidden}'\]"):
        route_tools(APP, operations=[hidden])


def generated(route: APIRoute) -> str:
    return f"gen_{route.name}_{sorted(route.methods)[0].lower()}"


@pytest.mark.parametrize("level", ["app", "router", "include"])
def test_generated_operation_ids_are_those_of_app_openapi(level: str) -> None:
    app = FastAPI(**({"generate_unique_id_function": generated} if level == "app" else {}))
    router = APIRouter(
        prefix="/r", **({"generate_unique_id_function": generated} if level == "router" else {})
    )

    @router.get("/one/{x}")
    async def one(x: int) -> int:
        return x

    @router.post("/two")
    async def two() -> int:
        return 2

    outer = APIRouter()
    extra = {"generate_unique_id_function": generated} if level == "include" else {}
    outer.include_router(router, prefix="/in", **extra)
    app.include_router(outer, prefix="/out")
    ids = {op["operationId"] for item in app.openapi()["paths"].values() for op in item.values()}
    assert names(route_tools(app)) == sorted(ids) == ["gen_one_get", "gen_two_post"]


def served() -> FastAPI:
    app = make_app()
    app.include_router(
        routes_router(app, server_name="tickets", server_version="1.0", tags=["tickets"],
                      forward_headers=["x-team"]),
        prefix="/mcp",
    )
    return app


@pytest.mark.parametrize("version", ["2026-07-28", "2025-11-25"])
async def test_a_call_runs_the_include_prefix_and_the_router_dependency(version: str) -> None:
    app = served()
    async with MCPTestClient(app, headers=BLUE, protocol_version=version) as client:
        read = await client.call_tool("get_ticket", {"tid": 7})
        opened = await client.call_tool("open_ticket_api_tickets_post", {"title": "help"})
        file = await client.call_tool("ticket_file", {"tid": 7, "name": "logs/a.txt"})
    assert read.result["structuredContent"] == {"id": 7, "path": "/api/tickets/7"}
    assert opened.result["structuredContent"] == {"id": 1, "path": "/api/tickets"}
    assert file.result["structuredContent"] == {"name": "logs/a.txt"}
    async with MCPTestClient(app, headers={"X-Team": "red"}, protocol_version=version) as client:
        refused = await client.call_tool("get_ticket", {"tid": 7})
    assert refused.is_error
    assert json.loads(refused.content[0]["text"]) == {"status": 403, "detail": "team blue only"}
    audited = ["/api/tickets/7", "/api/tickets", "/api/tickets/7/files/logs/a.txt"]
    assert app.state.audited == [*audited, "/api/tickets/7"]  # the include's dependency ran


def test_an_id_in_a_mounted_app_says_route_tools_does_not_enter_it() -> None:
    with pytest.raises(BuildError) as raised:
        route_tools(APP, operations=["legacy_status"])
    message = str(raised.value)
    assert "'legacy_status' is GET /legacy/status (legacy_status) in the app mounted at " \
           "/legacy, which route_tools does not enter" in message
    assert "call route_tools(sub_app, ...) on that mounted app" in message
    with pytest.raises(BuildError, match=r"path pattern '/legacy/\*'.*mounted at /legacy"):
        route_tools(APP, paths=["/legacy/*"])
    assert names(route_tools(APP, paths=["/nowhere/*"])) == []


def test_route_tools_on_the_mounted_app_itself_serves_its_routes() -> None:
    [mount] = [route for route in APP.routes if getattr(route, "path", "") == "/legacy"]
    assert names(route_tools(mount.app)) == ["legacy_status"]  # type: ignore[attr-defined]


def test_an_unknown_id_lists_the_ids_found_and_the_closest() -> None:
    with pytest.raises(BuildError) as raised:
        route_tools(APP, operations=["get_tiket", "zzz"])
    assert str(raised.value) == (
        "no selected route has the operation id(s) ['get_tiket', 'zzz']; 'get_tiket': did you "
        "mean 'get_ticket'?; 'zzz': none is close; the app's operation ids: ping, get_ticket, "
        "open_ticket_api_tickets_post, ticket_file, reports_weekly"
    )


def test_the_list_of_ids_found_is_bounded() -> None:
    app = FastAPI()
    router = APIRouter(prefix="/many")
    for index in range(25):
        router.add_api_route(f"/{index}", ping_of(index), operation_id=f"op_{index:02}")
    app.include_router(router)
    with pytest.raises(BuildError) as raised:
        route_tools(app, operations=["op_250"])
    message = str(raised.value)
    assert "did you mean 'op_25'?" not in message and "'op_250': did you mean 'op_" in message
    assert message.endswith("op_00, op_01, op_02, op_03, op_04, op_05, op_06, op_07, op_08, "
                            "op_09, op_10, op_11, op_12, op_13, op_14, op_15, op_16, op_17, "
                            "op_18, op_19 and 5 more")


def ping_of(index: int) -> Any:
    async def ping() -> int:
        return index

    return ping

"""Routes as tools over a real uvicorn server: both eras, the routes' own auth and sessions.

The shop app (``support.shop``) runs with ``debug=True`` so a crash would render its
traceback into the 500 body: the tool result must still not carry it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from genmcp.routes_as_tools import routes_router
from support import shop
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServers


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, shop.Database]]:
    app, db = shop.make_app(debug=True)
    app.include_router(
        routes_router(app, server_name="shop", server_version="1.0",
                      exclude_tags=["files"], headers=True),
        prefix="/mcp",
    )
    live = LiveServers()
    try:
        yield live(app), db
    finally:
        live.stop_all()


@pytest.fixture
def base(served: tuple[str, shop.Database]) -> str:
    return served[0]


@pytest.fixture
def db(served: tuple[str, shop.Database]) -> shop.Database:
    return served[1]


def client(base: str, headers: dict[str, str] | None = None) -> ModernClient:
    return ModernClient(base, headers=headers)


async def call(base: str, name: str, arguments: dict[str, Any],
               headers: dict[str, str] | None = shop.ALICE) -> dict[str, Any]:
    async with client(base, headers) as mcp:
        reply = await mcp.request("tools/call", {"name": name, "arguments": arguments})
    assert reply.status == 200, reply
    result: dict[str, Any] = reply.result
    return result


def report(result: dict[str, Any]) -> Any:
    assert result.get("isError") is True, result
    return json.loads(result["content"][0]["text"])


NEW = {"name": "lamp", "color": "red", "dimensions": {"width_cm": 20, "height_cm": 45},
       "tags": ["light"]}


async def test_the_listing_describes_each_route(base: str) -> None:
    async with client(base, shop.ALICE) as mcp:
        tools = {t["name"]: t for t in (await mcp.request("tools/list", {})).result["tools"]}
    assert sorted(tools) == ["crash", "create_product", "delete_product", "get_product",
                             "list_products", "maintenance", "whoami"]
    create = tools["create_product"]
    assert create["description"] == "Adds a product."
    assert create["annotations"] == {"readOnlyHint": False, "idempotentHint": False}
    schema = create["inputSchema"]
    assert schema["required"] == ["name", "color"]
    assert schema["properties"]["color"]["enum"] == ["red", "green"]  # enum ref inlined
    dimensions = schema["properties"]["dimensions"]["anyOf"][0]
    assert dimensions["required"] == ["width_cm", "height_cm"]  # nested model inlined
    assert "$ref" not in json.dumps(tools) and "$defs" not in json.dumps(tools)
    assert create["outputSchema"]["required"] == ["name", "color", "id", "owner", "session"]
    assert tools["get_product"]["title"] == "Read a product"
    assert tools["get_product"]["annotations"]["readOnlyHint"] is True
    assert tools["delete_product"]["annotations"]["destructiveHint"] is True
    listing = tools["list_products"]
    assert listing["outputSchema"]["properties"]["result"]["type"] == "array"  # wrapped
    assert listing["inputSchema"]["properties"]["limit"]["maximum"] == 50
    assert listing["inputSchema"]["properties"]["tag"]["description"] == "Any of these tags"
    assert "x-tenant" in tools["whoami"]["inputSchema"]["properties"]  # headers=True
    assert "authorization" not in tools["whoami"]["inputSchema"]["properties"]


async def test_create_then_read_runs_the_routes_auth_and_session(
    base: str, db: shop.Database
) -> None:
    created = await call(base, "create_product", NEW)
    assert created.get("isError") is None, created
    product = created["structuredContent"]
    assert (product["owner"], product["dimensions"]["height_cm"]) == ("alice", 45)
    read = await call(base, "get_product", {"product_id": product["id"]}, shop.BOB)
    assert read["structuredContent"]["name"] == "lamp"
    assert read["structuredContent"]["session"] != product["session"]  # a session per call
    assert db.open_now == set()  # every yield dependency ran its cleanup


async def test_query_lists_and_enums_reach_the_route(base: str) -> None:
    await call(base, "create_product", {**NEW, "name": "chair", "color": "green",
                                         "tags": ["wood"]})
    found = await call(base, "list_products", {"color": "green", "tag": ["wood", "x"],
                                               "limit": 5})
    names = [p["name"] for p in found["structuredContent"]["result"]]
    assert "chair" in names and "lamp" not in names


async def test_no_token_is_the_routes_401(base: str) -> None:
    result = await call(base, "get_product", {"product_id": 1}, headers=None)
    assert report(result) == {"status": 401, "detail": "Not authenticated"}


async def test_a_reader_cannot_write_403(base: str) -> None:
    result = await call(base, "create_product", NEW, shop.BOB)
    assert report(result) == {"status": 403, "detail": "The write scope is required"}


async def test_missing_is_404_with_the_routes_detail(base: str) -> None:
    result = await call(base, "get_product", {"product_id": 999_999})
    assert report(result) == {"status": 404, "detail": "No product 999999"}


async def test_fastapi_validation_errors_are_listed_per_argument(base: str) -> None:
    result = await call(base, "create_product", {**NEW, "name": "LOUD"})
    found = report(result)
    assert found["status"] == 422
    assert found["errors"] == {"name": ["Value error, name must not be all capitals"]}
    assert found["detail"][0]["loc"] == ["body", "name"]


async def test_schema_violations_never_reach_the_route(base: str, db: shop.Database) -> None:
    before = db.opened
    result = await call(base, "create_product", {**NEW, "color": "blue", "extra": 1})
    assert result["isError"] is True and "create_product" in result["content"][0]["text"]
    assert db.opened == before


async def test_a_crash_is_a_500_without_its_traceback(
    base: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("ERROR", logger="genmcp.routes"):
        result = await call(base, "crash", {})
    assert report(result) == {"status": 500, "detail": "Internal Server Error"}
    assert "secret-internal-detail" not in json.dumps(result)
    assert any("secret-internal-detail" in r.exc_text for r in caplog.records if r.exc_text)


async def test_a_deliberate_503_keeps_its_detail(base: str) -> None:
    result = await call(base, "maintenance", {})
    assert report(result) == {"status": 503, "detail": "Down for maintenance"}


async def test_delete_answers_204_as_text(base: str) -> None:
    created = await call(base, "create_product", {**NEW, "name": "bin"})
    pid = created["structuredContent"]["id"]
    deleted = await call(base, "delete_product", {"product_id": pid})
    assert deleted["content"] == [{"type": "text", "text": "204 No Content"}]
    again = await call(base, "delete_product", {"product_id": pid})
    assert report(again)["status"] == 404


async def test_header_argument_and_lifespan_state_reach_the_route(base: str) -> None:
    result = await call(base, "whoami", {"x-tenant": "acme"}, shop.BOB)
    assert result["structuredContent"] == {"user": "bob", "tenant": "acme", "shop": "the test shop"}


async def test_concurrent_calls_get_their_own_sessions(base: str, db: shop.Database) -> None:
    created = await call(base, "create_product", {**NEW, "name": "desk"})
    pid = created["structuredContent"]["id"]
    results = await asyncio.gather(
        *(call(base, "get_product", {"product_id": pid}) for _ in range(8))
    )
    sessions = {r["structuredContent"]["session"] for r in results}
    assert len(sessions) == 8
    assert db.open_now == set()


async def test_the_legacy_era_calls_the_same_routes(base: str) -> None:
    async with LegacyClient(base, version="2025-06-18") as legacy:
        legacy.http.headers["Authorization"] = shop.ALICE["Authorization"]
        await legacy.open()
        reply = await legacy.request("tools/call", {"name": "whoami", "arguments": {}})
        assert json.loads(reply.result["content"][0]["text"])["user"] == "alice"
        legacy.http.headers.pop("Authorization")
        denied = await legacy.request("tools/call", {"name": "whoami", "arguments": {}})
    assert report(denied.result)["status"] == 401

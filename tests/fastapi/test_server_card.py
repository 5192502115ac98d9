"""`genmcp.fastapi.server_card`: the opt-in Server Card route, on a real server.

GET and HEAD answer the card (the SEP-2127 draft's media type, CORS, caching, ETag and
304), OPTIONS is the CORS preflight and other methods are 405; the card validates against
the draft's schema and agrees with what `server/discover` says once connected.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fastapi import FastAPI

from genmcp import Suite, mcp_router
from genmcp.fastapi.server_card import server_card_app
from support.client import ModernClient
from support.registry import server_card_errors
from support.server import LiveServer

SUITE = Suite(server_name="cards", server_version="2.0.0", server_title="Cards")


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    app = FastAPI()
    app.include_router(mcp_router(suite=SUITE), prefix="/mcp")
    card = server_card_app(
        SUITE,
        url="https://cards.example.com/mcp",
        name="com.example/cards",
        description="Serves a card",
        draft=True,
    )
    app.add_route("/mcp/server-card", card, methods=["GET", "HEAD", "OPTIONS", "POST"])
    with LiveServer(app) as url:
        yield url


def test_the_card_is_served_as_the_draft_asks(base: str) -> None:
    reply = httpx.get(
        base + "/mcp/server-card", headers={"Accept": "application/mcp-server-card+json"}
    )
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "application/mcp-server-card+json"
    assert reply.headers["access-control-allow-origin"] == "*"
    assert reply.headers["cache-control"] == "public, max-age=3600"
    card = reply.json()
    assert server_card_errors(card) == []
    assert card["name"] == "com.example/cards" and card["version"] == "2.0.0"
    again = httpx.get(base + "/mcp/server-card", headers={"If-None-Match": reply.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    head = httpx.head(base + "/mcp/server-card")
    assert head.status_code == 200 and head.content == b""
    assert int(head.headers["content-length"]) == len(reply.content)


def test_preflight_and_other_methods(base: str) -> None:
    preflight = httpx.options(base + "/mcp/server-card")
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-methods"] == "GET"
    post = httpx.post(base + "/mcp/server-card", content=b"{}")
    assert post.status_code == 405 and "GET" in post.headers["allow"]


async def test_the_card_agrees_with_server_discover(base: str) -> None:
    async with httpx.AsyncClient() as http:
        card = (await http.get(base + "/mcp/server-card")).json()
    async with ModernClient(base) as client:
        discover = (await client.request("server/discover")).result
    assert card["version"] == discover["_meta"]["io.modelcontextprotocol/serverInfo"]["version"]
    assert set(discover["supportedVersions"]) <= set(
        card["remotes"][0]["supportedProtocolVersions"]
    )


def test_no_card_without_draft() -> None:
    with pytest.raises(ValueError, match="draft"):
        server_card_app(SUITE, url="https://h/mcp", name="a.b/c", description="d", draft=False)

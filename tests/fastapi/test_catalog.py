"""`genmcp.fastapi.catalog`: a domain's catalogs of Server Cards on a real server.

One app serves a Suite at `/notes/mcp` and two tenants at `/t/{tenant}/mcp`, each with its
card at its reserved location; `/.well-known/mcp/catalog.json` (the MCP Catalog) and
`/.well-known/ai-catalog.json` (the AI Catalog) list all three with the drafts' headers
(media type, CORS, `Cache-Control`, ETag and 304, HEAD). A client follows the catalog as
the draft's discovery flow says: each entry's card, then the card's endpoint, which it
calls in both eras (`server/discover` on 2026-07-28, `initialize` on 2025-11-25).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI

from genmcp import Suite, mcp_router
from genmcp.fastapi.catalog import catalog_app, tenant_cards
from genmcp.fastapi.server_card import server_card_app
from genmcp.fastapi.tenants import Tenants, tenants_router
from genmcp.protocol.catalog import AI_CATALOG_PATH, MCP_CATALOG_PATH
from support.legacy_http import ACCEPT
from support.ports import listening
from support.registry import server_card_errors
from support.server import LiveServer

NOTES: Final = Suite(server_name="notes", server_version="1.0.0")
CARD: Final = "application/mcp-server-card+json"
META: Final = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}


def tenant_suite(tenant: str, **shared: Any) -> Suite:
    return Suite(server_name=f"shop-{tenant}", server_version="2.0.0", **shared)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    held = listening(0)  # held until the server serves it
    origin = f"http://127.0.0.1:{held.getsockname()[1]}"
    tenants = Tenants(tenant_suite, known={"acme", "globex"})
    app = FastAPI()
    app.include_router(mcp_router(suite=NOTES), prefix="/notes/mcp")
    app.include_router(tenants_router(tenants))
    notes = server_card_app(NOTES, url=f"{origin}/notes/mcp", name="com.example/notes",
                            description="Keeps notes", draft=True)  # fmt: skip
    shops = asyncio.run(tenant_cards(
        tenants, ["acme", "globex"], url=lambda t: f"{origin}/t/{t}/mcp",
        name=lambda t: f"com.example/shop-{t}", description="A shop", draft=True))  # fmt: skip
    app.add_route("/notes/mcp/server-card", notes, methods=["GET", "HEAD", "OPTIONS"])
    for tenant, card in zip(["acme", "globex"], shops, strict=True):
        app.add_route(f"/t/{tenant}/mcp/server-card", card, methods=["GET", "HEAD", "OPTIONS"])
    for path, form in ((MCP_CATALOG_PATH, "mcp"), (AI_CATALOG_PATH, "ai")):
        served = catalog_app([notes, *shops], draft=True, form=form)
        app.add_route(path, served, methods=["GET", "HEAD", "OPTIONS"])
    with LiveServer(app, sock=held) as url:
        yield url


@pytest.mark.parametrize(("path", "media", "version"), [
    (MCP_CATALOG_PATH, "application/json", "draft"),
    (AI_CATALOG_PATH, "application/ai-catalog+json", "1.0"),
])  # fmt: skip
def test_the_catalogs_list_every_card_with_the_drafts_headers(
    base: str, path: str, media: str, version: str
) -> None:
    reply = httpx.get(base + path)
    assert reply.status_code == 200 and reply.headers["content-type"] == media
    assert reply.headers["access-control-allow-origin"] == "*"
    assert reply.headers["cache-control"] == "public, max-age=3600"
    document = reply.json()
    assert document["specVersion"] == version
    assert [e["identifier"] for e in document["entries"]] == [
        "urn:air:example.com:mcp:notes",
        "urn:air:example.com:mcp:shop-acme",
        "urn:air:example.com:mcp:shop-globex",
    ]
    assert {e["type"] for e in document["entries"]} == {CARD}
    again = httpx.get(base + path, headers={"If-None-Match": reply.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    head = httpx.head(base + path)
    assert head.status_code == 200 and int(head.headers["content-length"]) == len(reply.content)
    assert httpx.options(base + path).status_code == 204


async def test_a_client_follows_the_catalog_to_each_server_in_both_eras(base: str) -> None:
    async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
        catalog = (await http.get(base + AI_CATALOG_PATH)).json()
        names = []
        for entry in catalog["entries"]:
            card = (await http.get(entry["url"], headers={"Accept": CARD})).json()
            assert server_card_errors(card) == []
            remote = card["remotes"][0]
            assert {"2026-07-28", "2025-11-25"} <= set(remote["supportedProtocolVersions"])
            discover = {"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                        "params": {"_meta": META}}  # fmt: skip
            modern = await http.post(remote["url"], json=discover, headers={
                "Accept": ACCEPT, "MCP-Protocol-Version": "2026-07-28",
                "Mcp-Method": "server/discover"})  # fmt: skip
            initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip
            legacy = await http.post(remote["url"], json=initialize, headers={"Accept": ACCEPT})
            assert "result" in modern.json(), modern.text
            info = modern.json()["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]
            assert info == legacy.json()["result"]["serverInfo"]
            assert info["version"] == card["version"]
            names.append(info["name"])
    assert names == ["notes", "shop-acme", "shop-globex"]

"""``OpenAPI`` mounted in a Suite served by uvicorn, the APIs served by their own uvicorns:
the inventory API (a FastAPI app, its committed document) and Petstore 3 (the published
document), imported and called in both eras (2026-07-28 stateless, 2025 sessions)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from genmcp import OpenAPI, Suite
from genmcp.fastapi.router import mcp_app
from support import inventory, petstore_app
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServers

BEARER = {"Authorization": f"Bearer {inventory.TOKEN}"}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, inventory.State]]:
    live = LiveServers()
    try:
        api, state = inventory.make_app()
        api_url = live(api)
        pets, _ = petstore_app.make_app()
        pets_url = live(pets)
        suite = Suite(server_name="gateway", server_version="1.0", mounts=[
            OpenAPI(inventory.SPEC, base_url=api_url, namespace="inv", exclude_tags=["admin"],
                    forward_bearer=True, failures=50),
            OpenAPI(petstore_app.SPEC, base_url=pets_url + "/api/v3", namespace="pets",
                    tags=["pet", "store"], credentials={"api_key": "special-key"}),
        ])
        yield live(mcp_app(suite)), state
    finally:
        live.stop_all()


async def modern(base: str, name: str, arguments: dict[str, Any],
                 headers: dict[str, str] | None = None) -> Any:
    async with ModernClient(base, headers=headers) as mcp:
        return await mcp.request("tools/call", {"name": name, "arguments": arguments})


def report(result: dict[str, Any]) -> Any:
    assert result.get("isError") is True, result
    return json.loads(result["content"][0]["text"])


async def test_both_apis_are_listed_under_their_namespaces(
    served: tuple[str, inventory.State],
) -> None:
    async with ModernClient(served[0]) as mcp:
        tools = {t["name"]: t for t in (await mcp.request("tools/list", {})).result["tools"]}
    assert {"inv_getItem", "inv_listItems", "inv_createItem", "inv_whoAmI", "inv_boom",
            "inv_slow"} <= set(tools)
    assert "inv_deleteItem" not in tools  # exclude_tags=["admin"]
    assert {"pets_getPetById", "pets_addPet", "pets_findPetsByStatus", "pets_deletePet",
            "pets_getInventory"} <= set(tools)
    assert not any(name.startswith("pets_") and "User" in name for name in tools)  # tags
    assert "pets_uploadFile" not in tools  # an octet-stream body: left out
    assert tools["pets_getPetById"]["outputSchema"]["required"] == ["name", "photoUrls"]
    assert "$ref" not in json.dumps(tools)


async def test_a_modern_call_reads_the_api(served: tuple[str, inventory.State]) -> None:
    reply = await modern(served[0], "inv_getItem", {"item_id": 1})
    assert reply.result["structuredContent"] == {
        "id": 1, "name": "lamp", "dimensions": None, "tags": ["light"]}
    pet = await modern(served[0], "pets_getPetById", {"petId": 10})
    assert pet.result["structuredContent"]["name"] == "doggie"
    found = await modern(served[0], "pets_findPetsByStatus", {"status": "available"})
    assert [p["id"] for p in found.result["structuredContent"]["result"]] == [10]


async def test_a_4xx_is_an_error_result_with_the_apis_body(
    served: tuple[str, inventory.State],
) -> None:
    reply = await modern(served[0], "inv_getItem", {"item_id": 404})
    assert report(reply.result) == {"status": 404,
                                    "detail": {"error": "not_found", "id": 404}}
    pet = await modern(served[0], "pets_getPetById", {"petId": 77})
    assert report(pet.result) == {"status": 404, "detail": "Pet not found"}


async def test_a_5xx_is_the_upstream_down(served: tuple[str, inventory.State]) -> None:
    reply = await modern(served[0], "inv_boom", {})
    assert reply.error["code"] == -32603
    assert "is unavailable: it answered 503" in reply.error["message"]
    assert reply.error["data"]["status"] == 503
    assert reply.error["data"]["upstream"].startswith("http://127.0.0.1:")


async def test_the_callers_bearer_goes_on_by_the_explicit_rule_only(
    served: tuple[str, inventory.State],
) -> None:
    denied = await modern(served[0], "inv_createItem", {"name": "desk"})
    assert report(denied.result) == {"status": 401,
                                     "detail": {"detail": "a valid bearer token is required"}}
    made = await modern(served[0], "inv_createItem",
                        {"name": "desk", "dimensions": {"width_cm": 120, "height_cm": 75}},
                        headers=BEARER)
    assert made.result["structuredContent"]["dimensions"] == {"width_cm": 120, "height_cm": 75}
    # the petstore upstream has no forwarding rule: its configured key goes, never the bearer
    deleted = await modern(served[0], "pets_deletePet", {"petId": 999}, headers=BEARER)
    assert deleted.result["content"][0]["text"] == "Pet deleted"


async def test_invalid_arguments_never_reach_the_api(served: tuple[str, inventory.State]) -> None:
    hits = served[1].hits
    reply = await modern(served[0], "inv_listItems", {"limit": 500})
    assert reply.result["isError"] is True
    assert "limit" in reply.result["content"][0]["text"]
    assert served[1].hits == hits


async def test_a_2025_session_imports_and_calls_both(served: tuple[str, inventory.State]) -> None:
    async with LegacyClient(served[0], version="2025-06-18") as legacy:
        legacy.http.headers["Authorization"] = BEARER["Authorization"]
        await legacy.open()
        listed = await legacy.request("tools/list", {})
        names = {t["name"] for t in listed.result["tools"]}
        item = await legacy.request("tools/call", {"name": "inv_getItem",
                                                   "arguments": {"item_id": 1}})
        made = await legacy.request("tools/call", {"name": "pets_addPet", "arguments": {
            "id": 11, "name": "kitty", "photoUrls": [], "status": "pending"}})
        pending = await legacy.request("tools/call", {"name": "pets_findPetsByStatus",
                                                      "arguments": {"status": "pending"}})
        created = await legacy.request("tools/call", {"name": "inv_createItem",
                                                      "arguments": {"name": "shelf"}})
        down = await legacy.request("tools/call", {"name": "inv_boom", "arguments": {}})
    assert {"inv_getItem", "pets_addPet"} <= names
    assert item.result["structuredContent"]["name"] == "lamp"
    assert made.result["structuredContent"]["name"] == "kitty"
    assert [p["name"] for p in pending.result["structuredContent"]["result"]] == ["kitty"]
    assert created.result["structuredContent"]["name"] == "shelf"  # the session's bearer
    assert down.error["code"] == -32603

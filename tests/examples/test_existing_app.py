"""examples/existing_app.py over a real server: its own routes, MCP behind bearer auth."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import httpx
import pytest

from support import examples, schema
from support.client import ModernClient, Reply
from support.server import LiveServers

existing_app = examples.load("existing_app")

METADATA_URL: Final = "http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"
ALICE: Final = {"Authorization": "Bearer alice-token"}
BOB: Final = {"Authorization": "Bearer bob-token"}
CAROL: Final = {"Authorization": "Bearer carol-token"}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(existing_app.app)
    finally:
        live.stop_all()


def plain_http() -> httpx.AsyncHTTPTransport:
    return httpx.AsyncHTTPTransport(verify=False)  # loopback HTTP: skip loading CA certs


@pytest.fixture
async def http(base: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base, transport=plain_http()) as client:
        yield client


@pytest.fixture
def mcp(base: str, modern_client: Any) -> ModernClient:
    """A modern MCP client that sends no token unless a test adds one."""
    client: ModernClient = modern_client(base, transport=plain_http())
    return client


# -- the app's own routes ------------------------------------------------------------------


async def test_ordinary_routes_work_without_a_token(http: httpx.AsyncClient) -> None:
    health = await http.get("/health")
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    item = await http.get("/items/1")
    assert (item.status_code, item.json()) == (200, {"id": 1, "name": "hammer", "stock": 12})
    missing = await http.get("/items/999")
    assert (missing.status_code, missing.json()) == (404, {"detail": "No item 999"})
    invalid = await http.get("/items/abc")
    assert invalid.status_code == 422


async def test_the_mcp_origin_and_host_guard_stays_on_the_mcp_route(
    http: httpx.AsyncClient,
) -> None:
    response = await http.get(
        "/items/2", headers={"Origin": "http://evil.example.com", "Host": "evil.example.com"}
    )
    assert (response.status_code, response.json()["name"]) == (200, "saw")


async def test_the_resource_metadata_names_the_mcp_endpoint(http: httpx.AsyncClient) -> None:
    response = await http.get("/.well-known/oauth-protected-resource/mcp")
    assert response.status_code == 200
    assert response.json() == {
        "resource": "http://127.0.0.1:8000/mcp",
        "authorization_servers": ["https://auth.example.com"],
        "scopes_supported": ["mcp:tools"],
        "bearer_methods_supported": ["header"],
    }


# -- auth ----------------------------------------------------------------------------------


async def test_mcp_without_a_token_is_401_pointing_at_the_resource_metadata(
    mcp: ModernClient,
) -> None:
    reply = await mcp.request("tools/list", validate=False)
    assert reply.status == 401
    assert reply.headers["www-authenticate"] == f'Bearer resource_metadata="{METADATA_URL}"'
    assert reply.body == b'{"detail":"A bearer token is required"}'


@pytest.mark.parametrize(
    "authorization",
    ["Bearer nope", "Bearer alice-token-2", "Bearer ALICE-TOKEN", "Bearer"],
)
async def test_mcp_with_an_unknown_token_is_401_invalid_token(
    mcp: ModernClient, authorization: str
) -> None:
    reply = await mcp.request(
        "tools/list", headers={"Authorization": authorization}, validate=False
    )
    assert reply.status == 401
    challenge = reply.headers["www-authenticate"]
    if authorization == "Bearer":  # no credentials at all: a plain challenge
        assert challenge == f'Bearer resource_metadata="{METADATA_URL}"'
    else:
        assert challenge == (f'Bearer error="invalid_token", resource_metadata="{METADATA_URL}"')


@pytest.mark.parametrize(
    "authorization", ["Basic YWxpY2U6cHc=", "alice-token", "Token alice-token"]
)
async def test_mcp_with_another_scheme_is_401(mcp: ModernClient, authorization: str) -> None:
    reply = await mcp.request(
        "tools/list", headers={"Authorization": authorization}, validate=False
    )
    assert reply.status == 401
    assert reply.headers["www-authenticate"] == f'Bearer resource_metadata="{METADATA_URL}"'


async def test_a_token_without_the_mcp_scope_is_403_insufficient_scope(mcp: ModernClient) -> None:
    reply = await mcp.request("tools/list", headers=BOB, validate=False)
    assert reply.status == 403
    assert reply.headers["www-authenticate"] == (
        f'Bearer error="insufficient_scope", scope="mcp:tools", resource_metadata="{METADATA_URL}"'
    )


async def test_the_origin_guard_runs_before_auth(mcp: ModernClient) -> None:
    evil = {"Origin": "http://evil.example.com"}
    for headers in (evil, {**evil, **ALICE}):
        reply = await mcp.request("tools/list", headers=headers, validate=False)
        assert reply.status == 403, reply.body
        assert "www-authenticate" not in reply.headers
        assert "Origin" in reply.body.decode()


async def test_the_host_guard_runs_before_auth(mcp: ModernClient) -> None:
    reply = await mcp.request("tools/list", headers={"Host": "evil.example.com"}, validate=False)
    assert reply.status == 421, reply.body
    assert "www-authenticate" not in reply.headers
    assert "Host" in reply.body.decode()


def structured(reply: Reply) -> Any:
    assert reply.status == 200, reply.body
    assert reply.result.get("isError", False) is False, reply.result
    return reply.result["structuredContent"]


async def test_a_loopback_origin_with_a_token_is_served(mcp: ModernClient) -> None:
    headers = {**ALICE, "Origin": "http://localhost:3000"}
    reply = await mcp.request("tools/call", {"name": "whoami"}, headers=headers)
    assert structured(reply)["principal"] == "alice"


async def test_whoami_returns_the_principal_and_scopes_auth_assigned(mcp: ModernClient) -> None:
    alice = await mcp.request("tools/call", {"name": "whoami"}, headers=ALICE)
    assert structured(alice) == {"principal": "alice", "scopes": ["mcp:tools", "items:read"]}
    carol = await mcp.request("tools/call", {"name": "whoami"}, headers=CAROL)
    assert structured(carol) == {"principal": "carol", "scopes": ["mcp:tools"]}


async def test_tools_list_and_discover_are_served_behind_auth(mcp: ModernClient) -> None:
    discover = await mcp.request("server/discover", headers=ALICE)
    assert discover.result["_meta"]["io.modelcontextprotocol/serverInfo"] == {
        "name": "inventory",
        "version": "1.0.0",
    }
    listing = await mcp.request("tools/list", headers=ALICE)
    tools = {tool["name"]: tool for tool in listing.result["tools"]}
    assert sorted(tools) == ["get_item", "whoami"]
    assert tools["whoami"]["outputSchema"]["required"] == ["principal", "scopes"]


async def test_get_item_shares_the_apps_data(mcp: ModernClient) -> None:
    found = await mcp.request(
        "tools/call", {"name": "get_item", "arguments": {"item_id": 1}}, headers=ALICE
    )
    assert structured(found) == {"id": 1, "name": "hammer", "stock": 12}
    missing = await mcp.request(
        "tools/call", {"name": "get_item", "arguments": {"item_id": 999}}, headers=ALICE
    )
    assert missing.result["isError"] is True
    assert missing.result["content"] == [{"type": "text", "text": "No item 999."}]


async def test_the_modern_http_rules_still_apply_behind_auth(mcp: ModernClient) -> None:
    mismatch = await mcp.request("tools/list", id=5, headers={**ALICE, "Mcp-Method": "tools/call"})
    assert (mismatch.status, mismatch.error["code"], mismatch.response["id"]) == (400, -32020, 5)
    parse = await mcp.raw_post(b"{nope", {**ALICE, "MCP-Protocol-Version": "2026-07-28"})
    assert (parse.status, parse.error["code"]) == (400, -32700)
    async with httpx.AsyncClient(transport=plain_http()) as http:
        get = await http.get(mcp.url, headers={**ALICE, "MCP-Protocol-Version": "2026-07-28"})
    assert get.status_code == 405
    assert "POST" in {verb.strip() for verb in get.headers["allow"].split(",")}
    schema.validate_server_message(get.json(), method=None)

"""Resource lists under OAuth: `resources/list` and `resources/templates/list` show only what
the caller may read, in both eras; `resources/read` of a hidden repository is a 403.

A real oidc-provider issues the tokens; the server is a real uvicorn.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from genmcp import (
    Channel,
    ResourceRepo,
    ResourceRequest,
    Result,
    StaticResource,
    mcp_router,
    read_resource_result,
    resource_item,
    text_contents,
)
from genmcp.auth import JWTVerifier, OAuthResource
from support.authorization_server import AuthorizationServer
from support.legacy_client import LegacyClient
from support.oauth import RESOURCE, VERSION, call_message
from support.server import LiveServers


class Diary(ResourceRepo, template="diary://{day}", name="diary", scopes=["notes:read"]):
    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Result:
        return Result(read_resource_result(text_contents(request.uri, "dear diary")))

    async def list(self, cursor: Any, channel: Channel, arg: Any) -> Any:
        return [resource_item("diary://monday", "monday")], None


class Public(ResourceRepo, template="public://{page}", name="public"):
    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Result:
        return Result(read_resource_result(text_contents(request.uri, "hello")))

    async def list(self, cursor: Any, channel: Channel, arg: Any) -> Any:
        return [resource_item("public://home", "home")], None


@pytest.fixture
def url(authorization_server: AuthorizationServer, live_server: LiveServers) -> str:
    resource = OAuthResource(
        resource=RESOURCE,
        authorization_servers=[authorization_server.issuer],
        verifier=JWTVerifier(authorization_server.issuer),
        required_scopes=["mcp:tools"],
    )
    router = mcp_router(
        server_name="lists",
        server_version="1",
        resources=[Diary, Public, StaticResource(uri="static://motd", name="motd", text="hi")],
        auth=resource,
    )
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return live_server(app)


async def modern(url: str, token: str, method: str, params: dict[str, Any]) -> httpx.Response:
    meta = call_message("x", {}, 1)["params"]["_meta"]
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": VERSION,
        "mcp-method": method,
        "authorization": f"Bearer {token}",
    }
    if "uri" in params:
        headers["mcp-name"] = params["uri"]
    async with httpx.AsyncClient(timeout=10) as client:
        return await client.post(url + "/mcp", json=body, headers=headers)


async def test_resource_lists_show_only_what_the_scopes_allow(
    url: str, authorization_server: AuthorizationServer
) -> None:
    async def lists(scope: str) -> tuple[list[str], list[str]]:
        token = authorization_server.token(RESOURCE, scope)
        uris: list[str] = []
        params: dict[str, Any] = {}
        while True:  # one repository per page: follow the cursors
            listed = await modern(url, token, "resources/list", params)
            assert listed.status_code == 200, listed.text
            uris += [item["uri"] for item in listed.json()["result"]["resources"]]
            if "nextCursor" not in listed.json()["result"]:
                break
            params = {"cursor": listed.json()["result"]["nextCursor"]}
        templates = await modern(url, token, "resources/templates/list", {})
        assert templates.status_code == 200, templates.text
        names = [item["uriTemplate"] for item in templates.json()["result"]["resourceTemplates"]]
        return sorted(uris), sorted(names)

    assert await lists("mcp:tools") == (
        ["public://home", "static://motd"],
        ["public://{page}"],
    )
    assert await lists("mcp:tools notes:read") == (
        ["diary://monday", "public://home", "static://motd"],
        ["diary://{day}", "public://{page}"],
    )
    weak = authorization_server.token(RESOURCE, "mcp:tools")
    read = await modern(url, weak, "resources/read", {"uri": "diary://monday"})
    assert read.status_code == 403  # hidden from the list, and refused when named


async def test_legacy_resource_list_is_filtered_too(
    url: str, authorization_server: AuthorizationServer
) -> None:
    async def uris(scope: str) -> list[str]:
        client = LegacyClient(url, validate=False)
        token = authorization_server.token(RESOURCE, scope)
        client.http.headers["authorization"] = f"Bearer {token}"
        await client.open()
        found: list[str] = []
        try:
            params: dict[str, Any] = {}
            while True:
                reply = await client.request("resources/list", params)
                assert reply.status == 200, reply
                found += [item["uri"] for item in reply.result["resources"]]
                if "nextCursor" not in reply.result:
                    break
                params = {"cursor": reply.result["nextCursor"]}
        finally:
            await client.aclose()
        return sorted(found)

    assert await uris("mcp:tools") == ["public://home", "static://motd"]
    assert await uris("mcp:tools notes:read") == [
        "diary://monday",
        "public://home",
        "static://motd",
    ]

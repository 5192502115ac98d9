"""Opaque tokens checked by RFC 7662 introspection at the real AS, cached by token digest."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from genmcp import mcp_router
from genmcp.auth import IntrospectionVerifier, OAuthResource
from support.authorization_server import AuthorizationServer
from support.examples import load
from support.oauth import OPAQUE_RESOURCE, call, challenge
from support.server import LiveServers


async def test_opaque_tokens_are_introspected_and_cached(
    authorization_server: AuthorizationServer, live_server: LiveServers
) -> None:
    async with httpx.AsyncClient() as client:
        discovery = await client.get(
            authorization_server.issuer + "/.well-known/openid-configuration"
        )
    verifier = IntrospectionVerifier(
        discovery.json()["introspection_endpoint"],
        client_id="resource-server",
        client_secret="rs-secret",
        issuer=authorization_server.issuer,
    )
    resource = OAuthResource(
        resource=OPAQUE_RESOURCE,
        authorization_servers=[authorization_server.issuer],
        verifier=verifier,
        required_scopes=["mcp:tools"],
    )
    app = FastAPI()
    tools = [load("protected_app").WhoAmI]
    router = mcp_router(server_name="o", server_version="1", tools=tools, auth=resource)
    app.include_router(router, prefix="/mcp")
    url = live_server(app)
    token = authorization_server.token(OPAQUE_RESOURCE, "mcp:tools", client="bob")
    assert token.count(".") == 0  # opaque, not a JWT
    headers = {"authorization": f"Bearer {token}"}
    first = await call(url, "whoami", headers=headers)
    second = await call(url, "whoami", headers=headers)
    assert first.status_code == second.status_code == 200, first.text
    assert first.json()["result"]["structuredContent"]["principal"] == "bob"
    assert verifier.requests == 1  # the second answer came from the cache
    unknown = await call(url, "whoami", headers={"authorization": "Bearer no-such-token"})
    assert unknown.status_code == 401 and challenge(unknown)["error"] == "invalid_token"
    assert verifier.requests == 2

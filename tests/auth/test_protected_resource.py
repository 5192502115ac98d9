"""``OAuthResource`` as an ``Auth`` (``genmcp.auth.protected_resource``, ``transports.http.auth``).

Against the real authorization server of ``conftest`` and its real tokens: the request
check answers before the body is read, the message check refuses a tool that needs more
scopes, each part reaches the endpoint whichever way the router is built (raw route, API
route, wrapped by ``forward_credentials``), and a plain dependency becomes a
``DependencyAuth`` that runs in an API route.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.routing import APIRoute

from genmcp import Suite, mcp_router
from genmcp.auth import Auth, DependencyAuth, JWTVerifier, OAuthResource
from genmcp.protocol.jsonrpc import Request as JSONRPCRequest
from genmcp.routes_as_tools import forward_credentials
from genmcp.transports.http.auth import as_auth
from support.authorization_server import AuthorizationServer
from support.examples import load
from support.oauth import RESOURCE, call, challenge
from support.server import LiveServers

EXAMPLE = load("protected_app")


def resource_for(authorization_server: AuthorizationServer) -> OAuthResource:
    return OAuthResource(
        resource=RESOURCE,
        authorization_servers=[authorization_server.issuer],
        verifier=JWTVerifier(authorization_server.issuer),
        required_scopes=["mcp:tools"],
        scope_hierarchy={"admin": ["notes:write"]},
    )


def suite() -> Suite:
    return Suite(
        server_name="p", server_version="1", tools=[EXAMPLE.WhoAmI, (EXAMPLE.WriteNote, [])]
    )


def scope_with(**headers: str) -> dict[str, Any]:
    raw = [(name.replace("_", "-").encode(), value.encode()) for name, value in headers.items()]
    return {"type": "http", "method": "POST", "path": "/mcp", "headers": raw}


def write_note(request_id: int = 7) -> JSONRPCRequest:
    return JSONRPCRequest(request_id, "tools/call", {"name": "write_note", "arguments": {}})


async def test_the_request_check_gives_assigns_for_a_real_token_and_refusals_otherwise(
    authorization_server: AuthorizationServer,
) -> None:
    resource, served = resource_for(authorization_server), suite()
    assert isinstance(resource, Auth) and resource.dependency is resource
    check = resource.request_check
    token = authorization_server.token(RESOURCE, "mcp:tools", "alice")
    assigns = await check(scope_with(authorization=f"Bearer {token}"), served)
    assert isinstance(assigns, dict)
    assert assigns["principal"] == "alice" and "token" not in json.dumps(assigns, default=str)
    elsewhere = authorization_server.forge(authorization_server.claims("https://other.test/mcp"))
    for headers, status, error in (
        ({}, 401, None),
        ({"authorization": "Bearer not-a-jwt"}, 401, "invalid_token"),
        ({"authorization": f"Bearer {elsewhere}"}, 401, "invalid_token"),  # another audience
        ({"authorization": "Bearer a b"}, 400, "invalid_request"),
    ):
        refusal = await check(scope_with(**headers), served)
        assert isinstance(refusal, tuple), headers
        body, got, extra = refusal
        assert got == status, headers
        assert body["error"]["code"] == -32600 and ("cache-control", "no-store") in extra
        [www] = [value for name, value in extra if name.lower() == "www-authenticate"]
        assert (error is None) == ("error=" not in www), www
    named = await check(scope_with(mcp_method="tools/call", mcp_name="write_note"), served)
    assert isinstance(named, tuple)
    assert 'scope="mcp:tools notes:write"' in dict(named[2])["www-authenticate"]


async def test_the_message_check_refuses_a_tool_that_needs_more_scopes(
    authorization_server: AuthorizationServer,
) -> None:
    resource, served = resource_for(authorization_server), suite()
    check, request_check = resource.message_check, resource.request_check
    grants = {}
    for scopes in ("mcp:tools", "mcp:tools admin"):
        token = authorization_server.token(RESOURCE, scopes, "alice")
        found = await request_check(scope_with(authorization=f"Bearer {token}"), served)
        assert isinstance(found, dict)
        grants[scopes] = found
    refusal = check(write_note(7), grants["mcp:tools"], served)
    assert refusal is not None
    body, status, headers = refusal
    assert (status, body["id"]) == (403, 7)
    assert 'error="insufficient_scope"' in dict(headers)["www-authenticate"]
    assert check(write_note(), grants["mcp:tools admin"], served) is None  # admin implies it
    whoami = JSONRPCRequest(8, "tools/call", {"name": "whoami"})
    assert check(whoami, grants["mcp:tools"], served) is None


async def test_the_request_check_answers_before_the_body_arrives(
    authorization_server: AuthorizationServer, live_server: LiveServers
) -> None:
    """A POST announcing a body it never sends, without a token, is refused at once: the
    endpoint ran the check on the headers alone (no FastAPI route, no body read)."""
    resource = resource_for(authorization_server)
    router = mcp_router(suite=suite(), auth=resource)
    assert not isinstance(router.routes[0], APIRoute)  # raw: the check runs inside the endpoint
    assert router.endpoint.authenticate == resource.asgi_check
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    url = urlsplit(live_server(app))
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    try:
        writer.write(
            b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            b"accept: application/json, text/event-stream\r\ncontent-length: 100000\r\n\r\n{"
        )
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=5)
    finally:
        writer.close()
    assert head.startswith(b"HTTP/1.1 401 ")
    assert b"\r\nwww-authenticate: bearer " in head.lower()


@pytest.mark.parametrize("route", ["raw", "dependencies", "forward_credentials"])
async def test_every_part_reaches_the_endpoint_however_the_router_is_built(
    route: str, authorization_server: AuthorizationServer, live_server: LiveServers
) -> None:
    """The same statuses through the raw endpoint, an API route (``dependencies=``) and a
    wrapped resource: the message check stays in force in all three."""
    resource = resource_for(authorization_server)

    def noop() -> None:
        return None

    options: dict[str, Any] = {"auth": resource}
    if route == "dependencies":
        options["dependencies"] = [Depends(noop)]
    elif route == "forward_credentials":
        options["auth"] = forward_credentials(resource)
    router = mcp_router(suite=suite(), **options)
    assert (not isinstance(router.routes[0], APIRoute)) is (route == "raw")
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    url = live_server(app)

    def bearer(scopes: str) -> dict[str, str]:
        return {"authorization": f"Bearer {authorization_server.token(RESOURCE, scopes)}"}

    ok = await call(url, "whoami", headers=bearer("mcp:tools"))
    assert ok.status_code == 200, ok.text
    assert ok.json()["result"]["structuredContent"]["principal"] == "alice"
    assert (await call(url, "whoami", headers={})).status_code == 401
    denied = await call(url, "write_note", {"text": "x"}, headers=bearer("mcp:tools"), request_id=4)
    assert denied.status_code == 403 and denied.json()["id"] == 4
    assert challenge(denied)["scope"] == "mcp:tools notes:write"
    stored = await call(url, "write_note", {"text": "x"}, headers=bearer("mcp:tools admin"))
    assert stored.status_code == 200, stored.text


async def test_a_plain_dependency_is_a_dependency_auth_run_by_an_api_route(
    authorization_server: AuthorizationServer, live_server: LiveServers
) -> None:
    """A FastAPI dependency keeps working as ``auth=``; given as a ``DependencyAuth`` with a
    message check, that check runs too."""
    resource = resource_for(authorization_server)

    async def staff(request: Request) -> dict[str, Any]:
        if request.headers.get("x-staff") != "yes":
            raise HTTPException(401, "staff only")
        return {"principal": "staff", "scopes": ["mcp:tools"]}

    wrapped = as_auth(staff)
    assert isinstance(wrapped, DependencyAuth) and wrapped.dependency is staff
    assert wrapped.request_check is None and wrapped.message_check is None
    assert as_auth(resource) is resource and as_auth(None) is None
    with pytest.raises(TypeError, match="auth= takes a FastAPI dependency or an Auth"):
        as_auth("staff")  # type: ignore[arg-type]
    urls = []
    for auth in (staff, DependencyAuth(staff, resource.message_check)):
        router = mcp_router(suite=suite(), auth=auth)
        assert isinstance(router.routes[0], APIRoute) and router.auth is staff
        assert router.endpoint.authenticate is None
        app = FastAPI()
        app.include_router(router, prefix="/mcp")
        urls.append(live_server(app))
    for url in urls:
        assert (await call(url, "whoami", headers={})).status_code == 401
        ok = await call(url, "whoami", headers={"x-staff": "yes"})
        assert ok.json()["result"]["structuredContent"]["principal"] == "staff"
    plain, checked = [
        await call(url, "write_note", {"text": "x"}, headers={"x-staff": "yes"}) for url in urls
    ]
    assert plain.status_code == 200  # no message check: the dependency's assigns suffice
    assert checked.status_code == 403  # the resource's check: write_note needs notes:write


class NoClose:
    """``verify`` alone: the resource could not close it at shutdown."""

    async def verify(self, token: str) -> Any:
        raise AssertionError("never called")


def test_a_verifier_without_aclose_is_refused_when_the_resource_is_built() -> None:
    with pytest.raises(TypeError, match=r"subclass genmcp\.auth\.TokenVerifier for its aclose"):
        OAuthResource(
            resource=RESOURCE,
            authorization_servers=["https://as.example"],
            verifier=NoClose(),  # type: ignore[arg-type]
        )

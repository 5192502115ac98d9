"""Auth in both eras, principal binding, escaping of challenge values, and logs.

Legacy (2025) clients carry the bearer token on every POST, GET and DELETE; each one
without it is challenged, and a session minted for one principal answers another exactly
like an unknown session. Challenge values survive hostile tool names and scopes. No token
reaches any log record, at DEBUG, uvicorn's access log included (with `QueryTokenFilter`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastapi import FastAPI

from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.auth import JWTVerifier, OAuthResource
from genmcp.auth.redact import QueryTokenFilter
from support.legacy_client import LegacyClient
from support.oauth import RESOURCE, RESOURCE_METADATA, Protected, call, challenge
from support.server import LiveServers
from support.www_authenticate import parse_bearer


@pytest.fixture
async def legacy(protected: Protected) -> AsyncIterator[tuple[LegacyClient, dict[str, str]]]:
    bearer = protected.bearer()
    client = LegacyClient(protected.url, validate=False)
    client.http.headers.update(bearer)
    await client.open()
    del client.http.headers["authorization"]  # from here on each request says what it sends
    try:
        yield client, bearer
    finally:
        await client.aclose()


async def test_legacy_every_method_needs_the_token(
    legacy: tuple[LegacyClient, dict[str, str]],
) -> None:
    client, bearer = legacy
    ok = await client.request("tools/call", {"name": "whoami"}, headers=bearer)
    assert ok.status == 200 and ok.result["structuredContent"]["principal"] == "alice"
    post = await client.request("tools/call", {"name": "whoami"})
    delete = await client.delete()
    async with client.get_stream() as exchange:
        get = exchange.reply
    for reply in (post, get, delete):
        assert reply.status == 401, reply
        assert challenge_of(reply.headers) == {
            "scope": "mcp:tools",
            "resource_metadata": RESOURCE_METADATA,
        }
    denied = await client.request(
        "tools/call", {"name": "write_note", "arguments": {"text": "x"}}, headers=bearer
    )
    assert denied.status == 403
    assert challenge_of(denied.headers)["scope"] == "mcp:tools notes:write"
    assert denied.error["code"] == -32600


TOOL_SCOPES = 'mcp:tools odd"scope\\, error="none'


def challenge_of(headers: Any) -> dict[str, str]:
    from support.www_authenticate import parse_bearer

    values = headers.get_list("www-authenticate")
    assert len(values) == 1, values
    return parse_bearer(values[0])


async def test_a_legacy_session_of_one_principal_is_unknown_to_another(
    legacy: tuple[LegacyClient, dict[str, str]], protected: Protected
) -> None:
    client, _ = legacy
    bob = protected.bearer(client="bob")
    stolen = await client.request("tools/call", {"name": "whoami"}, headers=bob)
    real_id = client.session_id
    client.session_id = "0" * len(real_id or "x")
    unknown = await client.request("tools/call", {"name": "whoami"}, headers=bob)
    assert stolen.status == unknown.status == 404
    assert stolen.error == unknown.error  # a forged and another user's id read the same
    assert stolen.error["message"] == "Session not found"
    assert client.session_id != real_id


# a hostile tool name is refused when the Suite is built (tests/test_dx_outputs.py)
class Hostile(Tool, name="hostile", scopes=['odd"scope\\, error="none']):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="ran"))


async def test_challenge_values_survive_hostile_names_and_scopes(
    protected: Protected, live_server: LiveServers
) -> None:
    resource = OAuthResource(
        resource=RESOURCE,
        authorization_servers=[protected.auth.issuer],
        verifier=JWTVerifier(protected.auth.issuer),
        required_scopes=["mcp:tools"],
    )
    app = FastAPI()
    app.include_router(
        mcp_router(server_name="h", server_version="1", tools=[Hostile], auth=resource),
        prefix="/mcp",
    )
    url = live_server(app)
    response = await call(url, "hostile", headers=protected.bearer())
    assert response.status_code == 403
    params = challenge(response)
    assert params == {
        "error": "insufficient_scope",
        "error_description": "the access token lacks a scope this operation needs",
        "scope": 'mcp:tools odd"scope\\, error="none',
        "resource_metadata": RESOURCE_METADATA,
    }


async def test_no_token_in_any_log_record(
    protected: Protected, live_server: LiveServers, caplog: pytest.LogCaptureFixture
) -> None:
    from support.examples import load

    env = {"MCP_RESOURCE": RESOURCE, "MCP_ISSUER": protected.auth.issuer}
    access = logging.getLogger("uvicorn.access")
    redact = QueryTokenFilter()
    access.addFilter(redact)
    try:
        with caplog.at_level(logging.DEBUG):
            url = live_server(
                load("protected_app").create_app(env), access_log=True, log_level="debug"
            )
            good, weak = protected.bearer(), protected.bearer("notes:read")
            tokens = [value.split()[1] for value in (good["authorization"], weak["authorization"])]
            statuses = [
                (await call(url, "whoami", headers=good)).status_code,
                (await call(url, "write_note", {"text": "x"}, headers=good)).status_code,
                (await call(url, "whoami", headers=weak)).status_code,
                (
                    await call(url, "whoami", headers={}, query={"access_token": tokens[0]})
                ).status_code,
                (
                    await call(
                        url, "whoami", headers={"authorization": "Bearer " + tokens[0][:-3] + "xyz"}
                    )
                ).status_code,
            ]
    finally:
        access.removeFilter(redact)
    assert statuses == [200, 403, 403, 401, 401]
    assert any("uvicorn.access" == r.name for r in caplog.records)  # the access log did run
    server_side = [r for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
    text = "\n".join(r.getMessage() for r in server_side)  # httpx/httpcore: the test client
    assert "access_token=[redacted]" in text
    for token in tokens:
        assert token not in text and token[:40] not in text


async def test_tools_list_shows_only_the_tools_the_caller_may_use(protected: Protected) -> None:
    from support.oauth import VERSION, call_message

    async def names(scope: str) -> list[str]:
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/list",
            "params": {"_meta": call_message("whoami", {}, 1)["params"]["_meta"]},
        }
        headers = {
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": VERSION,
            "mcp-method": "tools/list",
            **protected.bearer(scope),
        }
        import httpx

        async with httpx.AsyncClient() as client:
            response = await client.post(protected.url + "/mcp", json=body, headers=headers)
        assert response.status_code == 200, response.text
        return [tool["name"] for tool in response.json()["result"]["tools"]]

    assert await names("mcp:tools") == ["whoami"]
    assert await names("mcp:tools notes:write") == ["whoami", "write_note"]
    assert await names("mcp:tools admin") == ["whoami", "write_note"]  # through the hierarchy


async def test_the_raw_endpoint_and_the_api_route_answer_alike(
    protected: Protected, live_server: LiveServers
) -> None:
    """`OAuthResource` alone runs in the raw endpoint; with `dependencies=` it is a FastAPI
    dependency of an API route. Both give the same statuses; the endpoint's challenges also
    name the scopes of the tool `Mcp-Name` announces. stdio finds it either way."""
    from fastapi import Depends
    from fastapi.routing import APIRoute

    from genmcp.fastapi.stdio_app import mcp_of

    def resource() -> OAuthResource:
        return OAuthResource(
            resource=RESOURCE,
            authorization_servers=[protected.auth.issuer],
            verifier=JWTVerifier(protected.auth.issuer),
            required_scopes=["mcp:tools"],
        )

    def noop() -> None:
        return None

    raw, routed = resource(), resource()
    apps, kinds = [], []
    for auth, extra in ((raw, None), (routed, [Depends(noop)])):
        app = FastAPI()
        router = mcp_router(
            server_name="a", server_version="1", tools=[Hostile], auth=auth, dependencies=extra
        )
        app.include_router(router, prefix="/mcp")
        apps.append(app)
        kinds.append(type(router.routes[0]))
        assert mcp_of(app)[0][1] is auth  # what stdio runs once
    assert not issubclass(kinds[0], APIRoute) and issubclass(kinds[1], APIRoute)  # raw: no Depends
    seen = []
    for app in apps:
        url = live_server(app)
        weak = protected.bearer("notes:read")
        answers = [
            await call(url, "hostile", headers=headers)
            for headers in ({}, {"authorization": "Bearer nope"}, weak, protected.bearer())
        ]
        seen.append([(a.status_code, a.headers.get("www-authenticate")) for a in answers])
    assert [status for status, _ in seen[0]] == [status for status, _ in seen[1]]
    assert [status for status, _ in seen[0]] == [401, 401, 403, 403]
    assert seen[0][3] == seen[1][3]  # the tool's own scope missing: every scope, either way
    scopes = [[parse_bearer(value or "")["scope"] for _, value in one[:3]] for one in seen]
    assert scopes == [[TOOL_SCOPES] * 3, ["mcp:tools"] * 3]

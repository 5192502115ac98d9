"""The authorization-server front end to end: examples/authorization_server.py on uvicorn,
a real upstream (oidc-provider, dynamic registration disabled), the genmcp client's OAuth
(RFC 9728 discovery, RFC 7591 registration with the front, PKCE S256, step-up), and the
hostile cases: plain PKCE, redirect-URI mismatch, open redirects, code replay, refresh
replay, another resource, a registration flood (the registration endpoint alone:
test_registration_endpoint.py).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from genmcp.auth.front import ClientRegistry
from genmcp.auth.front.grants import pkce_challenge
from genmcp.client import Client
from genmcp.client.oauth import OAuth
from support.authorization_server import AuthorizationServer
from support.examples import load
from support.recorder import Recorder
from support.server import LiveServers

from .conftest import CLIENT_REDIRECT, FRONT, FRONT_PORT, MCP, approve, browser, front_env


class Bearer(httpx.Auth):
    """A fixed bearer token (no OAuth dance)."""

    def __init__(self, token: str) -> None:
        self.token = token

    def auth_flow(self, request: httpx.Request) -> Any:
        request.headers["authorization"] = f"Bearer {self.token}"
        yield request


VERIFIER = "v" * 20 + "-._~" + "0123456789abcdefghijklmnop"


@pytest.fixture
def served(upstream: AuthorizationServer, live_server: LiveServers) -> Any:
    app = load("authorization_server").create_app(front_env(upstream.issuer))
    wire = Recorder(app)
    live_server(wire, port=FRONT_PORT)
    return app, wire


async def _register(http: httpx.AsyncClient, **extra: Any) -> dict[str, Any]:
    response = await http.post(f"{FRONT}/register", json={
        "redirect_uris": [CLIENT_REDIRECT], "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": "none", **extra})  # fmt: skip
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def _authorize_url(client_id: str, **overrides: str) -> str:
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": CLIENT_REDIRECT,
             "code_challenge": pkce_challenge(VERIFIER), "code_challenge_method": "S256",
             "state": "st-1", "scope": "mcp:tools", "resource": MCP, **overrides}  # fmt: skip
    return f"{FRONT}/authorize?{httpx.QueryParams(query)}"


async def _code(client_id: str) -> str:
    back = httpx.URL(await browser(_authorize_url(client_id)))
    assert back.params["state"] == "st-1" and back.params["iss"] == FRONT
    return back.params["code"]


def _exchange(client_id: str, code: str, **overrides: str) -> dict[str, str]:
    return {"grant_type": "authorization_code", "code": code, "client_id": client_id,
            "redirect_uri": CLIENT_REDIRECT, "code_verifier": VERIFIER, "resource": MCP,
            **overrides}  # fmt: skip


async def test_metadata_is_rfc_8414(served: Any) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        document = (await http.get(f"{FRONT}/.well-known/oauth-authorization-server")).json()
        resource = (await http.get(f"{FRONT}/.well-known/oauth-protected-resource/mcp")).json()
        openid = await http.get(f"{FRONT}/.well-known/openid-configuration")
    assert openid.status_code == 404  # not an OpenID provider: it issues no ID token
    assert document["issuer"] == FRONT
    assert document["registration_endpoint"] == f"{FRONT}/register"
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["token_endpoint_auth_methods_supported"] == ["none"]
    assert resource["authorization_servers"] == [FRONT] and resource["resource"] == MCP


async def test_the_client_registers_signs_in_steps_up_and_calls(served: Any) -> None:
    _, wire = served
    auth = OAuth(authorize=browser, redirect_uri=CLIENT_REDIRECT)
    async with Client(MCP, auth=auth) as client:
        who = await client.call_tool("whoami", {})
        wrote = await client.call_tool("write_note", {"text": "via the front"})
        after = await client.call_tool("whoami", {})
    assert who["structuredContent"]["principal"] == "alice"  # the upstream's sub
    assert who["structuredContent"]["scopes"] == ["mcp:tools"]
    assert wrote["content"][0]["text"] == "Stored note #1."
    assert sorted(after["structuredContent"]["scopes"]) == ["mcp:tools", "notes:write"]
    paths = [exchange.path for exchange in wire.exchanges]
    assert paths.count("/register") == 1 and paths.count("/oauth/callback") == 2
    statuses = [exchange.status for exchange in wire.exchanges if exchange.path == "/mcp"]
    assert statuses.count(401) == 1 and statuses.count(403) == 1


async def test_pkce_is_s256_and_verified(served: Any) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
        for bad in ({"code_challenge_method": "plain", "code_challenge": VERIFIER},
                    {"code_challenge_method": ""}, {"code_challenge": ""}):  # fmt: skip
            response = await http.get(_authorize_url(client_id, **bad))
            assert response.status_code == 302
            back = httpx.URL(response.headers["location"])
            assert str(back).startswith(CLIENT_REDIRECT)  # back to the client, not upstream
            assert back.params["error"] == "invalid_request" and back.params["state"] == "st-1"
        code = await _code(client_id)
        wrong = _exchange(client_id, code, code_verifier="w" * 50)
        refused = await http.post(f"{FRONT}/token", data=wrong)
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"


async def test_redirect_uris_match_exactly_and_never_open_a_redirect(served: Any) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
        for uri in ("https://evil.example/callback", CLIENT_REDIRECT + "/x",
                    CLIENT_REDIRECT + "?next=https://evil.example", "http://127.0.0.1:9/"):
            response = await http.get(_authorize_url(client_id, redirect_uri=uri))
            assert response.status_code == 400 and "location" not in response.headers
        unknown = await http.get(_authorize_url("nobody", redirect_uri="https://evil.example"))
        assert unknown.status_code == 400 and "location" not in unknown.headers
        for uri in ("http://evil.example/cb", "javascript:alert(1)", "https://a.example/#f",
                    "https://user@a.example/cb", "/relative", "https://a.example/c\r\nb"):
            refused = await http.post(f"{FRONT}/register", json={"redirect_uris": [uri]})
            assert refused.status_code == 400, uri
            assert refused.json()["error"] == "invalid_redirect_uri"
        code = await _code(client_id)
        other = _exchange(client_id, code, redirect_uri="http://localhost:9/callback")
        mismatch = await http.post(f"{FRONT}/token", data=other)
        assert mismatch.status_code == 400 and mismatch.json()["error"] == "invalid_grant"
        stray = await http.get(f"{FRONT}/oauth/callback?code=x&state=forged")
        assert stray.status_code == 400 and "location" not in stray.headers


async def test_repeated_parameters_are_refused(served: Any) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
        url = httpx.URL(_authorize_url(client_id))
        twice = {"redirect_uri": "http://127.0.0.1:9/other", "client_id": "other",
                 "state": "st-2", "code_challenge": "y" * 43, "scope": "notes:write"}  # fmt: skip
        for name, value in twice.items():
            response = await http.get(url.copy_add_param(name, value))
            if name in ("redirect_uri", "client_id"):  # nowhere trusted to send it back
                assert response.status_code == 400 and "location" not in response.headers
                assert f"{name} is repeated" in response.text
            else:
                back = httpx.URL(response.headers["location"])
                assert back.params["error"] == "invalid_request", name
                assert f"{name} is repeated" in back.params["error_description"]


async def test_another_resource_is_refused(served: Any) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
        response = await http.get(_authorize_url(client_id, resource="https://other.example/mcp"))
        assert httpx.URL(response.headers["location"]).params["error"] == "invalid_target"
        code = await _code(client_id)
        other = _exchange(client_id, code, resource="https://other.example/mcp")
        refused = await http.post(f"{FRONT}/token", data=other)
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_target"
        scope = await http.get(_authorize_url(client_id, scope="root"))
        assert httpx.URL(scope.headers["location"]).params["error"] == "invalid_scope"


async def test_a_token_for_this_resource_is_no_good_elsewhere(served: Any) -> None:
    app, _ = served
    front = app.state.front
    token = front.tokens.issue(subject="alice", client_id="c", scope=["mcp:tools"],
                               resource="https://other.example/mcp")  # fmt: skip
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"authorization": f"Bearer {token}", "mcp-protocol-version": "2025-11-25",
               "accept": "application/json, text/event-stream"}  # fmt: skip
    async with httpx.AsyncClient(trust_env=False) as http:
        response = await http.post(MCP, json=call, headers=headers)
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]


async def test_the_example_starts_without_reaching_the_upstream() -> None:
    app = load("authorization_server").create_app(front_env("http://127.0.0.1:9"))
    assert app.state.front.upstream._metadata is None
    with pytest.raises(RuntimeError, match="OAUTH_UPSTREAM_ISSUER"):
        load("authorization_server").create_app({"MCP_RESOURCE": MCP})
    # an unreachable upstream is a clear error at the client's redirect URI, not a 500
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=FRONT) as http:
        metadata = await http.get("/.well-known/oauth-authorization-server")
        client_id = (await _register(http))["client_id"]
        response = await approve(http, await http.get(_authorize_url(client_id)))
    assert metadata.status_code == 200 and response.status_code == 303
    back = httpx.URL(response.headers["location"])
    assert str(back).startswith(CLIENT_REDIRECT)
    assert back.params["error"] == "temporarily_unavailable" and back.params["state"] == "st-1"


async def test_an_upstream_refusal_reaches_the_client_as_access_denied(served: Any) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
        approved = await approve(http, await http.get(_authorize_url(client_id)))
        upstream_url = httpx.URL(approved.headers["location"])
        state = upstream_url.params["state"]
        assert state != "st-1"  # the front's own state upstream, not the client's
        denied = await http.get(f"{FRONT}/oauth/callback",
                                params={"state": state, "error": "access_denied"})  # fmt: skip
        again = await http.get(f"{FRONT}/oauth/callback", params={"state": state, "code": "x"})
    back = httpx.URL(denied.headers["location"])
    assert str(back).startswith(CLIENT_REDIRECT) and back.params["error"] == "access_denied"
    assert back.params["state"] == "st-1"
    assert again.status_code == 400  # a state is used once


async def test_a_registration_flood_is_refused_and_pages_escape(
    upstream: AuthorizationServer, live_server: LiveServers
) -> None:
    app = load("authorization_server").create_app(
        front_env(upstream.issuer), registry=ClientRegistry(max_clients=2)
    )
    live_server(app, port=FRONT_PORT)
    async with httpx.AsyncClient(trust_env=False) as http:
        answers = [(await http.post(f"{FRONT}/register",
                                    json={"redirect_uris": [CLIENT_REDIRECT]})).status_code
                   for _ in range(4)]  # fmt: skip
        hostile = await http.get(f"{FRONT}/authorize",
                                 params={"client_id": "https://<script>x</script>/c"})  # fmt: skip
        repeated = await http.post(f"{FRONT}/token", content=b"grant_type=a&grant_type=b",
                                   headers={"content-type": "application/x-www-form-urlencoded"})
        huge = await http.post(f"{FRONT}/token", data={"grant_type": "x" * 70_000})
        json_body = await http.post(f"{FRONT}/token", json={"grant_type": "refresh_token"})

        async def endless() -> Any:  # chunked, no content-length: cut off at 64 KiB
            for _ in range(1000):
                yield b"x" * 4096

        streamed = await http.post(f"{FRONT}/register", content=endless())
    assert answers == [201, 201, 429, 429]
    assert hostile.status_code == 400 and "<script>" not in hostile.text
    for refused in (repeated, huge, json_body):
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_request"
    assert streamed.status_code == 400 and "too large" in streamed.json()["error_description"]


@pytest.mark.parametrize(("needs", "granted"), [
    (["notes:write"], "mcp:tools notes:write"),  # the upstream grants it: so does the front
    (["offline_access"], "mcp:tools"),  # the upstream drops it (no refresh grant): not granted
])  # fmt: skip
async def test_mapped_scopes_are_asked_upstream_and_granted_only_if_granted_there(
    upstream: AuthorizationServer, live_server: LiveServers, needs: list[str], granted: str
) -> None:
    scope_map = {"mcp:tools": [], "notes:write": needs}
    app = load("authorization_server").create_app(front_env(upstream.issuer), scope_map=scope_map)
    live_server(app, port=FRONT_PORT)
    seen: list[str] = []
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
        url = _authorize_url(client_id, scope="mcp:tools notes:write")
        back = httpx.URL(await browser(url, seen))
        tokens = (await http.post(f"{FRONT}/token",
                                  data=_exchange(client_id, back.params["code"]))).json()
    [asked] = [u for u in seen if u.startswith(upstream.issuer + "/auth?")]
    assert httpx.URL(asked).params["scope"].split() == ["openid", *needs]
    assert tokens["scope"] == granted
    grant = await app.state.front.grants.refresh_grant(tokens["refresh_token"])
    upstream_tokens = app.state.front.grants.upstream_tokens(grant)  # kept here, not sent
    assert upstream_tokens["scope"] == " ".join(["openid", *needs][: 1 + (granted != "mcp:tools")])
    assert upstream_tokens["access_token"] not in str(tokens)


async def test_the_sign_in_needs_an_id_token_the_front_accepts(served: Any) -> None:
    app, _ = served
    seen: list[str] = []
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
        good = httpx.URL(await browser(_authorize_url(client_id), seen))
        assert "code" in good.params
        [asked] = [httpx.URL(u) for u in seen if "/auth?" in u]
        assert len(asked.params["nonce"]) >= 32  # a nonce per sign-in, checked in the ID token
        app.state.front.upstream.id_token_algorithms = ("ES256",)  # the provider signs RS256
        back = httpx.URL(await browser(_authorize_url(client_id)))
    assert back.params["error"] == "server_error" and "code" not in back.params

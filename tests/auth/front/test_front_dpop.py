"""The front with DPoP (``AuthorizationFront(dpop=DPoPPolicy(...))``) and genmcp's client
(``OAuth(dpop=DPoP())``) end to end, in both eras: the token endpoint demands its nonce
(400 ``use_dpop_nonce``; the client had it from the resource's first challenge), binds the
tokens to the client's key (``cnf.jkt``, ``token_type: DPoP``), the resource takes them
only with proofs (a step-up gets a new bound token); the bound token shown as ``Bearer`` is
refused; a token request whose proof is refused does not spend the code (the same code then
works with a good proof); the refresh tokens are bound to the key too.
"""

from __future__ import annotations

from typing import Any

import httpx
import jwt
import pytest

from genmcp.auth import DPoPNonces, DPoPPolicy
from genmcp.client import Client, DPoP
from genmcp.client.oauth import OAuth
from support.authorization_server import AuthorizationServer
from support.examples import load
from support.oauth import call_message
from support.recorder import Recorder
from support.server import LiveServers

from .conftest import CLIENT_REDIRECT, FRONT, FRONT_PORT, MCP, browser, front_env
from .test_front import _code, _exchange, _register


@pytest.fixture
def served(upstream: AuthorizationServer, live_server: LiveServers) -> Any:
    policy = DPoPPolicy(nonces=DPoPNonces("front-dpop-nonce-key"))
    app = load("authorization_server").create_app(front_env(upstream.issuer), dpop=policy)
    wire = Recorder(app)
    live_server(wire, port=FRONT_PORT)
    return app, wire


@pytest.mark.parametrize("era", [None, "2025-11-25"], ids=["2026-07-28", "2025-11-25"])
async def test_the_client_gets_bound_tokens_and_proves_them(served: Any, era: str | None) -> None:
    _, wire = served
    key = DPoP()
    auth = OAuth(authorize=browser, redirect_uri=CLIENT_REDIRECT, dpop=key)
    async with Client(MCP, auth=auth, protocol=era) as client:
        who = await client.call_tool("whoami", {})
        wrote = await client.call_tool("write_note", {"text": "bound"})  # 403: a new token
        after = await client.call_tool("whoami", {})
    assert who["structuredContent"]["principal"] == "alice"
    assert wrote["content"][0]["text"] == "Stored note #1."
    assert "notes:write" in after["structuredContent"]["scopes"]
    assert auth.token_type == "dpop" and auth.access_token is not None
    claims = jwt.decode(auth.access_token, options={"verify_signature": False})
    assert claims["cnf"] == {"jkt": key.thumbprint}
    tokens = [e for e in wire.exchanges if e.path == "/token"]
    # the resource's first 401 gave the nonce (one origin, one policy): no nonce round trip
    assert [e.status for e in tokens] == [200, 200] and all("dpop" in e.headers for e in tokens)
    resource = [e for e in wire.exchanges if e.path == "/mcp"]
    assert all(e.headers.get("authorization", "DPoP").startswith("DPoP") for e in resource)
    assert all("dpop" in e.headers for e in resource if "authorization" in e.headers)
    async with httpx.AsyncClient(trust_env=False) as http:
        stolen = await http.post(MCP, json=call_message("whoami", {}, 1), headers={
            "authorization": f"Bearer {auth.access_token}", "accept": "application/json, "
            "text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
            "mcp-name": "whoami"})  # fmt: skip
    assert stolen.status_code == 401 and stolen.headers["www-authenticate"].startswith("DPoP ")
    assert 'error="invalid_token"' in stolen.headers["www-authenticate"]


async def test_a_refused_proof_does_not_spend_the_code(served: Any) -> None:
    key = DPoP()
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
        code = await _code(client_id)
        form = _exchange(client_id, code)
        asked = await http.post(f"{FRONT}/token", data=form,
                                headers={"dpop": key.proof("POST", f"{FRONT}/token")})  # fmt: skip
        key.remember(f"{FRONT}/token", asked)
        elsewhere = key.proof("POST", f"{FRONT}/elsewhere")
        wrong = await http.post(f"{FRONT}/token", data=form, headers={"dpop": elsewhere})
        good = await http.post(f"{FRONT}/token", data=form,
                               headers={"dpop": key.proof("POST", f"{FRONT}/token")})  # fmt: skip
        metadata = (await http.get(f"{FRONT}/.well-known/oauth-authorization-server")).json()
        # the refresh token is bound too: the same key renews, another key (or none) cannot
        refresh = {"grant_type": "refresh_token", "client_id": client_id}
        renewed = await http.post(f"{FRONT}/token", headers={"dpop": key.proof(
            "POST", f"{FRONT}/token")}, data={**refresh, "refresh_token": good.json()[
                "refresh_token"]})  # fmt: skip
        thief = DPoP()
        thief.remember(f"{FRONT}/token", asked)
        stolen = await http.post(f"{FRONT}/token", headers={"dpop": thief.proof(
            "POST", f"{FRONT}/token")}, data={**refresh, "refresh_token": renewed.json()[
                "refresh_token"]})  # fmt: skip
    assert renewed.status_code == 200 and renewed.json()["token_type"] == "DPoP"
    assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_grant"
    assert asked.status_code == 400 and asked.json()["error"] == "use_dpop_nonce"
    assert asked.headers["dpop-nonce"]
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_dpop_proof"
    assert good.status_code == 200, good.text
    assert good.json()["token_type"] == "DPoP"
    bound = jwt.decode(good.json()["access_token"], options={"verify_signature": False})
    assert bound["cnf"]["jkt"] == key.thumbprint
    assert "ES256" in metadata["dpop_signing_alg_values_supported"]

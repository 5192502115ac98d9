"""client.dpop through OAuth(dpop=...): DPoP-bound tokens from a real authorization server
(oidc-provider, which demands its DPoP nonce here) used on examples/protected_app.py behind a
DPoP resource gate (tests/support/dpop_gate.py: proof checks, replay refusal, its own nonces).

The suite's `auth/dpop` and `auth/dpop-nonce` client scenarios (`make conformance-client`)
cover the plain flows against its mock servers; these are the hostile ones: both servers'
nonce challenges, a nonce that rotates mid-session, a server whose nonce can never be met,
concurrent requests (a proof is never reused), a key algorithm the AS does not take.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import jwt
import pytest

from genmcp.client import Client, ClientError, DPoP, OAuth, SigningKey
from support.authorization_server import (
    CLIENTS,
    AuthorizationServer,
)
from support.dpop_gate import DPoPGate, thumbprint
from support.examples import load
from support.ports import listening
from support.server import LiveServers

ERAS = [None, "2025-11-25"]


def serve(live_server: LiveServers, issuer: str, **gate: Any) -> tuple[str, DPoPGate]:
    held = listening(0)  # held until the server serves it
    port = held.getsockname()[1]
    mcp = f"http://127.0.0.1:{port}/mcp"
    app = load("protected_app").create_app({"MCP_RESOURCE": mcp, "MCP_ISSUER": issuer})
    wall = DPoPGate(app, mcp, **gate)
    live_server(wall, sock=held)
    return mcp, wall


def oauth(dpop: DPoP) -> OAuth:
    return OAuth(client_id="alice", client_secret=CLIENTS["alice"], grant="client_credentials",
                 dpop=dpop)  # fmt: skip


@pytest.mark.parametrize("era", ERAS, ids=["2026-07-28", "2025-11-25"])
async def test_bound_token_both_nonces_rotation_and_step_up(
    authorization_server: AuthorizationServer, live_server: LiveServers, era: str | None
) -> None:
    mcp, gate = serve(live_server, authorization_server.issuer, nonces=True, rotate_every=3)
    key = DPoP()
    auth = oauth(key)
    async with Client(mcp, auth=auth, protocol=era) as client:
        for _ in range(3):
            assert (await client.call_tool("whoami", {}))["structuredContent"]["principal"] == (
                "alice")  # fmt: skip
        wrote = await client.call_tool("write_note", {"text": "bound"})  # 403: a new token

    assert wrote["content"][0]["text"] == "Stored note #1."
    assert auth.token_type == "dpop" and auth.access_token is not None
    claims = jwt.decode(auth.access_token, options={"verify_signature": False})
    assert claims["cnf"]["jkt"] == key.thumbprint == thumbprint(key.key.public_jwk)
    nonce_refusals = [r for r in gate.refusals if r.startswith("use_dpop_nonce")]
    assert len(nonce_refusals) >= 2  # the first request, and after each rotation
    assert not [r for r in gate.refusals if not r.startswith("use_dpop_nonce")]
    jtis = [proof["jti"] for proof in gate.proofs]
    assert len(jtis) == len(set(jtis)) and all("?" not in p["htu"] for p in gate.proofs)


async def test_concurrent_requests_never_share_a_proof(
    authorization_server: AuthorizationServer, live_server: LiveServers
) -> None:
    mcp, gate = serve(live_server, authorization_server.issuer, nonces=True, rotate_every=5)
    async with Client(mcp, auth=oauth(DPoP())) as client:
        await client.list_tools()
        results = await asyncio.gather(*(client.call_tool("whoami", {}) for _ in range(12)))

    assert all(r["structuredContent"]["principal"] == "alice" for r in results)
    assert not [r for r in gate.refusals if "replayed" in r]
    jtis = [proof["jti"] for proof in gate.proofs]
    assert len(jtis) == len(set(jtis)) >= 13


async def test_a_nonce_that_can_never_be_met_is_not_chased(
    authorization_server: AuthorizationServer, live_server: LiveServers
) -> None:
    mcp, gate = serve(live_server, authorization_server.issuer, nonces=True, always_new_nonce=True)
    async with Client(mcp, auth=oauth(DPoP())) as client:
        with pytest.raises(ClientError) as raised:
            await client.list_tools()

    assert raised.value.status == 401
    assert 1 <= len(gate.refusals) <= 4  # bounded: OAuth.MAX_ROUNDS tries at most


async def test_a_key_algorithm_the_server_does_not_take_is_a_clear_error(
    authorization_server: AuthorizationServer, live_server: LiveServers
) -> None:
    mcp, gate = serve(live_server, authorization_server.issuer)
    async with Client(mcp, auth=oauth(DPoP(alg="RS256"))) as client:
        with pytest.raises(ClientError, match=r"DPoP proofs signed with .*not RS256"):
            await client.list_tools()
    assert gate.proofs == []


def test_proofs_are_fresh_and_name_the_request() -> None:
    key = SigningKey.generate("ES256")
    dpop = DPoP(key)
    first = dpop.proof("post", "https://mcp.example/mcp?x=1#f", access_token="tok")
    second = dpop.proof("POST", "https://mcp.example/mcp", access_token="tok")
    header = jwt.get_unverified_header(first)
    assert header["typ"] == "dpop+jwt" and "d" not in header["jwk"]
    one, two = (jwt.decode(p, jwt.PyJWK(header["jwk"], "ES256"), algorithms=["ES256"])
                for p in (first, second))  # fmt: skip
    assert one["htm"] == "POST" and one["htu"] == "https://mcp.example/mcp"
    assert one["jti"] != two["jti"] and one["ath"] == two["ath"] and "nonce" not in one


def test_a_streamed_400_is_not_read_for_a_nonce() -> None:
    # a 2025-only server answers the era probe 400 on a streamed response: not a challenge
    dpop = DPoP()
    streamed = httpx.Response(400, stream=httpx.ByteStream(b'{"error": "use_dpop_nonce"}'))
    assert not dpop.wants_retry("http://mcp.example/mcp", None, streamed)
    read = httpx.Response(400, json={"error": "use_dpop_nonce"}, headers={"dpop-nonce": "n1"})
    assert dpop.wants_retry("http://as.example/token", None, read)
    assert not dpop.wants_retry("http://as.example/token", "n1", read)  # already sent it
    assert dpop.nonce("http://as.example/x") == "n1" and dpop.nonce("http://mcp.example") is None

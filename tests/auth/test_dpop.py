"""``DPoPPolicy`` (RFC 9449 §4.3) and ``OAuthResource(dpop=...)`` on the wire.

The policy's checks one by one, each with a proof that breaks exactly one rule (proofs from
genmcp's client key, ``genmcp.client.DPoP`` / ``SigningKey``, or hand-built where the client
would never send them); then a real uvicorn server (tests/support/dpop_app.py, one process):
the challenges (both schemes, ``algs``, the nonce before the first proof), a rotated nonce
on a 200 (the raw endpoint and the dependency form), DPoP-only mode,
the RFC 9728 metadata, and a replay cache that is down answering 503 + ``Retry-After``.
Across processes: tests/scenarios/test_dpop_nginx.py.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from genmcp.auth import DPoPNonces, DPoPPolicy
from genmcp.auth.dpop import DPoPProblem, bound_key, jwk_thumbprint
from genmcp.client import DPoP, SigningKey
from genmcp.client.jws import b64url
from genmcp.storage.memory import MemoryStores
from genmcp.storage.redis import RedisOptions, RedisProofReplays
from support.dpop_app import Tokens, create_app
from support.legacy_http import ACCEPT
from support.oauth import call_message
from support.ports import listening
from support.redis_server import free_port
from support.server import LiveServers

URL = "https://mcp.example.test/mcp"
TOKEN = "the.access.token"


def claims(**changes: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"jti": secrets.token_urlsafe(12), "htm": "POST", "htu": URL,
                             "iat": int(time.time()),
                             "ath": b64url(hashlib.sha256(TOKEN.encode()).digest())}  # fmt: skip
    found.update(changes)
    return {name: value for name, value in found.items() if value is not None}


def signed(key: SigningKey, body: dict[str, Any], **header: Any) -> str:
    return key.sign(body, {"typ": "dpop+jwt", "jwk": key.public_jwk, **header})


async def refused(policy: DPoPPolicy, proofs: list[str], token: str | None = TOKEN) -> str:
    with pytest.raises(DPoPProblem) as caught:
        await policy.verify(proofs, "POST", [URL], token)
    return f"{caught.value.error}: {caught.value.description}"


@pytest.mark.parametrize("alg", ["ES256", "ES384", "PS256", "RS256", "EdDSA"])
async def test_a_good_proof_gives_its_key_thumbprint(alg: str) -> None:
    client = DPoP(alg=alg)
    proof = await DPoPPolicy().verify([client.proof("post", URL + "?q=1", access_token=TOKEN)],
                                      "POST", [URL], TOKEN)  # fmt: skip
    assert proof.jkt == client.thumbprint == jwk_thumbprint(client.key.public_jwk)
    assert proof.claims["htu"] == URL


async def test_each_broken_rule_is_invalid_dpop_proof() -> None:
    policy, key = DPoPPolicy(), SigningKey.generate("ES256")
    other = SigningKey.generate("ES256")
    private = {**key.public_jwk, "d": "AAAA"}
    cases = {
        "exactly one": [signed(key, claims()), signed(key, claims())],
        "not a JWS": ["not-a-proof"],
        "typ": [key.sign(claims(), {"typ": "JWT", "jwk": key.public_jwk})],
        "alg is not": [signed(key, claims(), alg="HS256")],
        "private key": [signed(key, claims(), jwk=private)],
        "does not verify": [signed(other, claims(), jwk=key.public_jwk)],
        "P-256 key": [signed(SigningKey.generate("ES384"), claims(), alg="ES256")],
        "htm": [signed(key, claims(htm="GET"))],
        "htm ": [signed(key, claims(htm=None))],
        "htu ": [signed(key, claims(htu=None))],
        "iat is missing": [signed(key, claims(iat=None))],
        "jwk is missing": [key.sign(claims(), {"typ": "dpop+jwt"})],
        "htu": [signed(key, claims(htu="https://mcp.example.test/other"))],
        "iat": [signed(key, claims(iat=int(time.time()) - 120))],
        "iat ": [signed(key, claims(iat=int(time.time()) + 120))],
        " iat": [signed(key, claims(iat=True))],
        "ath": [signed(key, claims(ath=b64url(hashlib.sha256(b"another").digest())))],
        "ath ": [signed(key, claims(ath=None))],
        "jti": [signed(key, claims(jti="x" * 300))],
        " jti": [signed(key, claims(jti=None))],
        "too long": ["e" * 9000],
    }
    none = {"alg": "none", "typ": "dpop+jwt", "jwk": key.public_jwk}
    unsigned = b64url(json.dumps(none).encode())
    cases["alg is not "] = [f"{unsigned}.{b64url(json.dumps(claims()).encode())}."]
    small = SigningKey(rsa.generate_private_key(public_exponent=65537, key_size=1024), alg="RS256")
    cases["2048 bits"] = [signed(small, claims())]
    for expected, proofs in cases.items():
        found = await refused(policy, proofs)
        assert found.startswith("invalid_dpop_proof") and expected.strip() in found, expected
    assert "alg is not" in await refused(DPoPPolicy(algorithms=["EdDSA"]), [signed(key, claims())])


async def test_a_proof_is_taken_once_and_needs_the_nonce_when_asked() -> None:
    nonces = DPoPNonces("n" * 16)
    policy, key = DPoPPolicy(nonces=nonces), SigningKey.generate("ES256")
    assert (await refused(policy, [signed(key, claims())])).startswith("use_dpop_nonce")
    stale = nonces.at(time.time() - 2 * nonces.rotate_s - 1)
    assert (await refused(policy, [signed(key, claims(nonce=stale))])).startswith("use_dpop")
    good = signed(key, claims(nonce=nonces.current()))
    assert (await policy.verify([good], "POST", [URL], TOKEN)).claims["nonce"]
    assert "used before" in await refused(policy, [good])
    # at a token endpoint there is no access token: no ath needed
    bare = signed(key, claims(ath=None, nonce=nonces.current()))
    assert (await policy.verify([bare], "POST", [URL])).jkt == jwk_thumbprint(key.public_jwk)


def test_configuration_and_binding() -> None:
    with pytest.raises(ValueError, match="HS256"):
        DPoPPolicy(algorithms=["HS256"])
    with pytest.raises(TypeError, match="ProofReplays"):
        DPoPPolicy(replays=object())  # type: ignore[arg-type]
    assert bound_key({"cnf": {"jkt": "abc"}}) == "abc"
    assert bound_key({"cnf": "abc"}) is None and bound_key({}) is None


class Replays:
    """A bundle of another backend's parts, carrying only its replays (``WithReplays``)."""

    def __init__(self, replays: Any) -> None:
        self.replays = replays


def test_replays_are_a_store_or_the_replays_a_bundle_carries() -> None:
    stores = MemoryStores()
    assert DPoPPolicy(replays=stores).replays is stores.replays
    assert DPoPPolicy(replays=stores.replays).replays is stores.replays
    assert DPoPPolicy(replays=Replays(stores.replays)).replays is stores.replays
    with pytest.raises(TypeError, match="a ProofReplays or a storage bundle with one"):
        DPoPPolicy(replays=Replays("not a store"))


# -- on the wire: one process -------------------------------------------------------------


def mcp_headers(authorization: str | None = None, dpop: str | None = None) -> dict[str, str]:
    found = {"accept": ACCEPT, "mcp-method": "tools/call", "mcp-name": "pid",
             "mcp-protocol-version": "2026-07-28"}  # fmt: skip
    if authorization is not None:
        found["authorization"] = authorization
    if dpop is not None:
        found["dpop"] = dpop
    return found


def serve(live_server: LiveServers, policy: DPoPPolicy) -> tuple[str, Tokens]:
    held, tokens = listening(0), Tokens()  # held until the server serves it
    port = held.getsockname()[1]
    mcp = f"http://127.0.0.1:{port}/mcp"
    live_server(create_app(mcp, policy, tokens), sock=held)
    return mcp, tokens


async def test_challenges_name_both_schemes_algs_and_the_nonce(live_server: LiveServers) -> None:
    nonces = DPoPNonces("c" * 16)
    mcp, tokens = serve(live_server, DPoPPolicy(algorithms=["ES256", "EdDSA"], nonces=nonces))
    key = DPoP()
    token = tokens.issue(mcp, jkt=key.thumbprint)
    async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
        anonymous = await http.post(mcp, json=call_message("pid", {}, 1), headers=mcp_headers())
        key.remember(mcp, anonymous)  # the nonce came with the first challenge
        first = await http.post(mcp, json=call_message("pid", {}, 2), headers=mcp_headers(
            f"DPoP {token}", key.proof("POST", mcp, access_token=token)))  # fmt: skip
        metadata = await http.get(mcp.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"))

    challenges = anonymous.headers.get_list("www-authenticate")
    assert anonymous.status_code == 401 and len(challenges) == 2
    assert challenges[0].startswith("Bearer ") and "error" not in challenges[0]
    assert challenges[1].startswith("DPoP ") and 'algs="ES256 EdDSA"' in challenges[1]
    assert "resource_metadata=" in challenges[1]
    assert anonymous.headers["dpop-nonce"] == nonces.current()
    assert first.status_code == 200, first.text  # no nonce round trip: it was given up front
    assert metadata.json()["dpop_signing_alg_values_supported"] == ["ES256", "EdDSA"]
    assert "dpop_bound_access_tokens_required" not in metadata.json()


async def test_a_rotated_nonce_comes_on_a_successful_answer(live_server: LiveServers) -> None:
    """RFC 9449 §8.2: a proof taken with the previous window's nonce is answered 200 with the
    current one in ``DPoP-Nonce``, which genmcp's client keeps: its next proof carries it,
    no challenge in between. A proof with the current nonce gets no header."""
    nonces = DPoPNonces("r" * 16, rotate_s=10**6)  # windows of 11 days: no flip mid-test
    mcp, tokens = serve(live_server, DPoPPolicy(nonces=nonces))
    key = DPoP()
    token = tokens.issue(mcp, jkt=key.thumbprint)
    previous = nonces.at(time.time() - nonces.rotate_s)
    key.remember(mcp, httpx.Response(401, headers={"dpop-nonce": previous}))
    async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
        replies = []
        for i in range(2):
            proof = key.proof("POST", mcp, access_token=token)
            reply = await http.post(mcp, json=call_message("pid", {}, i),
                                    headers=mcp_headers(f"DPoP {token}", proof))  # fmt: skip
            key.remember(mcp, reply)
            replies.append(reply)
    rotated, steady = replies
    assert previous != nonces.current()
    assert rotated.status_code == 200, rotated.text
    assert rotated.headers["dpop-nonce"] == nonces.current()
    assert rotated.json()["result"]["content"][0]["text"].endswith(" alice")
    assert rotated.headers["x-pid"]  # the app's own headers are still there
    assert steady.status_code == 200 and "dpop-nonce" not in steady.headers
    assert key.nonce(mcp) == nonces.current()


async def test_dpop_only_refuses_every_bearer_token(live_server: LiveServers) -> None:
    mcp, tokens = serve(live_server, DPoPPolicy(required=True))
    async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
        bearer = await http.post(mcp, json=call_message("pid", {}, 1),
                                 headers=mcp_headers(f"Bearer {tokens.issue(mcp)}"))  # fmt: skip
        metadata = await http.get(mcp.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"))
    challenges = bearer.headers.get_list("www-authenticate")
    assert bearer.status_code == 401 and len(challenges) == 1
    assert challenges[0].startswith("DPoP ") and "error" not in challenges[0]
    assert "dpop-nonce" not in bearer.headers
    assert metadata.json()["dpop_bound_access_tokens_required"] is True
    # the official SDK (mcp 2.3.0: no DPoP client yet) reads the same fields from it
    from mcp.shared.auth import ProtectedResourceMetadata

    read = ProtectedResourceMetadata.model_validate(metadata.json())
    assert read.dpop_bound_access_tokens_required is True
    assert read.dpop_signing_alg_values_supported == list(DPoPPolicy().algorithms)


async def test_a_replay_cache_that_is_down_is_503_never_an_unchecked_proof(
    live_server: LiveServers,
) -> None:
    options = RedisOptions(connect_timeout_s=0.5, deadline_s=0.5, retries=0)
    down = RedisProofReplays.from_url(f"redis://127.0.0.1:{free_port()}/0", options=options)
    mcp, tokens = serve(live_server, DPoPPolicy(replays=down))
    key = DPoP()
    token = tokens.issue(mcp, jkt=key.thumbprint)
    async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
        reply = await http.post(mcp, json=call_message("pid", {}, 1), headers=mcp_headers(
            f"DPoP {token}", key.proof("POST", mcp, access_token=token)))  # fmt: skip
    await down.aclose()
    assert reply.status_code == 503 and int(reply.headers["retry-after"]) >= 1


async def test_the_dependency_form_checks_proofs_too(live_server: LiveServers) -> None:
    """``mcp_router(dependencies=...)`` runs the resource as a FastAPI dependency (an API
    route): the proof is checked against the request's URL there."""
    from fastapi import Depends, FastAPI

    from genmcp import mcp_router
    from genmcp.auth import OAuthResource
    from support.dpop_app import ISSUER, Pid

    async def nothing() -> None:
        return None

    held, tokens = listening(0), Tokens()  # held until the server serves it
    port = held.getsockname()[1]
    mcp = f"http://127.0.0.1:{port}/mcp"
    resource = OAuthResource(resource=mcp, authorization_servers=[ISSUER],
                             verifier=tokens.verifier(), dpop=DPoPPolicy())  # fmt: skip
    app = FastAPI()
    app.include_router(mcp_router(server_name="d", server_version="1", tools=[Pid], auth=resource,
                                  dependencies=[Depends(nothing)]), prefix="/mcp")  # fmt: skip
    live_server(app, sock=held)
    key = DPoP()
    token = tokens.issue(mcp, jkt=key.thumbprint)
    async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
        proof = key.proof("POST", mcp, access_token=token)
        good = await http.post(mcp, json=call_message("pid", {}, 1),
                               headers=mcp_headers(f"DPoP {token}", proof))  # fmt: skip
        replay = await http.post(mcp, json=call_message("pid", {}, 2),
                                 headers=mcp_headers(f"DPoP {token}", proof))  # fmt: skip
        bearer = await http.post(mcp, json=call_message("pid", {}, 3),
                                 headers=mcp_headers(f"Bearer {token}"))  # fmt: skip
    assert good.status_code == 200, good.text
    assert replay.status_code == 401 and "invalid_dpop_proof" in replay.headers["www-authenticate"]
    assert bearer.status_code == 401 and "invalid_token" in bearer.headers["www-authenticate"]


async def test_the_dependency_form_sends_a_rotated_nonce_and_hides_it(
    live_server: LiveServers,
) -> None:
    """Through an API route too (``dependencies=``): the current nonce comes on the 200 of a
    proof that carried the previous one, and the tool's assigns never hold the entry that
    carried it (``transports.http.auth.RESPONSE_HEADERS``)."""
    from fastapi import Depends, FastAPI

    from genmcp import Channel, Result, Tool, ToolRequest, call_tool_result, mcp_router
    from genmcp.auth import OAuthResource
    from support.dpop_app import ISSUER

    class Keys(Tool, name="pid"):
        async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
            return Result(call_tool_result(text=",".join(sorted(channel.assigns))))

    async def nothing() -> None:
        return None

    nonces = DPoPNonces("d" * 16, rotate_s=10**6)
    held, tokens = listening(0), Tokens()  # held until the server serves it
    port = held.getsockname()[1]
    mcp = f"http://127.0.0.1:{port}/mcp"
    policy = DPoPPolicy(nonces=nonces)
    resource = OAuthResource(resource=mcp, authorization_servers=[ISSUER],
                             verifier=tokens.verifier(), dpop=policy)  # fmt: skip
    app = FastAPI()
    app.include_router(mcp_router(server_name="d", server_version="1", tools=[Keys],
                                  auth=resource, dependencies=[Depends(nothing)]),
                       prefix="/mcp")  # fmt: skip
    live_server(app, sock=held)
    key = DPoP()
    token = tokens.issue(mcp, jkt=key.thumbprint)
    key.remember(mcp, httpx.Response(401, headers={"dpop-nonce": nonces.at(time.time() - 10**6)}))
    async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
        reply = await http.post(mcp, json=call_message("pid", {}, 1), headers=mcp_headers(
            f"DPoP {token}", key.proof("POST", mcp, access_token=token)))  # fmt: skip
    assert reply.status_code == 200, reply.text
    assert reply.headers["dpop-nonce"] == nonces.current()
    keys = reply.json()["result"]["content"][0]["text"].split(",")
    assert "principal" in keys and not any("response_headers" in name for name in keys)

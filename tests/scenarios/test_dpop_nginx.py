"""Server-side DPoP across three real uvicorn processes behind a real nginx, on one Redis.

`tests/support/dpop_app.py` in three processes (`OAuthResource(dpop=DPoPPolicy(...))`, the
proofs' `jti` in `RedisStores`, nonces from one shared `DPoPNonces` key), nginx round-robin
in front (tests/support/topology.py). On the wire: a proof accepted by one process is
refused by the others (straight to each process, and through nginx); a proof without the
server's nonce, with a stale or a forged one, is challenged (`use_dpop_nonce` with a fresh
`DPoP-Nonce` that any process accepts); a DPoP-bound token presented as `Bearer` is refused;
`ath` and `htu` mismatches are refused, all on one kept-alive connection to nginx; a
2025-11-25 session runs over every process with
a fresh proof per request. Proofs come from genmcp's client key (`genmcp.client.DPoP`).
"""

from __future__ import annotations

import errno
import hashlib
import secrets
import socket
import time
import uuid
from collections.abc import Iterator
from typing import Any, Final

import httpx
import pytest

from genmcp.auth import DPoPNonces
from genmcp.client import DPoP
from genmcp.client.jws import b64url
from support.dpop_app import Tokens
from support.legacy_http import ACCEPT
from support.oauth import call_message
from support.redis_server import OwnRedis, require_redis_server
from support.topology import Nginx, Processes, require_nginx

SUPPORT: Final = __import__("pathlib").Path(__file__).resolve().parents[1] / "support"
NONCE_KEY: Final = "dpop-nonce-key-for-the-three-processes"
LEGACY: Final = "2025-11-25"


class Deployment:
    def __init__(self, mcp: str, ports: list[int], tokens: Tokens, env: dict[str, str]) -> None:
        self.mcp, self.ports, self.tokens, self.env = mcp, ports, tokens, env

    def direct(self, index: int) -> str:
        return f"http://127.0.0.1:{self.ports[index]}/mcp"


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    nginx_binary, redis = require_nginx(), OwnRedis(require_redis_server())
    redis.start()
    tokens = Tokens()
    env = {"REDIS_URL": redis.url, "DPOP_PREFIX": f"dpop-{uuid.uuid4().hex[:8]}:",
           "DPOP_KEY": tokens.pem, "DPOP_NONCE_KEY": NONCE_KEY,
           "GENMCP_SECRET_KEY": "dpop-scenario-not-a-secret-0123456789abcdef"}  # fmt: skip
    processes = Processes(3, env, app="dpop_app:app", app_dir=SUPPORT)
    nginx = Nginx(nginx_binary, processes.ports)
    processes.env["DPOP_RESOURCE"] = f"{nginx.url}/mcp"
    processes.start()
    nginx.start()
    try:
        yield Deployment(f"{nginx.url}/mcp", processes.ports, tokens,
                         {**env, "DPOP_RESOURCE": f"{nginx.url}/mcp"})  # fmt: skip
    finally:
        nginx.stop()
        processes.stop()
        redis.close()


def proof(key: DPoP, htu: str, token: str, *, nonce: str | None = None,
          ath_of: str | None = None, method: str = "POST") -> str:  # fmt: skip
    """A proof signed by `key` for `htu`, over `ath_of`'s hash (the token's by default)."""
    claims: dict[str, Any] = {"jti": secrets.token_urlsafe(12), "htm": method, "htu": htu,
                              "iat": int(time.time())}  # fmt: skip
    if nonce is not None:
        claims["nonce"] = nonce
    claims["ath"] = b64url(hashlib.sha256((ath_of or token).encode()).digest())
    return key.key.sign(claims, {"typ": "dpop+jwt", "jwk": key.key.public_jwk})


def headers(token: str, dpop: str | None, scheme: str = "DPoP") -> dict[str, str]:
    found = {"authorization": f"{scheme} {token}", "accept": ACCEPT, "mcp-method": "tools/call",
             "mcp-name": "pid", "mcp-protocol-version": "2026-07-28"}  # fmt: skip
    if dpop is not None:
        found["dpop"] = dpop
    return found


async def post(http: httpx.AsyncClient, url: str, head: dict[str, str]) -> httpx.Response:
    return await http.post(url, json=call_message("pid", {}, 1), headers=head)


def error_of(reply: httpx.Response) -> str:
    """The DPoP challenge's error (and that the challenge is a DPoP one)."""
    challenge = reply.headers.get("www-authenticate", "")
    assert reply.status_code == 401 and challenge.startswith("DPoP "), (reply, challenge)
    assert 'algs="ES256' in challenge
    return challenge.split('error="', 1)[1].split('"', 1)[0]


async def current_nonce(http: httpx.AsyncClient, deployment: Deployment) -> str:
    key = DPoP()
    token = deployment.tokens.issue(deployment.mcp, jkt=key.thumbprint)
    reply = await post(http, deployment.mcp, headers(token, proof(key, deployment.mcp, token)))
    assert error_of(reply) == "use_dpop_nonce"
    return reply.headers["dpop-nonce"]


async def test_a_proof_replayed_on_another_process_is_refused(deployment: Deployment) -> None:
    key = DPoP()
    token = deployment.tokens.issue(deployment.mcp, jkt=key.thumbprint)
    async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
        nonce = await current_nonce(http, deployment)
        # straight to each process: the configured resource is the proof's htu
        once = headers(token, proof(key, deployment.mcp, token, nonce=nonce))
        first = await post(http, deployment.direct(0), once)
        again = [await post(http, deployment.direct(i), once) for i in (1, 2)]
        # through nginx: a fresh proof sent three times, round-robin over the processes
        twice = headers(token, proof(key, deployment.mcp, token, nonce=nonce))
        spread = [await post(http, deployment.mcp, twice) for _ in range(3)]

    assert first.status_code == 200, first.text
    assert first.json()["result"]["content"][0]["text"].endswith(" alice")
    for reply in again:
        assert error_of(reply) == "invalid_dpop_proof" and "used before" in reply.text
    pids = {first.headers["x-pid"], *(reply.headers["x-pid"] for reply in again)}
    assert len(pids) == 3  # three processes, one replay cache
    accepted = [reply for reply in spread if reply.status_code == 200]
    refused = [reply for reply in spread if reply.status_code != 200]
    assert len(accepted) == 1 and len(refused) == 2
    assert all(error_of(reply) == "invalid_dpop_proof" for reply in refused)
    assert len({reply.headers["x-pid"] for reply in spread}) == 3


async def test_a_missing_stale_or_forged_nonce_is_challenged(deployment: Deployment) -> None:
    key = DPoP()
    token = deployment.tokens.issue(deployment.mcp, jkt=key.thumbprint)
    nonces = DPoPNonces(NONCE_KEY)
    stale = nonces.at(time.time() - 3 * nonces.rotate_s)
    forged = DPoPNonces("another key of sixteen bytes").current()
    async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
        def signed(nonce: str | None) -> dict[str, str]:
            return headers(token, proof(key, deployment.mcp, token, nonce=nonce))

        asked_at = time.time()
        missing = await post(http, deployment.mcp, signed(None))
        given = missing.headers["dpop-nonce"]
        refused = [await post(http, deployment.mcp, signed(bad)) for bad in (stale, forged)]
        # the nonce one process gave is taken by every process
        taken = [await post(http, deployment.direct(i), signed(given)) for i in range(3)]

    # the nonce of the window the request was answered in: a rotation (every 300 s) may
    # fall between the asking and the checking
    assert error_of(missing) == "use_dpop_nonce"
    assert given in {nonces.at(asked_at), nonces.current()}
    for reply in refused:
        assert error_of(reply) == "use_dpop_nonce"
        assert reply.headers["dpop-nonce"] in {given, nonces.current()}
    assert [reply.status_code for reply in taken] == [200, 200, 200]


async def test_a_bound_token_presented_as_bearer_is_refused(deployment: Deployment) -> None:
    key = DPoP()
    bound = deployment.tokens.issue(deployment.mcp, jkt=key.thumbprint)
    plain = deployment.tokens.issue(deployment.mcp)
    async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
        as_bearer = await post(http, deployment.mcp, headers(bound, None, "Bearer"))
        # even with a good proof beside it: the scheme says bearer
        nonce = await current_nonce(http, deployment)
        with_proof = await post(http, deployment.mcp, headers(
            bound, proof(key, deployment.mcp, bound, nonce=nonce), "Bearer"))  # fmt: skip
        # an unbound token shown with the DPoP scheme is refused too; as bearer it passes
        unbound = await post(http, deployment.mcp, headers(
            plain, proof(key, deployment.mcp, plain, nonce=nonce)))  # fmt: skip
        bearer = await post(http, deployment.mcp, headers(plain, None, "Bearer"))

    for reply in (as_bearer, with_proof):
        assert error_of(reply) == "invalid_token" and "DPoP scheme" in reply.text
    assert error_of(unbound) == "invalid_token" and "not bound" in unbound.text
    assert bearer.status_code == 200, bearer.text


async def test_ath_and_htu_mismatches_are_refused(deployment: Deployment) -> None:
    key = DPoP()
    token = deployment.tokens.issue(deployment.mcp, jkt=key.thumbprint)
    other = deployment.tokens.issue(deployment.mcp, jkt=key.thumbprint, sub="bob")
    elsewhere = deployment.mcp.replace("/mcp", "/other")
    async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
        nonce = await current_nonce(http, deployment)
        ath = await post(http, deployment.mcp, headers(
            token, proof(key, deployment.mcp, token, nonce=nonce, ath_of=other)))  # fmt: skip
        htu = await post(http, deployment.mcp, headers(
            token, proof(key, elsewhere, token, nonce=nonce)))  # fmt: skip
        htm = await post(http, deployment.mcp, headers(
            token, proof(key, deployment.mcp, token, nonce=nonce, method="GET")))  # fmt: skip
        # a token for another resource, even with a good proof
        foreign = deployment.tokens.issue("https://elsewhere.test/mcp", jkt=key.thumbprint)
        audience = await post(http, deployment.mcp, headers(
            foreign, proof(key, deployment.mcp, foreign, nonce=nonce)))  # fmt: skip
        # another key's proof for this token (the token is bound to `key`)
        thief = DPoP()
        stolen = await post(http, deployment.mcp, headers(
            token, proof(thief, deployment.mcp, token, nonce=nonce)))  # fmt: skip

    assert error_of(ath) == "invalid_dpop_proof" and "ath" in ath.text
    assert error_of(htu) == "invalid_dpop_proof" and "htu" in htu.text
    assert error_of(htm) == "invalid_dpop_proof" and "htm" in htm.text
    assert error_of(stolen) == "invalid_token" and "not bound" in stolen.text
    assert error_of(audience) == "invalid_token" and "not issued for this" in audience.text
    # one kept-alive connection to nginx for all five: refused before its body is read, a
    # request passed on unbuffered often ended it (the next request lost: "Server
    # disconnected without sending a response"); nginx now reads each body first
    streams = [reply.extensions["network_stream"] for reply in (ath, htu, htm, audience, stolen)]
    assert all(stream is streams[0] for stream in streams)


async def test_a_legacy_session_runs_over_every_process_with_fresh_proofs(
    deployment: Deployment,
) -> None:
    key = DPoP()
    token = deployment.tokens.issue(deployment.mcp, jkt=key.thumbprint)
    pids: set[str] = set()
    async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
        nonce = await current_nonce(http, deployment)

        async def send(body: dict[str, Any], extra: dict[str, str]) -> httpx.Response:
            head = {"authorization": f"DPoP {token}", "accept": ACCEPT,
                    "dpop": proof(key, deployment.mcp, token, nonce=nonce), **extra}  # fmt: skip
            reply = await http.post(deployment.mcp, json=body, headers=head)
            pids.add(reply.headers["x-pid"])
            return reply

        init = {"protocolVersion": LEGACY, "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}  # fmt: skip
        opened = await send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init},
                            {})  # fmt: skip
        assert opened.status_code == 200, opened.text
        session = {"mcp-session-id": opened.headers["mcp-session-id"],
                   "mcp-protocol-version": LEGACY}  # fmt: skip
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await send(note, session)).status_code == 202
        pid = {"name": "pid", "arguments": {}}
        calls = [
            await send({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": pid}, session)
            for n in range(1, 4)
        ]

    for reply in calls:
        assert reply.status_code == 200, reply.text
        assert "alice" in reply.text
    assert len(pids) == 3


def test_a_process_port_cannot_be_taken_before_its_process_serves_it(
    deployment: Deployment,
) -> None:
    """The cause of a flake (1 run in 30): a first proof without a nonce answered 200. A port
    picked free was given to uvicorn only at its start; meanwhile another test's server (this
    machine runs several test runs at once) took it, the deployment's check that something
    listens passed, and nginx sent the first request to that server, an MCP app without auth.
    Forced here: another listener tries the port between the pick and the start."""
    group = Processes(1, deployment.env, app="dpop_app:app", app_dir=SUPPORT)
    try:
        with socket.socket() as other:
            other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            with pytest.raises(OSError) as taken:
                other.bind(("127.0.0.1", group.ports[0]))
                other.listen()
        assert taken.value.errno == errno.EADDRINUSE
        group.start()
        pid = group.pid(0)
        key = DPoP()
        token = deployment.tokens.issue(deployment.mcp, jkt=key.thumbprint)
        url = f"http://127.0.0.1:{group.ports[0]}/mcp"
        with httpx.Client(timeout=30, trust_env=False) as http:
            signed = headers(token, proof(key, deployment.mcp, token))  # no nonce
            reply = http.post(url, json=call_message("pid", {}, 1), headers=signed)
    finally:
        group.stop()
    assert error_of(reply) == "use_dpop_nonce"
    assert reply.headers["x-pid"] == str(pid)  # the process it started answered, no other

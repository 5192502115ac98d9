"""The front on three uvicorn processes sharing a Redis of the test's own: a client registers
on the first, signs in through the second (the upstream's callback lands on the first: the
issuer's origin), exchanges its code there, calls the MCP endpoint and refreshes on the
third; a revocation on the first is honoured by the second. Nothing is shared but Redis and
the configured keys (examples/authorization_server.py with ``OAUTH_FRONT_REDIS_URL``).
That one is opt-in (three processes: 5 s idle, 15 s on a loaded machine): ``make auth-front``
runs it, with ``GENMCP_AUTH_FRONT=1``. A front whose Redis is down answers 503.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from genmcp.auth.front.grants import pkce_challenge
from genmcp.client import Client, ClientError
from support.authorization_server import AuthorizationServer
from support.examples import load
from support.redis_server import OwnRedis, free_port, require_redis_server
from support.topology import Processes, wait_port

from .conftest import CLIENT_REDIRECT, FRONT_PORT, MCP, front_env
from .test_front import Bearer

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
VERIFIER = "r" * 50
CONSENT_ID = re.compile(r'name=consent value="([^"]+)"')


@pytest.fixture
def processes(upstream: AuthorizationServer) -> Iterator[list[str]]:
    redis = OwnRedis(require_redis_server())
    redis.start()
    key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())  # fmt: skip
    env = {**front_env(upstream.issuer), "OAUTH_FRONT_REDIS_URL": redis.url,
           "OAUTH_FRONT_SIGNING_KEY": key.decode(),
           "OAUTH_FRONT_TOKEN_KEY": Fernet.generate_key().decode()}  # fmt: skip
    group = Processes(3, env, app="authorization_server:app", app_dir=EXAMPLES)
    group.ports[0] = FRONT_PORT  # the issuer's origin: the upstream's redirect URI is there
    try:
        for index in range(3):
            group.start_one(index)
        for index, port in enumerate(group.ports):
            process = group.processes[index]
            assert process is not None
            try:
                wait_port(port, process, within=45)  # three imports at once, on a loaded machine
            except RuntimeError as exc:
                raise RuntimeError(f"{exc}: {group.log(index)[-1500:]}") from None
        yield group.urls()
    finally:
        group.stop()
        redis.stop()


async def _sign_in(http: httpx.AsyncClient, front: str, client_id: str) -> str:
    """The browser: /authorize and the consent on `front`, then the upstream and its callback
    (wherever they send it), up to the client's redirect URI; the code."""
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": CLIENT_REDIRECT,
             "code_challenge": pkce_challenge(VERIFIER), "code_challenge_method": "S256",
             "state": "s", "scope": "mcp:tools", "resource": MCP}  # fmt: skip
    page = await http.get(f"{front}/authorize", params=query)
    found = CONSENT_ID.search(page.text)
    assert page.status_code == 200 and found is not None, page.text[:300]
    response = await http.post(f"{front}/authorize/consent",
                               data={"consent": found.group(1), "decision": "approve"})
    seen = []
    for _ in range(10):
        assert response.status_code in (302, 303), (response.status_code, response.text[:300])
        url = str(response.url.join(response.headers["location"]))
        seen.append(url)
        if url.startswith(CLIENT_REDIRECT):
            assert any(u.startswith(f"{MCP[:-4]}/oauth/callback") for u in seen)
            return httpx.URL(url).params["code"]
        response = await http.get(url)
    raise AssertionError(f"no code: {seen}")


async def _whoami(front: str, token: str) -> str | None:
    """The principal `front`'s MCP endpoint sees for `token`; None when it refuses it."""
    try:
        async with Client(f"{front}/mcp", auth=Bearer(token)) as client:
            called = await client.call_tool("whoami", {})
    except ClientError as exc:
        assert "Unauthorized" in str(exc), exc
        return None
    principal: str = called["structuredContent"]["principal"]
    return principal


@pytest.mark.skipif(not os.environ.get("GENMCP_AUTH_FRONT"), reason="opt-in: make auth-front")
async def test_register_on_one_authorize_on_another_refresh_on_a_third(
    processes: list[str],
) -> None:
    one, two, three = processes
    async with httpx.AsyncClient(trust_env=False, timeout=10) as http:
        registered = await http.post(f"{one}/register", json={
            "redirect_uris": [CLIENT_REDIRECT],
            "grant_types": ["authorization_code", "refresh_token"]})  # fmt: skip
        assert registered.status_code == 201, registered.text
        client_id = registered.json()["client_id"]
        code = await _sign_in(http, two, client_id)
        exchange = {"grant_type": "authorization_code", "code": code, "client_id": client_id,
                    "redirect_uri": CLIENT_REDIRECT, "code_verifier": VERIFIER}  # fmt: skip
        tokens = await http.post(f"{two}/token", data=exchange)
        assert tokens.status_code == 200, tokens.text
        first = tokens.json()
        replay = await http.post(f"{three}/token", data=exchange)  # the code is spent everywhere
        assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"

        code = await _sign_in(http, two, client_id)  # a grant the replay did not revoke
        first = (await http.post(f"{two}/token", data={**exchange, "code": code})).json()
        assert await _whoami(three, first["access_token"]) == "alice"
        refresh = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"],
                   "client_id": client_id}  # fmt: skip
        renewed = await http.post(f"{three}/token", data=refresh)
        assert renewed.status_code == 200, renewed.text
        fresh = renewed.json()
        assert fresh["refresh_token"] != first["refresh_token"]
        again = await http.post(f"{one}/token", data=refresh)  # rotated: a replay, anywhere
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
        # that replay revoked the family: the renewed access token is refused by every process
        for front in processes:
            assert await _whoami(front, fresh["access_token"]) is None, front

        code = await _sign_in(http, three, client_id)
        tokens = (await http.post(f"{one}/token", data={**exchange, "code": code})).json()
        assert await _whoami(two, tokens["access_token"]) == "alice"
        revoke = {"token": tokens["refresh_token"], "client_id": client_id}
        assert (await http.post(f"{one}/revoke", data=revoke)).status_code == 200
        assert await _whoami(two, tokens["access_token"]) is None


async def test_a_redis_that_is_down_is_a_503_never_a_500() -> None:
    from genmcp.storage.redis import RedisOptions, RedisRecordStore

    options = RedisOptions(connect_timeout_s=0.3, deadline_s=0.3, retries=0)
    store = RedisRecordStore.from_url(f"redis://127.0.0.1:{free_port()}/0", options=options)
    app = load("authorization_server").create_app(front_env("http://127.0.0.1:9"), store=store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=MCP[:-4]) as http:
        registered = await http.post("/register", json={"redirect_uris": [CLIENT_REDIRECT]})
        token = await http.post("/token", data={"grant_type": "refresh_token",
                                                "refresh_token": "r", "client_id": "c"})
        page = await http.get("/authorize", params={"client_id": "c"})
    for answer in (registered, token, page):
        assert answer.status_code == 503, answer.text
        assert answer.headers["retry-after"] == "1"
        assert answer.json()["error"] == "temporarily_unavailable"
    await store.aclose()

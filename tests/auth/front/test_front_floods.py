"""Floods against the front on a real server, from several loopback source addresses
(127.0.0.x: each its own source): an `/authorize` flood and a registration flood are refused
to the flooder (429, or 503 for everyone once the store-wide bound is reached, both with
`Retry-After`) and never evict or lock out another user; a registration used by a sign-in
is kept its full life."""

from __future__ import annotations

import time
from collections import Counter

import httpx

from genmcp.auth.front import ClientRegistry, FrontLimits
from genmcp.storage.memory import MemoryRecordStore
from support.authorization_server import AuthorizationServer
from support.examples import load
from support.server import LiveServers

from .conftest import FRONT, FRONT_PORT, approve, front_env
from .test_front import _authorize_url, _code, _register

NEVER_REFILLED = 1e9  # the buckets' window: no token comes back during a test


def _from(address: str) -> httpx.AsyncClient:
    """A browser whose connections come from ``address``."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(transport=transport, trust_env=False, timeout=10)


async def test_an_authorize_flood_is_refused_and_evicts_no_one(
    upstream: AuthorizationServer, live_server: LiveServers
) -> None:
    limits = FrontLimits(sign_ins_per_source=40, sign_in_window_s=NEVER_REFILLED)
    app = load("authorization_server").create_app(
        front_env(upstream.issuer), store=MemoryRecordStore(max_entries=100), limits=limits
    )
    live_server(app, port=FRONT_PORT)
    async with _from("127.0.0.1") as victim, _from("127.0.0.3") as flooder:
        client_id = (await _register(flooder))["client_id"]  # the flooder's own client
        page = await victim.get(_authorize_url(client_id))  # the victim's consent waits
        flood = [await flooder.get(_authorize_url(client_id)) for _ in range(150)]
        assert Counter(a.status_code for a in flood) == {200: 40, 429: 110}
        assert all(int(a.headers["retry-after"]) >= 1 for a in flood if a.status_code == 429)
        more: Counter[int] = Counter()  # three more sources: the store holds 100 consents
        for address in ("127.0.0.4", "127.0.0.5", "127.0.0.6"):
            async with _from(address) as other:
                for _ in range(40):
                    answer = await other.get(_authorize_url(client_id))
                    more[answer.status_code] += 1
                    assert answer.status_code == 200 or "retry-after" in answer.headers
        assert more == {200: 59, 503: 61}  # 1 + 40 + 59 = 100 kept, none evicted
        allowed = await approve(victim, page)  # the victim's consent is still there
        assert allowed.status_code == 303
        assert httpx.URL(allowed.headers["location"]).host == httpx.URL(upstream.issuer).host


async def test_a_registration_flood_locks_out_no_one(
    upstream: AuthorizationServer, live_server: LiveServers
) -> None:
    limits = FrontLimits(registrations_per_source=30, registration_window_s=NEVER_REFILLED)
    registry = ClientRegistry(max_clients=100)
    app = load("authorization_server").create_app(front_env(upstream.issuer),
                                                  registry=registry, limits=limits)  # fmt: skip
    live_server(app, port=FRONT_PORT)
    body = {"redirect_uris": ["http://127.0.0.1:9/callback"]}
    async with _from("127.0.0.1") as client, _from("127.0.0.3") as flooder:
        flood = [await flooder.post(f"{FRONT}/register", json=body) for _ in range(150)]
        assert Counter(a.status_code for a in flood) == {201: 30, 429: 120}
        refused = [a for a in flood if a.status_code == 429]
        assert all(a.json()["error"] == "temporarily_unavailable" for a in refused)
        assert all(int(a.headers["retry-after"]) >= 1 for a in refused)
        registered = await client.post(f"{FRONT}/register", json=body)
        assert registered.status_code == 201  # another source still registers
        new = registered.json()["client_id"]
        kept = await registry.get(new)
        assert kept is not None and kept.expires_at < time.time() + registry.unused_ttl_s + 5


async def test_a_used_registration_is_kept_its_full_life(
    upstream: AuthorizationServer, live_server: LiveServers
) -> None:
    registry = ClientRegistry(unused_ttl_s=60.0)
    app = load("authorization_server").create_app(front_env(upstream.issuer), registry=registry)
    live_server(app, port=FRONT_PORT)
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
    before = await registry.get(client_id)
    assert before is not None and before.expires_at < time.time() + 61
    await _code(client_id)  # a user signs in through it
    after = await registry.get(client_id)
    assert after is not None and after.expires_at > time.time() + registry.ttl_s - 60

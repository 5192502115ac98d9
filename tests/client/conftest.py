"""The client tests' servers: the demo tools and the everything server, each on uvicorn per
test, in both eras (``era``); and one authorization server, an oidc-provider for the OAuth,
DPoP and assertion tests (session-scoped: the modules on one xdist worker share it).

It demands its DPoP nonce (RFC 9449 §8) from proofs, which changes nothing for requests
without one, and knows, besides the clients of `support.authorization_server`, two
`private_key_jwt` clients holding only a public key each (`KEYS`: ES256, RS256).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import pytest

from demo_tools import Stats, make_suite
from genmcp.client import SigningKey
from genmcp.fastapi.router import mcp_app
from support.authorization_server import AuthorizationServer, authorization_problem
from support.examples import load
from support.required import unavailable
from support.server import LiveServers

KEYS: Final = {alg: SigningKey.generate(alg) for alg in ("ES256", "RS256")}
"""The keys of the clients `svc-es256` and `svc-rs256` (key ids `svc-es256-1`...)."""


def registered(client_id: str, key: SigningKey) -> dict[str, Any]:
    return {
        "client_id": client_id,
        "token_endpoint_auth_method": "private_key_jwt",
        "token_endpoint_auth_signing_alg": key.alg,
        "jwks": {"keys": [{**key.public_jwk, "kid": f"{client_id}-1", "use": "sig"}]},
        "grant_types": ["client_credentials"],
        "redirect_uris": [],
        "response_types": [],
    }


@pytest.fixture(scope="session")
def authorization_server() -> Iterator[AuthorizationServer]:
    problem = authorization_problem()
    if problem is not None:
        unavailable(problem, "the client's OAuth tests")
    clients = tuple(registered(f"svc-{alg.lower()}", key) for alg, key in KEYS.items())
    server = AuthorizationServer(clients=clients, dpop_nonces=True)
    try:
        yield server
    finally:
        server.stop()


ERAS: Final = [None, "2025-11-25"]
"""The client probing (2026-07-28 found by ``server/discover``), and on a 2025 session."""


@pytest.fixture(params=ERAS, ids=["2026-07-28", "2025-11-25"])
def era(request: pytest.FixtureRequest) -> str | None:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def stats() -> Stats:
    return Stats()


@pytest.fixture
def demo(live_server: LiveServers, stats: Stats) -> str:
    return live_server(mcp_app(make_suite(stats, page_size=2), path="/mcp")) + "/mcp"


@pytest.fixture(scope="module")
def everything_app() -> Any:
    return mcp_app(load("everything_server").build_suite(), path="/mcp")


@pytest.fixture
def everything(live_server: LiveServers, everything_app: Any) -> str:
    return live_server(everything_app) + "/mcp"

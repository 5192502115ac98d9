"""The client tests' authorization server: one oidc-provider for the OAuth, DPoP and assertion
tests (session-scoped: the modules on one xdist worker share it).

It demands its DPoP nonce (RFC 9449 §8) from proofs, which changes nothing for requests
without one, and knows, besides the clients of `support.authorization_server`, two
`private_key_jwt` clients holding only a public key each (`KEYS`: ES256, RS256).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import pytest

from genmcp.client import SigningKey
from support.authorization_server import AuthorizationServer, authorization_problem
from support.required import unavailable

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

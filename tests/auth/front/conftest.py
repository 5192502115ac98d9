"""The upstream provider for the front's tests: oidc-provider (no dynamic registration)
with one confidential client, the front, whose redirect URI is `CALLBACK` on `FRONT_PORT`.

`front_app(...)` builds examples/authorization_server.py for it; `browser(url)` plays the
user's browser through the front and the provider (cookies kept) to the client's redirect.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from support.authorization_server import AuthorizationServer, authorization_problem, free_port
from support.required import unavailable

FRONT_PORT = free_port()
FRONT = f"http://127.0.0.1:{FRONT_PORT}"
MCP = f"{FRONT}/mcp"
CALLBACK = f"{FRONT}/oauth/callback"
UPSTREAM_CLIENT = {"id": "mcp-front", "secret": "front-secret"}
CLIENT_REDIRECT = "http://127.0.0.1:9/callback"


@pytest.fixture(scope="package")
def upstream() -> Iterator[AuthorizationServer]:
    problem = authorization_problem()
    if problem is not None:
        unavailable(problem, "the authorization-server front's tests")
    client = {
        "client_id": UPSTREAM_CLIENT["id"],
        "client_secret": UPSTREAM_CLIENT["secret"],
        "grant_types": ["authorization_code"],
        "redirect_uris": [CALLBACK],
        "response_types": ["code"],
    }
    server = AuthorizationServer(clients=(client,))
    try:
        yield server
    finally:
        server.stop()


def front_env(issuer: str) -> dict[str, str]:
    return {
        "OAUTH_UPSTREAM_ISSUER": issuer,
        "OAUTH_UPSTREAM_CLIENT_ID": UPSTREAM_CLIENT["id"],
        "OAUTH_UPSTREAM_CLIENT_SECRET": UPSTREAM_CLIENT["secret"],
        "MCP_RESOURCE": MCP,
    }


async def browser(url: str, until: str = CLIENT_REDIRECT) -> str:
    """Follow `url`'s redirects (the provider approves at once) to the URL under `until`."""
    async with httpx.AsyncClient(timeout=10, trust_env=False) as http:
        for _ in range(12):
            if url.startswith(until):
                return url
            response = await http.get(url)
            if response.status_code not in (302, 303):
                raise AssertionError(f"the sign-in stopped at {response.status_code}: {url}")
            url = str(response.url.join(response.headers["location"]))
    raise AssertionError("too many redirects")

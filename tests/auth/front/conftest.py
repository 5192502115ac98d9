"""The upstream provider for the front's tests: oidc-provider (no dynamic registration)
with one confidential client, the front, whose redirect URI is `CALLBACK` on `FRONT_PORT`.

`front_env(issuer)` configures examples/authorization_server.py for it; `browser(url)` plays
the user's browser through the front (approving its consent page) and the provider (cookies
kept) to the client's redirect; `approve(http, page)` answers one consent page.
"""

from __future__ import annotations

import re
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


CONSENT_ID = re.compile(r'name=consent value="([^"]+)"')


async def approve(http: httpx.AsyncClient, page: httpx.Response, decision: str = "approve") -> (
    httpx.Response
):
    """Answer the front's consent `page` as the user would, from the same browser."""
    found = CONSENT_ID.search(page.text)
    assert page.status_code == 200 and found is not None, page.text[:300]
    form = {"consent": found.group(1), "decision": decision}
    return await http.post(f"{FRONT}/authorize/consent", data=form)


async def browser(url: str, seen: list[str] | None = None) -> str:
    """Play the user: follow `url`'s redirects, approve the front's consent page (the
    provider approves at once), up to the client's redirect URI; `seen` gets every URL."""
    async with httpx.AsyncClient(timeout=10, trust_env=False) as http:
        for _ in range(12):
            if seen is not None:
                seen.append(url)
            if url.startswith(CLIENT_REDIRECT):
                return url
            response = await http.get(url)
            if response.status_code == 200 and url.startswith(f"{FRONT}/authorize"):
                response = await approve(http, response)
            if response.status_code not in (302, 303):
                raise AssertionError(f"the sign-in stopped at {response.status_code}: {url}")
            url = str(response.url.join(response.headers["location"]))
    raise AssertionError("too many redirects")

"""client.oauth against a real authorization server (oidc-provider under node) and
examples/protected_app.py on uvicorn, in both eras.

The client starts without a token and finds everything itself (401, the resource metadata,
the server's OpenID metadata, the token endpoint); `write_note` needs `notes:write`, so the
403 `insufficient_scope` makes it step up. The authorization code flow logs `alice` in
through `AuthorizationServer.authorize` (oidc-provider approves at once). The official
suite's `auth/*` client scenarios (`make conformance-client`) cover the rest: dynamic
registration, Client ID Metadata Documents, the metadata variants, `iss` checks.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from genmcp.client import Client, ClientError
from genmcp.client.oauth import OAuth, parse_challenge
from support.authorization_server import (
    CLIENTS,
    PUBLIC_CLIENT,
    REDIRECT_URI,
    AuthorizationServer,
)
from support.examples import load
from support.ports import listening
from support.recorder import Recorder
from support.server import LiveServers

ERAS = [None, "2025-11-25"]


@pytest.fixture
def served(authorization_server: AuthorizationServer, live_server: LiveServers) -> Any:
    held = listening(0)  # held until the server serves it
    port = held.getsockname()[1]
    mcp = f"http://127.0.0.1:{port}/mcp"
    env = {"MCP_RESOURCE": mcp, "MCP_ISSUER": authorization_server.issuer}
    wire = Recorder(load("protected_app").create_app(env))
    live_server(wire, sock=held)
    return mcp, wire


@pytest.mark.parametrize("era", ERAS, ids=["2026-07-28", "2025-11-25"])
async def test_client_credentials_discover_call_and_step_up(served: Any, era: str | None) -> None:
    mcp, wire = served
    auth = OAuth(client_id="alice", client_secret=CLIENTS["alice"], grant="client_credentials")
    async with Client(mcp, auth=auth, protocol=era) as client:
        first = await client.call_tool("whoami", {})
        wrote = await client.call_tool("write_note", {"text": "from genmcp"})
        after = await client.call_tool("whoami", {})

    assert first["structuredContent"]["principal"] == "alice"
    assert wrote["content"][0]["text"] == "Stored note #1."
    assert sorted(after["structuredContent"]["scopes"]) == ["mcp:tools", "notes:write"]
    statuses = [exchange.status for exchange in wire.exchanges if exchange.path == "/mcp"]
    assert statuses.count(401) == 1 and statuses.count(403) == 1


@pytest.mark.parametrize("era", ERAS, ids=["2026-07-28", "2025-11-25"])
async def test_authorization_code_with_pkce(
    served: Any, authorization_server: AuthorizationServer, era: str | None
) -> None:
    mcp, _ = served
    asked: list[dict[str, str]] = []

    async def browser(url: str) -> str:
        asked.append(dict(httpx.URL(url).params))
        back = await authorization_server.authorize(url)
        return f"{REDIRECT_URI}?{httpx.QueryParams(back)}"

    auth = OAuth(client_id=PUBLIC_CLIENT, authorize=browser, redirect_uri=REDIRECT_URI)
    async with Client(mcp, auth=auth, protocol=era) as client:
        result = await client.call_tool("whoami", {})

    assert result["structuredContent"] == {
        "principal": "alice", "client_id": PUBLIC_CLIENT, "scopes": ["mcp:tools"],
    }  # fmt: skip
    [request] = asked
    assert request["code_challenge_method"] == "S256" and len(request["code_challenge"]) == 43
    assert request["resource"] == mcp and request["scope"] == "mcp:tools"
    assert auth.access_token is not None


async def test_a_refused_client_is_a_clear_error(served: Any) -> None:
    mcp, _ = served
    auth = OAuth(client_id="alice", client_secret="wrong", grant="client_credentials")
    async with Client(mcp, auth=auth) as client:
        with pytest.raises(ClientError, match="the token endpoint refused"):
            await client.list_tools()
    with pytest.raises(ValueError, match="client_id and client_secret"):
        OAuth(grant="client_credentials")


def test_challenges_are_parsed() -> None:
    header = 'Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/y"'
    assert parse_challenge(header) == {
        "error": "insufficient_scope", "scope": "a b", "resource_metadata": "https://x/y",
    }  # fmt: skip
    assert parse_challenge("Basic realm=x") == {} and parse_challenge(None) == {}
    dpop = 'DPoP error="use_dpop_nonce", resource_metadata="https://x/y"'  # RFC 9449 §7.1
    assert parse_challenge(dpop) == {"error": "use_dpop_nonce", "resource_metadata": "https://x/y"}

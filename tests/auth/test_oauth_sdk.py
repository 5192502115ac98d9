"""The official Python SDK client's OAuth support (`mcp==2.3.0`) against examples/protected_app.py.

A real oidc-provider is the authorization server; the example runs under a real uvicorn with
`MCP_RESOURCE` = its own loopback URL (the SDK checks that the metadata's `resource` is the
URL it connects to). The SDK starts without a token and must find everything itself:

    POST /mcp -> 401 WWW-Authenticate: Bearer resource_metadata=..., scope="mcp:tools"
    GET  /.well-known/oauth-protected-resource/mcp -> authorization_servers: [issuer]
    GET  issuer/.well-known/oauth-authorization-server (404 at oidc-provider), then
         issuer/.well-known/openid-configuration -> token_endpoint
    POST token_endpoint (grant, resource=<MCP_RESOURCE>, scope) -> a JWT for our audience
    POST /mcp again with the bearer token -> tools/call answers

`write_note` needs `notes:write`: the SDK gets a 403 `insufficient_scope` and steps up
(SEP-2350: a new token for the union of the scopes), then the call succeeds.

How the SDK is driven, from reading `mcp/client/auth/` (oauth2.py, utils.py,
extensions/client_credentials.py): an `httpx2.Auth` (`OAuthClientProvider` and its
`ClientCredentialsOAuthProvider`) on the `httpx2.AsyncClient` given to
`streamable_http_client(url, http_client=...)`, and that transport given to `Client`.
An ASGI recorder in front of the app keeps every exchange the MCP server saw.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Final

import httpx2
import pytest
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, TokenStorage
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

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
from support.www_authenticate import parse_bearer

MODES: Final = ("2026-07-28", "legacy")
METADATA_PATH: Final = "{}/.well-known/oauth-protected-resource/mcp"


@dataclass
class MemoryStorage(TokenStorage):
    """The SDK's token storage, in memory; `tokens` keeps every token it was given."""

    tokens: list[OAuthToken] = field(default_factory=list)
    client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens[-1] if self.tokens else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


@dataclass
class Served:
    """The protected example under uvicorn at `mcp` (= its `MCP_RESOURCE`)."""

    mcp: str
    wire: Recorder
    auth: AuthorizationServer


@pytest.fixture
def served(authorization_server: AuthorizationServer, live_server: LiveServers) -> Served:
    held = listening(0)  # held until the server serves it
    port = held.getsockname()[1]
    mcp = f"http://127.0.0.1:{port}/mcp"
    env = {"MCP_RESOURCE": mcp, "MCP_ISSUER": authorization_server.issuer}
    wire = Recorder(load("protected_app").create_app(env))
    live_server(wire, sock=held)
    return Served(mcp, wire, authorization_server)


def client_credentials(served: Served, storage: MemoryStorage) -> ClientCredentialsOAuthProvider:
    return ClientCredentialsOAuthProvider(
        server_url=served.mcp,
        storage=storage,
        client_id="alice",
        client_secret=CLIENTS["alice"],
        issuer=served.auth.issuer,
    )


@contextlib.asynccontextmanager
async def connect(served: Served, auth: httpx2.Auth, mode: str) -> AsyncIterator[Client]:
    """An SDK `Client` at `served.mcp` whose HTTP client authenticates with `auth`."""
    async with create_mcp_http_client(auth=auth) as http:
        transport = streamable_http_client(served.mcp, http_client=http)
        async with Client(transport, mode=mode) as client:  # type: ignore[arg-type]
            yield client


def statuses(wire: Recorder) -> list[tuple[str, int]]:
    return [(exchange.method, exchange.status) for exchange in wire.exchanges]


@pytest.mark.parametrize("mode", MODES)
async def test_sdk_client_credentials_discovers_and_calls(served: Served, mode: str) -> None:
    storage = MemoryStorage()
    async with connect(served, client_credentials(served, storage), mode) as client:
        result = await client.call_tool("whoami", {})
    assert result.structured_content == {
        "principal": "alice",
        "client_id": "alice",
        "scopes": ["mcp:tools"],
    }
    assert len(storage.tokens) == 1  # one token, asked for with the challenged scope
    assert storage.tokens[0].scope == "mcp:tools"
    first = served.wire.exchanges[0]
    assert (first.method, first.status) == ("POST", 401)
    assert "authorization" not in first.headers
    assert all(exchange.status < 400 for exchange in served.wire.exchanges[1:])
    token = storage.tokens[0].access_token
    assert all(
        exchange.headers.get("authorization") == f"Bearer {token}"
        for exchange in served.wire.exchanges[1:]
        if exchange.path == "/mcp"
    )


@pytest.mark.parametrize("mode", MODES)
async def test_sdk_steps_up_on_insufficient_scope(served: Served, mode: str) -> None:
    storage = MemoryStorage()
    async with connect(served, client_credentials(served, storage), mode) as client:
        first = await client.call_tool("whoami", {})
        wrote = await client.call_tool("write_note", {"text": "from the SDK"})
        after = await client.call_tool("whoami", {})
    assert first.structured_content is not None
    assert first.structured_content["scopes"] == ["mcp:tools"]
    assert wrote.content[0].text == "Stored note #1."  # type: ignore[union-attr]
    assert after.structured_content is not None
    assert sorted(after.structured_content["scopes"]) == ["mcp:tools", "notes:write"]
    assert [t.scope for t in storage.tokens] == ["mcp:tools", "mcp:tools notes:write"]
    refused = [e for e in served.wire.exchanges if e.status == 403]
    assert len(refused) == 1 and "insufficient_scope" in refused[0].response_headers.get(
        "www-authenticate", ""
    )


async def test_sdk_gets_the_operation_scopes_in_one_token(served: Served) -> None:
    """The 401 of a 2026-07-28 call names the tool's scopes too (from `Mcp-Name`)."""
    storage = MemoryStorage()
    async with connect(served, client_credentials(served, storage), "2026-07-28") as client:
        wrote = await client.call_tool("write_note", {"text": "first thing"})
    assert wrote.is_error is False
    wire = [(e.method, e.path, e.rpc_method, e.status) for e in served.wire.exchanges]
    assert wire[:3] == [
        ("POST", "/mcp", "tools/call", 401),
        ("GET", "/.well-known/oauth-protected-resource/mcp", None, 200),
        ("POST", "/mcp", "tools/call", 200),
    ]
    challenge = served.wire.exchanges[0].response_headers["www-authenticate"]
    assert parse_bearer(challenge) == {
        "scope": "mcp:tools notes:write",
        "resource_metadata": METADATA_PATH.format(served.mcp.removesuffix("/mcp")),
    }
    assert [t.scope for t in storage.tokens] == ["mcp:tools notes:write"]


async def test_sdk_legacy_session_carries_the_token_everywhere(served: Served) -> None:
    storage = MemoryStorage()
    async with connect(served, client_credentials(served, storage), "legacy") as client:
        await client.call_tool("whoami", {})
    wire = [(e.method, e.rpc_method, e.status) for e in served.wire.exchanges if e.path == "/mcp"]
    assert wire[:2] == [("POST", "initialize", 401), ("POST", "initialize", 200)]
    assert ("GET", None, 200) in wire and wire[-1] == ("DELETE", None, 200)
    bearer = f"Bearer {storage.tokens[-1].access_token}"
    later = [e for e in served.wire.exchanges if e.path == "/mcp"][1:]
    assert {e.headers.get("authorization") for e in later} == {bearer}


class Browser:
    """The SDK's redirect and callback handlers, played without a person (see `authorize`)."""

    def __init__(self, auth: AuthorizationServer) -> None:
        self.auth = auth
        self.asked: list[dict[str, str]] = []  # the authorization requests' parameters
        self.answer: dict[str, str] = {}

    async def redirect(self, url: str) -> None:
        self.asked.append(dict(httpx2.URL(url).params))
        self.answer = await self.auth.authorize(url)

    async def callback(self) -> AuthorizationCodeResult:
        return AuthorizationCodeResult(**self.answer)


def authorization_code(
    served: Served, storage: MemoryStorage, browser: Browser
) -> OAuthClientProvider:
    storage.client_info = OAuthClientInformationFull(  # pre-registered: no DCR
        client_id=PUBLIC_CLIENT,
        redirect_uris=[REDIRECT_URI],  # type: ignore[list-item]
        grant_types=["authorization_code"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    metadata = OAuthClientMetadata(
        redirect_uris=[REDIRECT_URI],  # type: ignore[list-item]
        grant_types=["authorization_code"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    return OAuthClientProvider(
        served.mcp,
        metadata,
        storage,
        redirect_handler=browser.redirect,
        callback_handler=browser.callback,
    )


@pytest.mark.parametrize("mode", MODES)
async def test_sdk_authorization_code_with_pkce(served: Served, mode: str) -> None:
    storage, browser = MemoryStorage(), Browser(served.auth)
    async with connect(served, authorization_code(served, storage, browser), mode) as client:
        result = await client.call_tool("whoami", {})
    assert result.structured_content == {
        "principal": "alice",  # the user who logged in, not a client
        "client_id": PUBLIC_CLIENT,
        "scopes": ["mcp:tools"],
    }
    [asked] = browser.asked
    assert asked["code_challenge_method"] == "S256" and len(asked["code_challenge"]) == 43
    assert asked["resource"] == served.mcp and asked["scope"] == "mcp:tools"
    assert browser.answer["iss"] == served.auth.issuer  # RFC 9207, checked by the SDK
    assert len(storage.tokens) == 1

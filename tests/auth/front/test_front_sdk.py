"""The official Python SDK client (`mcp`) through the authorization-server front: it finds
the front from the MCP endpoint's 401, registers by RFC 7591 (the upstream has no dynamic
registration), signs the user in upstream (a scripted browser), calls a tool, steps up to
`notes:write`, and refreshes with the rotated refresh token, in both eras.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from support.authorization_server import AuthorizationServer
from support.examples import load
from support.recorder import Recorder
from support.server import LiveServers

from .conftest import CLIENT_REDIRECT, FRONT, FRONT_PORT, MCP, browser, front_env


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


class Browser:
    """The SDK's redirect and callback handlers: the scripted browser of conftest."""

    def __init__(self) -> None:
        self.back: dict[str, str] = {}

    async def redirect(self, url: str) -> None:
        self.back = dict(httpx.URL(await browser(url)).params)

    async def callback(self) -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=self.back["code"], state=self.back.get("state"),
                                       iss=self.back.get("iss"))  # fmt: skip


@pytest.fixture
def served(upstream: AuthorizationServer, live_server: LiveServers) -> Recorder:
    wire = Recorder(load("authorization_server").create_app(front_env(upstream.issuer)))
    live_server(wire, port=FRONT_PORT)
    return wire


@contextlib.asynccontextmanager
async def connect(auth: httpx2.Auth, mode: str) -> AsyncIterator[Client]:
    async with create_mcp_http_client(auth=auth) as http:
        async with Client(streamable_http_client(MCP, http_client=http), mode=mode) as client:  # type: ignore[arg-type]
            yield client


def provider(storage: MemoryStorage, user: Browser) -> OAuthClientProvider:
    metadata = OAuthClientMetadata(
        client_name="sdk via the front",
        redirect_uris=[CLIENT_REDIRECT],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    return OAuthClientProvider(MCP, metadata, storage, redirect_handler=user.redirect,
                               callback_handler=user.callback)  # fmt: skip


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
async def test_sdk_registers_signs_in_steps_up_and_refreshes(served: Recorder, mode: str) -> None:
    storage, user = MemoryStorage(), Browser()
    auth = provider(storage, user)
    async with connect(auth, mode) as client:
        who = await client.call_tool("whoami", {})
        wrote = await client.call_tool("write_note", {"text": "from the SDK"})
    assert who.structured_content is not None
    assert who.structured_content["principal"] == "alice"
    assert storage.client_info is not None and storage.client_info.client_id  # by DCR
    assert wrote.content[0].text == "Stored note #1."  # type: ignore[union-attr]
    assert [t.scope for t in storage.tokens] == ["mcp:tools", "mcp:tools notes:write"]
    assert user.back["iss"] == FRONT
    assert [e.path for e in served.exchanges].count("/register") == 1
    signed_in = [e.path for e in served.exchanges].count("/authorize")

    # refresh: once the SDK sees its token expired it refreshes (no new sign-in), rotated
    last = storage.tokens[-1]
    auth.context.token_expiry_time = time.time() - 1
    async with connect(auth, mode) as client:
        after = await client.call_tool("write_note", {"text": "after the refresh"})
    assert after.content[0].text == "Stored note #2."  # type: ignore[union-attr]
    renewed = storage.tokens[-1]
    assert renewed.access_token != last.access_token
    assert renewed.refresh_token is not None and renewed.refresh_token != last.refresh_token
    paths = [e.path for e in served.exchanges]
    assert paths.count("/authorize") == signed_in and paths.count("/token") == 3
    assert all(e.status < 400 for e in served.exchanges[-2:])

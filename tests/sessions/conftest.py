"""Fixtures of the legacy session tests: one server per module (sessions keep tests apart).

- `server`: (base URL, router, Calls) of the module's server, its events cleared per test.
- `connect`: `client = connect(version)` gives a `LegacyClient` closed at teardown.
- `catalog_server`: (base URL, router) of a server of one prompt and two static resources.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from genmcp import (
    MCPRouter,
)
from support.legacy_client import LegacyClient
from support.server import LiveServer
from tests.sessions.session_kit import Calls, build, catalog_app


@pytest.fixture(scope="module")
def shared_server() -> Iterator[tuple[str, MCPRouter, Calls]]:
    calls = Calls()
    app, router = build(calls)
    with LiveServer(app) as base:  # one server for the module: sessions keep tests apart
        yield base, router, calls


@pytest.fixture
def server(shared_server: tuple[str, MCPRouter, Calls]) -> tuple[str, MCPRouter, Calls]:
    calls = shared_server[2]
    for event in (calls.started, calls.cancelled, calls.closed):
        event.clear()
    return shared_server


@pytest.fixture
async def connect(
    server: tuple[str, MCPRouter, Calls],
) -> AsyncIterator[Callable[..., LegacyClient]]:
    clients: list[LegacyClient] = []

    def make(version: str = "2025-11-25", **options: Any) -> LegacyClient:
        client = LegacyClient(server[0], version=version, **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


@pytest.fixture(scope="module")
def catalog_server() -> Iterator[tuple[str, MCPRouter]]:
    app, router = catalog_app()
    with LiveServer(app) as base:
        yield base, router

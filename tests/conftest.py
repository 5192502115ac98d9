"""Fixtures shared by the whole suite.

- `live_server`: `base_url = live_server(app)` runs `app` under a real uvicorn server on
  127.0.0.1 (see `support.server`); every server started is stopped at teardown.
  `live_server.last` is the most recent `LiveServer` (its `loop`, `run_in_loop`, ...).
- `modern_client`: `client = modern_client(base_url)` gives a `support.client.ModernClient`
  closed at teardown, before the servers stop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from support.client import ModernClient
from support.server import LiveServers


@pytest.fixture
def live_server() -> Iterator[LiveServers]:
    servers = LiveServers()
    try:
        yield servers
    finally:
        servers.stop_all()


@pytest.fixture
async def modern_client(live_server: LiveServers) -> AsyncIterator[Callable[..., ModernClient]]:
    # Depends on live_server only so that clients close before the servers stop.
    clients: list[ModernClient] = []

    def make(base_url: str, path: str = "/mcp", **options: Any) -> ModernClient:
        client = ModernClient(base_url, path, **options)
        clients.append(client)
        return client

    try:
        yield make
    finally:
        for client in clients:
            await client.aclose()

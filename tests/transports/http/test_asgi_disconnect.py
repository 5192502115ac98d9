"""A client that leaves before the first event: the call is cancelled, nothing is logged."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import httpx
import pytest
from fastapi import FastAPI

from demo_tools import Stats, make_suite
from genmcp import mcp_router
from support.client import ModernClient
from support.server import LiveServers


async def test_leaving_before_the_first_event_cancels_quietly(
    live_server: LiveServers,
    modern_client: Callable[..., ModernClient],
    caplog: pytest.LogCaptureFixture,
) -> None:
    stats = Stats()
    suite = make_suite(stats)
    app = FastAPI()
    app.include_router(mcp_router(suite=suite), prefix="/mcp")
    client = modern_client(live_server(app), timeout=0.3)
    caplog.set_level(logging.DEBUG)
    for _ in range(3):
        with pytest.raises(httpx.ReadTimeout):  # nap sends nothing without a progressToken
            await client.request("tools/call", {"name": "nap", "arguments": {"seconds": 5}})
    for _ in range(200):
        if stats.cancelled == 3 and suite.live_workers == 0:
            break
        await asyncio.sleep(0.01)
    assert (stats.started, stats.cancelled, suite.live_workers) == (3, 3, 0)
    noisy = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert noisy == []
    assert not any("InvalidStateError" in (r.exc_text or "") for r in caplog.records)

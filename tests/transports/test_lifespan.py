"""``transports.lifespan``: an ASGI app's lifespan run without a web server (stdio, the test kit).

Real Starlette/FastAPI apps and bare ASGI callables: the state a lifespan yields reaches the
block, shutdown runs after it, a failing or hanging lifespan is a ``LifespanError`` naming
the phase, and an app that does not speak the lifespan protocol is served anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastapi import FastAPI

from genmcp.transports.lifespan import LifespanError, lifespan


async def test_the_state_a_lifespan_yields_reaches_the_block_and_shutdown_runs_after() -> None:
    seen: list[str] = []

    @contextlib.asynccontextmanager
    async def span(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        seen.append("started")
        yield {"db": "connected"}
        seen.append("stopped")

    async with lifespan(FastAPI(lifespan=span)) as state:
        assert state == {"db": "connected"} and seen == ["started"]
    assert seen == ["started", "stopped"]


async def test_a_lifespan_that_fails_to_start_is_a_lifespan_error() -> None:
    @contextlib.asynccontextmanager
    async def span(app: FastAPI) -> AsyncIterator[None]:
        raise RuntimeError("no database")
        yield

    with pytest.raises(LifespanError, match="failed to start"):
        async with lifespan(FastAPI(lifespan=span)):
            pytest.fail("the block must not run")


async def test_a_lifespan_that_fails_to_stop_is_a_lifespan_error() -> None:
    @contextlib.asynccontextmanager
    async def span(app: FastAPI) -> AsyncIterator[None]:
        yield
        raise RuntimeError("could not close")

    with pytest.raises(LifespanError, match="failed to stop"):
        async with lifespan(FastAPI(lifespan=span)):
            pass


async def test_a_startup_that_hangs_is_bounded() -> None:
    @contextlib.asynccontextmanager
    async def span(app: FastAPI) -> AsyncIterator[None]:
        await asyncio.sleep(3600)
        yield

    with pytest.raises(LifespanError, match=r"startup took over 0\.1 s"):
        async with lifespan(FastAPI(lifespan=span), timeout_s=0.1):
            pass


async def test_an_app_without_lifespan_support_is_served_with_an_empty_state() -> None:
    async def plain(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http", "this app serves HTTP only"

    async with lifespan(plain) as state:
        assert state == {}

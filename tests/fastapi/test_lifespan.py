"""``fastapi.lifespan``: an ASGI app's lifespan run without a web server (stdio, the test kit).

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

from genmcp import mcp_router
from genmcp.fastapi.lifespan import LifespanError, lifespan, short_failure
from genmcp.testing import MCPTestClient


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


async def test_a_router_mounted_twice_is_one_short_line_without_a_traceback() -> None:
    app = FastAPI()
    app.include_router(mcp_router(server_name="a", server_version="1"), prefix="/mcp")
    app.include_router(mcp_router(server_name="a", server_version="1"), prefix="/mcp")
    with pytest.raises(LifespanError) as caught:
        async with MCPTestClient(app):
            pass
    message = str(caught.value)
    assert message.startswith(
        "the app's lifespan failed to start: RuntimeError: two MCP routers are mounted at /mcp"
    ), message
    assert "Traceback" not in message and "File " not in message and "\n" not in message


@pytest.mark.parametrize(
    ("sent", "short"),
    [
        ("plain words", "plain words"),
        (
            'Traceback (most recent call last):\n  File "x.py", line 1, in f\n    g()\n'
            "    ^^^\nValueError: bad\nsecond line",
            "ValueError: bad\nsecond line",
        ),
    ],
)
def test_short_failure_keeps_the_exception_lines(sent: str, short: str) -> None:
    assert short_failure(sent) == short

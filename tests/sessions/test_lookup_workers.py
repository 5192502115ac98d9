"""``sessions.lookup`` across worker processes with nothing shared: the refusal names its fix.

Two real uvicorn servers of one app stand for two workers behind a round-robin balancer.
With no ``GENMCP_SECRET_KEY`` a session id from the other worker does not verify; with a
shared key but sessions in memory the other worker's registry does not hold it. Either way
the client gets 404 "Session not found" (the spec's answer: it re-initializes) with the
fix in the message, and the server log says it once, not once per request.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI

from genmcp import Result, Tool, ToolRequest, call_tool_result, mcp_router
from genmcp.channel import Channel
from support.legacy_client import LegacyClient
from support.server import LiveServers


class Hello(Tool, name="hello", description="Says hello."):
    async def call(self, request: ToolRequest, channel: Channel, arg: Any) -> Result:
        return Result(call_tool_result(text="hello"))


def worker() -> FastAPI:
    app = FastAPI()
    app.include_router(
        mcp_router(server_name="app", server_version="1", tools=[Hello]), prefix="/mcp"
    )
    return app


@pytest.fixture
def workers(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[Any]:
    key = request.param
    if key is None:
        monkeypatch.delenv("GENMCP_SECRET_KEY", raising=False)
    else:
        monkeypatch.setenv("GENMCP_SECRET_KEY", key)
    live = LiveServers()
    try:
        yield live(worker()), live(worker())
    finally:
        live.stop_all()


async def on_the_other_worker(a: str, b: str, requests: int) -> list[Any]:
    """Open a session on ``a``, send ``requests`` requests of it to ``b``; their errors."""
    errors = []
    async with LegacyClient(a) as on_a, LegacyClient(b) as on_b:
        await on_a.open()
        on_b.session_id, on_b.version = on_a.session_id, on_a.version
        for _ in range(requests):
            reply = await on_b.request("tools/list")
            assert reply.status == 404, reply
            errors.append(reply.error)
    return errors


@pytest.mark.parametrize(
    ("workers", "fix"),
    [
        (None, "GENMCP_SECRET_KEY"),
        ("a-shared-key-of-at-least-32-bytes-0123456789", "redis_url="),
    ],
    indirect=["workers"],
    ids=["no-key", "sessions-in-memory"],
)
async def test_a_session_of_another_worker_names_the_fix_and_is_logged_once(
    workers: tuple[str, str], fix: str, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = workers
    with caplog.at_level(logging.WARNING, "genmcp"):
        errors = await on_the_other_worker(a, b, 3)
    for error in errors:
        assert error["message"].startswith("Session not found: "), error
        assert fix in error["message"], error
    told = [r for r in caplog.records if "logged once" in r.getMessage()]
    assert len(told) == 1, [r.getMessage() for r in caplog.records]
    assert fix in told[0].getMessage()


@pytest.mark.parametrize("workers", ["a-shared-key-of-at-least-32-bytes-0123456789"],
                         indirect=True)
async def test_a_session_ended_on_its_own_worker_is_plainly_not_found(
    workers: tuple[str, str],
) -> None:
    a, _ = workers
    async with LegacyClient(a) as client:
        await client.open()
        assert (await client.delete()).status == 200
        reply = await client.request("tools/list")
    assert reply.status == 404 and reply.error["message"] == "Session not found"

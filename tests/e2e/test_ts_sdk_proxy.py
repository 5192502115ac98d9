"""The official TypeScript SDK client through a remote mount: `mcp_router(proxy=URL)` in front of
examples/everything_server.py, both on real uvicorn servers, in 2026-07-28 and legacy mode.

The same `tests/e2e/ts/client.mjs` as test_ts_sdk.py (installed and found the same way): it
lists, calls, receives progress, cancels a long call and completes an elicitation round,
here through the proxy's hop; the upstream itself stops the cancelled call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from e2e.test_ts_sdk import LEGACY, MODERN, SIMPLE_TEXT, everything, ts_client, wait_until
from genmcp import mcp_app, mcp_router
from support.server import LiveServers

__all__ = ["ts_client"]  # the fixture, shared with test_ts_sdk.py


@pytest.fixture(scope="module")
def proxied() -> Iterator[str]:
    live = LiveServers()
    try:
        upstream = live(everything.app) + "/mcp"
        yield live(mcp_app(mcp_router(proxy=upstream))) + "/mcp"
    finally:
        live.stop_all()


@pytest.mark.parametrize(("mode", "version"), [("modern", MODERN), ("legacy", LEGACY)])
def test_the_ts_client_through_the_proxy(
    proxied: str, ts_client: Callable[..., dict[str, Any]], mode: str, version: str
) -> None:
    report = ts_client(proxied, mode)
    assert report["protocolVersion"] == version
    assert report["serverInfo"]["name"] == "genmcp-proxy"
    assert {"test_simple_text", "test_tool_with_progress", "test_elicitation"} <= set(
        report["tools"]
    )
    assert report["simpleText"] == SIMPLE_TEXT
    steps = [(p["progress"], p["total"]) for p in report["progress"]["notifications"]]
    assert steps == [(0, 100), (50, 100), (100, 100)]
    cancel = report["cancel"]
    assert cancel["outcome"] == "rejected" and cancel["progressSeen"] == 2, cancel
    [asked] = report["elicitation"]["asked"]
    assert asked["message"] == "Who are you?"
    assert '"username": "ada"' in report["elicitation"]["content"][0]["text"]
    assert report["after"] == SIMPLE_TEXT
    # the upstream's 30 s call was stopped: the cancel crossed the hop
    wait_until(lambda: everything.router.suite.live_workers == 0)

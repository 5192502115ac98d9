"""Regression tests for what the fuzz harness found (each names its finding).

Finding F1 (seed c0f5f9c0, case 1655): a 2026-07-28 client that hangs up while a tool call
has sent nothing yet made `first_event` (transports/http/asgi.py) raise `InvalidStateError`
("Result is not set"): a cancelled but not yet finished task was read as done. uvicorn
logged "Exception in ASGI application" for every such disconnect.

Finding F2 (seed ab972128, case 1284): an answer to an elicitation whose `action` is an
object or an array (`{"action": {}}`) raised `TypeError: unhashable type` in
request_state.py (`in` a frozenset) and the tools/call ended in -32603, in both eras.
"""

from __future__ import annotations

import asyncio
import logging
import time

import httpx
import pytest

from fuzz.cases import encode, modern_headers, modern_request
from support.examples import load
from support.server import LiveServers


@pytest.mark.timeout(20)
async def test_f1_hang_up_before_the_first_event_is_clean(
    live_server: LiveServers, caplog: pytest.LogCaptureFixture
) -> None:
    everything = load("everything_server")
    base_url = live_server(everything.app)
    message = modern_request(
        "tools/call", {"name": "test_long_running_operation", "arguments": {"seconds": 5}}
    )
    caplog.set_level(logging.ERROR)
    async with httpx.AsyncClient(timeout=0.3) as client:
        with pytest.raises(httpx.ReadTimeout):  # no progressToken: nothing is sent for 5 s
            await client.post(
                base_url + "/mcp", content=encode(message), headers=modern_headers(message)
            )
    deadline = time.monotonic() + 3
    while everything.router.suite.live_workers and time.monotonic() < deadline:  # noqa: ASYNC110 (the Suite offers no event to wait on)
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.1)  # let the server finish logging, if it does
    assert everything.router.suite.live_workers == 0
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == []


@pytest.mark.timeout(20)
@pytest.mark.parametrize("action", [{}, [], {"a": [1]}])
async def test_f2_unhashable_elicitation_action_is_a_client_fault(
    live_server: LiveServers, action: object
) -> None:
    everything = load("everything_server")
    base_url = live_server(everything.app) + "/mcp"
    first = modern_request(
        "tools/call", {"name": "test_elicitation", "arguments": {"message": "m"}}
    )
    first["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = {"elicitation": {}}
    async with httpx.AsyncClient(timeout=5) as client:
        reply = await client.post(base_url, content=encode(first), headers=modern_headers(first))
        result = reply.json()["result"]
        assert result["resultType"] == "input_required"
        retry = modern_request(
            "tools/call",
            {
                "name": "test_elicitation",
                "arguments": {"message": "m"},
                "requestState": result["requestState"],
                "inputResponses": {"user": {"action": action}},
            },
            request_id=2,
        )
        retry["params"]["_meta"] = first["params"]["_meta"]
        reply = await client.post(base_url, content=encode(retry), headers=modern_headers(retry))
    assert reply.json()["error"]["code"] == -32602, reply.text

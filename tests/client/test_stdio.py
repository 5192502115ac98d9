"""`genmcp.client.Client` over stdio: a real `python -m genmcp run demo_tools:suite
--transport stdio` process, found by `server/discover` or spoken to as a 2025 session."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from genmcp.client import Client, ClientError, RPCError

# Real stdio server processes, about 8 s (make test-long). HANG is every wait's hang guard:
# on a loaded 2-core machine `python -m genmcp` took 21 s to start and answer (1 s of CPU),
# and the first call's wait includes that start.
HANG = 90.0
pytestmark = [pytest.mark.long, pytest.mark.timeout(4 * HANG)]

TESTS = Path(__file__).resolve().parents[1]
COMMAND = [sys.executable, "-m", "genmcp", "run", "demo_tools:suite", "--transport", "stdio"]
ENV = {"GENMCP_SECRET_KEY": "s" * 40}


def stdio_client(era: str | None = None, **options: Any) -> Client:
    return Client(COMMAND, protocol=era, cwd=str(TESTS), env=ENV, **options)


@pytest.mark.parametrize("era", [None, "2025-11-25"], ids=["2026-07-28", "2025-11-25"])
async def test_calls_progress_logs_and_elicitation(era: str | None) -> None:
    progress: list[Any] = []
    logs: list[Any] = []

    def accept(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"ok": True}}

    async with stdio_client(era, elicitation=accept) as client:
        tools = {tool["name"] for tool in await client.list_tools()}
        counted = await client.call_tool(
            "count", {"n": 2}, log_level="info",
            on_progress=lambda *a: progress.append(a), on_log=lambda *a: logs.append(a),
        )  # fmt: skip
        confirmed = await client.call_tool("confirm", {"question": "Sure?"})
        with pytest.raises(RPCError) as unknown:
            await client.call_tool("nope", {})

    assert client.era == (era or "2026-07-28")
    assert {"add", "count", "confirm"} <= tools
    assert counted["content"][0]["text"] == "counted to 2"
    assert progress == [(1, 2, "step 1"), (2, 2, "step 2")]
    assert [log[1] for log in logs] == [{"step": 1}, {"step": 2}]
    assert confirmed["structuredContent"]["confirmed"] is True
    assert unknown.value.code == -32602


@pytest.mark.exclusive
@pytest.mark.parametrize("era", [None, "2025-11-25"], ids=["2026-07-28", "2025-11-25"])
async def test_cancelling_sends_notifications_cancelled(era: str | None) -> None:
    async with stdio_client(era) as client:
        asleep = asyncio.Event()
        call = asyncio.create_task(
            client.call_tool("nap", {"seconds": 30}, on_progress=lambda *_: asleep.set())
        )
        await asyncio.wait_for(asleep.wait(), HANG)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        async with asyncio.timeout(HANG):  # a hang guard, not a budget
            while True:
                stats = (await client.call_tool("stats", {}))["structuredContent"]
                if stats["cancelled"]:
                    break
                await asyncio.sleep(0.05)

    assert stats["cancelled"] == 1


async def test_a_command_that_is_not_there_or_exits_is_a_clear_error() -> None:
    with pytest.raises(ClientError, match="cannot start"):
        async with Client(["/no/such/program"]) as client:
            await client.list_tools()
    with pytest.raises(ClientError, match="exit status 3"):
        async with Client([sys.executable, "-c", "import sys; sys.exit(3)"]) as client:
            await client.list_tools()


EVERYTHING = [
    sys.executable, "-c",
    "import sys; sys.path.insert(0, 'examples'); from everything_server import build_suite; "
    "from genmcp.transports.stdio import run_stdio; run_stdio(build_suite())",
]  # fmt: skip


@pytest.mark.parametrize("era", [None, "2025-11-25"], ids=["2026-07-28", "2025-11-25"])
async def test_listen_over_stdio(era: str | None) -> None:
    async with Client(EVERYTHING, protocol=era, cwd=str(TESTS.parent), env=ENV) as client:
        async with client.listen(prompts=False, resources=False) as changes:
            await client.call_tool("test_trigger_tool_change", {})
            note = await asyncio.wait_for(anext(changes), HANG)
            await client.call_tool("test_simple_text", {})  # the process still answers

    assert note["method"] == "notifications/tools/list_changed"

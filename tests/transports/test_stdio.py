"""The stdio transport end to end: a real `python -m genmcp run ... --transport stdio` process.

`StdioProcess` writes JSON-RPC lines to the child's stdin and reads its stdout line by line;
every stdout line must be a JSON-RPC message. The official SDK client (`mcp==2.3.0`) talks
to the same command through its own stdio transport.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest
from mcp import Client, StdioServerParameters

# Real stdio server processes, about 17 s (make test-long). Every wait below is a hang guard
# of HANG seconds: on a loaded 2-core machine `python -m genmcp` took 21 s to import and
# answer its first line (1 s of CPU), so a 10 s guard failed tests that were not hung.
HANG = 90.0
pytestmark = [pytest.mark.long, pytest.mark.timeout(4 * HANG)]

TESTS = Path(__file__).resolve().parents[1]
CAPS = {"elicitation": {}}


def request(request_id: Any, method: str, params: dict[str, Any] | None = None, **meta: Any) -> Any:
    """A 2026-07-28 request; `meta` adds `_meta` keys (`progressToken=...`, `logLevel=...`)."""
    full = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": CAPS,
    }
    for key, value in meta.items():
        full[key if key == "progressToken" else f"io.modelcontextprotocol/{key}"] = value
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**(params or {}),
            "_meta": full}}  # fmt: skip


def call(request_id: Any, name: str, arguments: dict[str, Any] | None = None, **meta: Any) -> Any:
    return request(request_id, "tools/call", {"name": name, "arguments": arguments or {}}, **meta)


INITIALIZE: Any = {
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
               "clientInfo": {"name": "raw", "version": "0"}},
}  # fmt: skip


def legacy_call(
    request_id: Any, name: str, arguments: Any = None, meta: Any = None
) -> dict[str, Any]:
    """A 2025 `tools/call`: no protocol `_meta` (the session has it)."""
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def cancelled(request_id: Any) -> dict[str, Any]:
    params = {"requestId": request_id, "reason": "test"}
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}


class StdioProcess:
    """A stdio server child process, spoken to one line at a time."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.stderr = b""

    @classmethod
    async def start(cls, target: str = "demo_tools:suite") -> StdioProcess:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "genmcp", "run", target, "--transport", "stdio",
            cwd=TESTS,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "GENMCP_SECRET_KEY": "x" * 40},
            limit=2**24,
        )  # fmt: skip
        return cls(process)

    async def send(self, message: Any) -> None:
        assert self.process.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        self.process.stdin.write(data)
        await self.process.stdin.drain()

    async def receive(self, within: float = HANG) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), within)
        if not line:  # the server went away: say why
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), HANG)
            raise AssertionError(
                f"stdout closed ({self.process.returncode}): {await self._stderr()}"
            )
        message: dict[str, Any] = json.loads(line)
        assert message.get("jsonrpc") == "2.0", line
        return message

    async def response(self, request_id: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Read until the response to `request_id`; also return what came before it."""
        before = []
        while (message := await self.receive()).get("id", object()) != request_id:
            before.append(message)
        return message, before

    async def close(self, within: float = HANG) -> tuple[int, list[dict[str, Any]], str]:
        """EOF on stdin; wait for the exit; return (status, the rest of stdout, stderr)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        rest = await asyncio.wait_for(self.process.stdout.read(), within)
        status = await asyncio.wait_for(self.process.wait(), within)
        return status, [json.loads(line) for line in rest.splitlines()], await self._stderr()

    async def _stderr(self) -> str:
        """All of stderr once the process ended (nothing while it runs: no blocking read)."""
        assert self.process.stderr is not None
        if self.process.returncode is not None:
            self.stderr += await self.process.stderr.read()
        return self.stderr.decode(errors="replace")


async def settled(server: StdioProcess) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Ask `stats` until no other worker runs; its report and any other message seen."""
    others: list[dict[str, Any]] = []
    deadline = asyncio.get_running_loop().time() + HANG  # a hang guard, not a budget
    for attempt in itertools.count():
        await server.send(call(f"stats-{attempt}", "stats"))
        answer, before = await server.response(f"stats-{attempt}")
        others += before
        report: dict[str, Any] = answer["result"]["structuredContent"]
        if report["live_workers"] == 0:
            return report, others
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"workers still running: {report}")
        await asyncio.sleep(0.02)
    raise AssertionError("unreachable")


@pytest.fixture
async def spawn() -> AsyncIterator[Callable[..., Awaitable[StdioProcess]]]:
    """`await spawn(target)` starts a server; any still running is killed at teardown."""
    children: list[StdioProcess] = []

    async def start(target: str = "demo_tools:suite") -> StdioProcess:
        children.append(await StdioProcess.start(target))
        return children[-1]

    try:
        yield start
    finally:
        for child in children:
            if child.process.returncode is None:
                child.process.kill()
                await child.process.wait()


@pytest.fixture
async def server(spawn: Callable[..., Awaitable[StdioProcess]]) -> StdioProcess:
    return await spawn()


async def test_discover_list_and_a_call_with_progress_and_logs(server: StdioProcess) -> None:
    await server.send(request("d", "server/discover"))
    discovered, _ = await server.response("d")
    await server.send(request(2, "tools/list"))
    listing, _ = await server.response(2)
    await server.send(call(3, "count", {"n": 2}, progressToken="tok", logLevel="info"))
    answer, before = await server.response(3)
    status, rest, _ = await server.close()

    assert discovered["result"]["supportedVersions"] == ["2026-07-28"]
    assert "count" in [tool["name"] for tool in listing["result"]["tools"]]
    assert answer["result"]["content"] == [{"type": "text", "text": "counted to 2"}]
    assert [(m["method"], m["params"].get("progress")) for m in before] == [
        ("notifications/progress", 1), ("notifications/message", None),
        ("notifications/progress", 2), ("notifications/message", None),
    ]  # fmt: skip
    assert before[0]["params"]["progressToken"] == "tok"
    assert (status, rest) == (0, [])


async def test_requests_run_concurrently_and_cancelled_ones_are_never_answered(
    server: StdioProcess,
) -> None:
    await server.send(call("slow", "nap", {"seconds": 30}, progressToken=1))
    await server.send(call("stream", "follow", progressToken=2))
    await server.send(call(3, "add", {"a": 1, "b": 2}))
    fast, before = await server.response(3)  # answered while the others still run
    while len(before) < 2:
        before.append(await server.receive())
    await server.send(cancelled("slow"))
    await server.send(cancelled("stream"))
    await server.send(cancelled("never-sent"))  # unknown ids are ignored
    stats, more = await settled(server)
    status, rest, stderr = await server.close()

    assert fast["result"]["content"][0]["text"] == "3"
    assert {m["params"]["progressToken"] for m in before} == {1, 2}
    assert stats == {"cancelled": 1, "closed": 1, "started": 2, "live_workers": 0}
    assert more == [] and rest == [] and status == 0
    assert "nap: cancelled" in stderr and "follow: handle_close" in stderr


async def test_bad_lines_get_parse_and_invalid_request_errors(server: StdioProcess) -> None:
    await server.send(b"{not json\n\n   \n")
    parse_error = await server.receive()
    await server.send(b"[]\n")
    batch = await server.receive()
    await server.send(b'"a string"\n{"jsonrpc":"2.0","id":7}\n')
    not_object, no_method = await server.receive(), await server.receive()
    await server.send(b"x" * (4 * 1024 * 1024 + 10) + b"\n")
    too_long = await server.receive()
    await server.send({"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
    no_meta = await server.receive()
    await server.send(request(9, "ping"))
    unknown = await server.receive()
    await server.send(call(10, "nap", {"seconds": 30}))
    await server.send(call(10, "add", {"a": 1, "b": 1}))
    duplicate = await server.receive()
    await server.send(cancelled(10))
    await server.send(call(11, "add", {"a": 1, "b": 1}))
    still_serving = await server.receive()

    assert parse_error["error"]["code"] == -32700
    assert [m["error"]["code"] for m in (batch, not_object, no_method, too_long)] == [-32600] * 4
    assert "over 4194304 bytes" in too_long["error"]["message"]
    assert (no_meta["id"], no_meta["error"]["code"]) == (8, -32602)
    assert (unknown["id"], unknown["error"]["code"]) == (9, -32601)
    assert (duplicate["id"], duplicate["error"]["code"]) == (10, -32600)
    assert "already in flight" in duplicate["error"]["message"]
    assert still_serving == {**still_serving, "id": 11} and "result" in still_serving


async def test_nothing_but_protocol_reaches_stdout(server: StdioProcess) -> None:
    await server.send(call(1, "chatty"))
    answer, before = await server.response(1)
    status, rest, stderr = await server.close()

    assert answer["result"]["content"][0]["text"] == "said things"
    assert before == [] and rest == [] and status == 0
    for said in ("print() to stdout", "a log record", "raw write to fd 1"):
        assert f"chatty: {said}" in stderr


async def test_eof_answers_quick_requests_then_ends_every_worker(server: StdioProcess) -> None:
    child = server
    await child.send(call(1, "follow", progressToken="f"))
    await child.send(call(2, "nap", {"seconds": 30}, progressToken="n"))
    for _ in range(2):
        await child.receive()  # both workers are running
    await child.send(call(3, "count", {"n": 1, "delay": 0.1}))

    status, rest, stderr = await child.close()  # the nap was cancelled, not run out (below)

    assert status == 0
    assert [m.get("id") for m in rest] == [3]  # answered within the grace; 1 and 2 never
    assert "follow: handle_close" in stderr and "nap: cancelled" in stderr
    assert "still running at exit" not in stderr  # every worker ended, none waited out


async def test_sigterm_ends_every_call_and_exits_cleanly(server: StdioProcess) -> None:
    await server.send(call(1, "follow", progressToken=1))
    await server.receive()  # the stream is open
    server.process.send_signal(signal.SIGTERM)
    status = await asyncio.wait_for(server.process.wait(), HANG)
    stderr = await server._stderr()

    assert status == 0
    assert "follow: handle_close" in stderr and "Fatal Python error" not in stderr


async def test_a_client_that_closes_our_stdout_ends_the_process(server: StdioProcess) -> None:
    await server.send(call(1, "follow", progressToken=1))
    await server.receive()
    stdout = server.process._transport.get_pipe_transport(1)  # type: ignore[attr-defined]
    stdout.close()
    await asyncio.sleep(0.1)  # the pipe is closed once the loop ran the close
    await server.send(call(2, "count", {"n": 1}, progressToken=2))  # its writes fail
    status = await asyncio.wait_for(server.process.wait(), HANG)
    stderr = await server._stderr()

    assert status == 0
    assert "stdout closed (BrokenPipeError" in stderr and "follow: handle_close" in stderr
    assert "Fatal Python error" not in stderr and "Exception ignored" not in stderr


async def test_an_app_is_served_through_its_suite_and_a_late_initialize_is_refused(
    spawn: Callable[..., Awaitable[StdioProcess]],
) -> None:
    child = await spawn("demo_tools:app")
    await child.send(request(1, "tools/list"))
    listing, _ = await child.response(1)
    await child.send(INITIALIZE)  # after a modern first message: not a legacy process
    refused = await child.receive()
    status, _, _ = await child.close()

    assert "add" in [tool["name"] for tool in listing["result"]["tools"]]
    assert refused["error"]["code"] == -32022
    assert refused["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2025-06-18"}
    assert status == 0


async def test_a_first_initialize_makes_a_legacy_session(server: StdioProcess) -> None:
    await server.send(INITIALIZE)
    initialized, _ = await server.response(0)
    await server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    await server.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    pong, _ = await server.response(1)
    await server.send({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
                       "params": {"level": "info"}})  # fmt: skip
    await server.response(2)
    await server.send(legacy_call(3, "count", {"n": 1}, {"progressToken": "p"}))
    counted, before = await server.response(3)
    await server.send(request(4, "server/discover"))
    modern_only, _ = await server.response(4)
    status, rest, _ = await server.close()

    result = initialized["result"]
    assert (result["protocolVersion"], result["serverInfo"]["name"]) == ("2025-06-18", "demo")
    assert "resultType" not in result and pong["result"] == {}
    assert counted["result"] == {"content": [{"type": "text", "text": "counted to 1"}]}
    assert [m["method"] for m in before] == ["notifications/progress", "notifications/message"]
    assert modern_only["error"]["code"] == -32601
    assert (status, rest) == (0, [])


async def test_legacy_input_required_becomes_a_server_request(server: StdioProcess) -> None:
    await server.send(INITIALIZE)
    await server.response(0)
    await server.send(legacy_call(1, "confirm", {"question": "Go?"}))
    asked = await server.receive()
    await server.send({"jsonrpc": "2.0", "id": asked["id"],
                       "result": {"action": "accept", "content": {"ok": True}}})  # fmt: skip
    confirmed, _ = await server.response(1)
    await server.send(legacy_call(2, "nap", {"seconds": 30}, {"progressToken": 2}))
    asleep = await server.receive()  # the nap has started
    await server.send(cancelled(2))
    await server.send(legacy_call(3, "stats"))
    stats, more = await server.response(3)
    status, rest, stderr = await server.close()

    assert (asked["method"], asked["params"]["message"]) == ("elicitation/create", "Go?")
    assert "mode" not in asked["params"]  # 2025-06-18 has no elicitation modes
    assert confirmed["result"]["structuredContent"] == {"confirmed": True, "rounds": 2}
    assert asleep["params"] == {"progressToken": 2, "progress": 0, "message": "asleep"}
    assert stats["result"]["structuredContent"]["started"] == 1
    assert (more, rest, status) == ([], [], 0)
    assert "nap: cancelled" in stderr


async def test_a_legacy_answer_that_does_not_parse_fails_the_waiting_request(
    server: StdioProcess,
) -> None:
    """Finding F3 over stdio: the one waiting server request fails at once (cancel)."""
    await server.send(INITIALIZE)
    await server.response(0)
    await server.send(legacy_call(1, "confirm", {"question": "Go?"}))
    asked = await server.receive()
    await server.send(b'{"jsonrpc": "2.0", "id": "' + asked["id"].encode() + b"\n")
    first, second = await server.receive(), await server.receive()
    refused, answered = (first, second) if "id" not in first else (second, first)
    assert refused["error"]["code"] == -32700
    assert f'"{asked["id"]}" failed with this error' in refused["error"]["message"]
    assert answered["id"] == 1
    assert answered["result"]["content"][0]["text"] == "not confirmed (cancel)"  # not -32001


async def sdk_settled(client: Client) -> Any:
    """`stats` through the SDK client, once no other worker runs."""
    with anyio.fail_after(HANG):  # a hang guard, not a budget
        while True:
            report = (await client.call_tool("stats")).structured_content
            if isinstance(report, dict) and report["live_workers"] == 0:
                return report
            await anyio.sleep(0.02)


async def test_the_official_sdk_client_talks_to_it_in_legacy_mode() -> None:
    asked: list[str] = []

    async def on_elicit(context: Any, params: Any) -> mcp_types.ElicitResult:
        asked.append(params.message)
        return mcp_types.ElicitResult(action="decline")

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    progress: list[float] = []
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "genmcp", "run", "demo_tools:suite", "--transport", "stdio"],
        cwd=TESTS,
    )
    async with Client(parameters, mode="legacy", elicitation_callback=on_elicit) as client:
        version = client.protocol_version
        added = await client.call_tool("add", {"a": 2, "b": 3})
        counted = await client.call_tool("count", {"n": 2}, progress_callback=on_progress)
        declined = await client.call_tool("confirm", {"question": "Go?"})

    assert version == "2025-11-25"
    assert added.content[0].text == "5"  # type: ignore[union-attr]
    assert counted.content[0].text == "counted to 2" and progress == [1, 2]  # type: ignore[union-attr]
    assert (asked, declined.content[0].text) == (["Go?"], "not confirmed (decline)")  # type: ignore[union-attr]


async def test_the_official_sdk_client_talks_to_it_over_stdio() -> None:
    progress: list[tuple[float, float | None, str | None]] = []
    asked: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def on_elicit(context: Any, params: Any) -> mcp_types.ElicitResult:
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"ok": True})

    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "genmcp", "run", "demo_tools:suite", "--transport", "stdio"],
        cwd=TESTS,
    )
    async with Client(parameters, elicitation_callback=on_elicit) as client:
        assert client.protocol_version == "2026-07-28"
        names = [tool.name for tool in (await client.list_tools()).tools]
        added = await client.call_tool("add", {"a": 2, "b": 3})
        counted = await client.call_tool("count", {"n": 2}, progress_callback=on_progress)
        confirmed = await client.call_tool("confirm", {"question": "Go?"})
        asleep = anyio.Event()

        async def on_nap(value: float, total: float | None, message: str | None) -> None:
            asleep.set()

        with anyio.fail_after(HANG):
            async with anyio.create_task_group() as group:  # the SDK sends notifications/cancelled
                group.start_soon(client.call_tool, "nap", {"seconds": 30}, None, on_nap)
                await asleep.wait()
                group.cancel_scope.cancel()
            stats = await sdk_settled(client)

    assert {"add", "count", "confirm"} <= set(names)
    assert added.content[0].text == "5"  # type: ignore[union-attr]
    assert counted.content[0].text == "counted to 2"  # type: ignore[union-attr]
    assert progress == [(1, 2, "step 1"), (2, 2, "step 2")]
    assert (asked, confirmed.structured_content) == (["Go?"], {"confirmed": True, "rounds": 2})
    assert stats == {"cancelled": 1, "closed": 0, "started": 1, "live_workers": 0}

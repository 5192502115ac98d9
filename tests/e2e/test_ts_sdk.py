"""The official TypeScript SDK client (`@modelcontextprotocol/client` 2.4.0) against
examples/everything_server.py, in 2026-07-28 mode and in legacy mode.

`tests/e2e/ts/client.mjs` runs under node: it lists, calls, receives progress, cancels and
completes an elicitation, and prints a JSON report. A real uvicorn serves the example behind
a wire recorder, so the test checks what the client saw, what crossed the wire (each era's
own path), and that the server really stopped the cancelled call.

The client is installed once into `.cache/ts-client/` (`GENMCP_TS_CLIENT_DIR` to move it)
with npm; a stamp file records the installed version. It needs node >= 20: the system node,
else the Node 22 that `make conformance` installs under `.cache/conformance/`. Without node
or npm, or when the install fails (no registry), the tests are skipped with the reason;
under CI (`CI` set) they fail instead, so CI never passes without running them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final, NoReturn

import pytest

from support import examples, required
from support.cachelock import installing
from support.recorder import Recorder
from support.server import LiveServers

TS_CLIENT: Final = "@modelcontextprotocol/client@2.4.0"
REPO: Final = Path(__file__).resolve().parents[2]
SCRIPT: Final = Path(__file__).resolve().parent / "ts" / "client.mjs"
CACHE: Final = Path(os.environ.get("GENMCP_TS_CLIENT_DIR") or REPO / ".cache" / "ts-client")
ENTRY: Final = CACHE / "node_modules" / "@modelcontextprotocol" / "client" / "dist" / "index.mjs"
CONFORMANCE_NODES: Final = REPO / ".cache" / "conformance" / "node22" / "node_modules"
MODERN: Final = "2026-07-28"
LEGACY: Final = "2025-11-25"
SIMPLE_TEXT: Final = [{"type": "text", "text": "This is a simple text response for testing."}]

everything = examples.load("everything_server")


def unavailable(reason: str) -> NoReturn:
    required.unavailable(reason, "the TypeScript interop tests")


def node_major(node: str) -> int:
    try:
        out = subprocess.run(
            [node, "-p", "process.versions.node.split('.')[0]"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
        return int(out.strip())
    except (OSError, subprocess.SubprocessError, ValueError):
        return 0


def find_node() -> str:
    """A node >= 20 (the client's engines field): the system one, else the conformance one."""
    candidates = [shutil.which("node"), *map(str, CONFORMANCE_NODES.glob("node-linux-*/bin/node"))]
    for node in candidates:
        if node and node_major(node) >= 20:
            return node
    unavailable("no node >= 20 to run the TypeScript SDK client (install Node.js 20 or newer)")


def install_client() -> Path:
    """Install the client into CACHE once; return its ESM entry point."""
    with installing(CACHE):  # one installer at a time: each xdist worker may get here
        return _install_client()


def _install_client() -> Path:
    stamp = CACHE / ".installed"
    if ENTRY.is_file() and stamp.is_file() and stamp.read_text().strip() == TS_CLIENT:
        return ENTRY
    npm = shutil.which("npm")
    if npm is None:
        unavailable(f"npm is needed to install {TS_CLIENT}")
    shutil.rmtree(CACHE, ignore_errors=True)
    CACHE.mkdir(parents=True)
    command = [npm, "install", "--prefix", str(CACHE), "--no-audit", "--no-fund"]
    try:
        subprocess.run(
            [*command, "--loglevel=error", TS_CLIENT],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
    except subprocess.CalledProcessError as exc:
        unavailable(f"npm install {TS_CLIENT} failed: {exc.stderr.strip()[-500:]}")
    except subprocess.TimeoutExpired:
        unavailable(f"npm install {TS_CLIENT} took over 300 s")
    if not ENTRY.is_file():
        unavailable(f"npm installed {TS_CLIENT} but {ENTRY} is missing")
    stamp.write_text(TS_CLIENT + "\n")
    return ENTRY


@pytest.fixture(scope="module")
def ts_client() -> Callable[[str, str], dict[str, Any]]:
    """`run(url, mode)`: run client.mjs against `url`; return its JSON report."""
    node, entry = find_node(), install_client()

    def run(url: str, mode: str) -> dict[str, Any]:
        done = subprocess.run(
            [node, str(SCRIPT), str(entry), url, mode],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"client.mjs {mode} failed:\n{done.stderr}"
        report: dict[str, Any] = json.loads(done.stdout)
        return report

    return run


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Recorder]]:
    recorder = Recorder(everything.app)
    live = LiveServers()
    try:
        yield live(recorder) + "/mcp", recorder
    finally:
        live.stop_all()


def wait_until(check: Callable[[], bool], within: float = 5.0) -> None:
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


def check_report(report: dict[str, Any], version: str) -> None:
    """What the client saw: the five interactions, whatever the era."""
    assert report["protocolVersion"] == version
    assert report["serverInfo"] == {"name": "everything", "version": "1.0.0"}
    tools = report["tools"]
    assert {"test_simple_text", "test_tool_with_progress", "test_elicitation"} <= set(tools)
    assert "test_long_running_operation" in tools
    assert report["simpleText"] == SIMPLE_TEXT
    progress = report["progress"]
    assert [(p["progress"], p["total"]) for p in progress["notifications"]] == [
        (0, 100),
        (50, 100),
        (100, 100),
    ]
    assert progress["content"] == [{"type": "text", "text": "Progress tool finished."}]
    cancel = report["cancel"]
    assert cancel["outcome"] == "rejected", cancel
    assert "cancelled by the interop test" in cancel["error"]
    assert cancel["progressSeen"] == 2
    elicitation = report["elicitation"]
    [asked] = elicitation["asked"]
    assert asked["message"] == "Who are you?"
    assert asked["requestedSchema"]["required"] == ["username", "email"]
    assert elicitation["content"] == [
        {
            "type": "text",
            "text": 'User response: action=accept, content={"username": "ada", '
            '"email": "ada@example.com"}',
        }
    ]
    assert report["after"] == SIMPLE_TEXT


def test_modern(served: tuple[str, Recorder], ts_client: Callable[..., dict[str, Any]]) -> None:
    url, wire = served
    wire.exchanges.clear()
    report = ts_client(url, "modern")
    check_report(report, MODERN)
    assert report["era"] == "modern" and report["sessionId"] is None
    # The cancelled call would run for 30 s: the server stopped it when the POST closed.
    wait_until(lambda: everything.router.suite.live_workers == 0)

    posts = wire.posts()
    assert posts[0].rpc_method == "server/discover"
    assert not wire.posts("initialize")
    for post in posts:
        assert post.headers["mcp-protocol-version"] == MODERN, post
        assert "mcp-session-id" not in post.headers, post
        assert post.body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == MODERN
    assert wire.posts("notifications/cancelled") == []  # aborting the POST is the cancel
    first, retry = wire.calls("test_elicitation")  # an input_required round, then the retry
    assert "inputResponses" not in first.body["params"]
    assert retry.body["params"]["inputResponses"]["user"]["action"] == "accept"
    assert all(exchange.method == "POST" for exchange in wire.exchanges)


def test_legacy(served: tuple[str, Recorder], ts_client: Callable[..., dict[str, Any]]) -> None:
    url, wire = served
    wire.exchanges.clear()
    report = ts_client(url, "legacy")
    check_report(report, LEGACY)
    assert report["era"] == "legacy" and report["sessionId"]
    wait_until(lambda: everything.router.suite.live_workers == 0)

    [initialize] = wire.posts("initialize")
    assert initialize.body["params"]["capabilities"]["elicitation"] is not None
    later = [e for e in wire.exchanges if e is not initialize]
    assert all(e.headers.get("mcp-session-id") == report["sessionId"] for e in later)
    [long] = wire.calls("test_long_running_operation")
    [cancel] = wire.posts("notifications/cancelled")
    assert cancel.body["params"]["requestId"] == long.body["id"] and cancel.status == 202
    assert len(wire.calls("test_elicitation")) == 1  # the question went out on its POST stream
    [answer] = [e for e in wire.posts() if e.is_rpc_response]
    assert answer.status == 202 and answer.body["result"]["action"] == "accept"
    deletes = [e for e in wire.exchanges if e.method == "DELETE"]
    assert [e.status for e in deletes] == [200]

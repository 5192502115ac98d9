"""Issue 17, item 7: the `genmcp` commands that look a server over, answer elicitation on the
terminal, fall back to a 2025 session, and install into MCP clients.

`examples/shop_app.py` runs under a real uvicorn subprocess; the commands run as real
`python -m genmcp` subprocesses (stdin piped for the elicitation form). The 2025 fallback is
shown against the same app behind a gate that answers every 2026-07-28 request the way a
2025-only server does (HTTP 400, "Missing session ID"), served by LiveServer.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from genmcp.cli.client import CLIError, HTTPClient
from genmcp.cli.form import ask_on_terminal, parse_field
from support.examples import load
from support.server import LiveServers

pytestmark = pytest.mark.long  # real genmcp processes, about 18 s (make test-long)

ROOT: Final = Path(__file__).resolve().parents[2]
GENMCP: Final = [sys.executable, "-m", "genmcp"]
TOKEN: Final = ["-H", "Authorization: Bearer alice-token"]
STRONG: Final = "q4Xv9Lr2Tz7Wm1Kc8Np3Hs6Jd0Fg5Ab-Ye_Uo"  # 37 characters, all distinct


def genmcp(*argv: str, stdin: str = "", cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*GENMCP, *argv], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=60
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    """`uvicorn shop_app:app` in a subprocess; the MCP URL."""
    with __import__("socket").socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--app-dir", "examples", "shop_app:app",
         "--port", str(port), "--log-level", "warning"],
        cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        for _ in range(400):
            try:
                HTTPClient(url, timeout=2, headers={"Authorization": "Bearer alice-token"}).probe()
                break
            except CLIError:
                if process.poll() is not None:
                    raise AssertionError(process.communicate()) from None
                __import__("time").sleep(0.05)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGINT)
        process.communicate(timeout=15)


def test_inspect_shows_the_server_and_every_schema(shop: str) -> None:
    done = genmcp("inspect", shop, *TOKEN)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"shop 1.0.0 at {shop}"
    assert lines[1] == "protocol  2026-07-28"
    assert "tool stock  Units in stock." in lines
    assert "  output: {" in lines and "prompt pitch(product)  Write a sales pitch." in lines
    assert "template shop://products/{name}  product" in lines
    report = json.loads(genmcp("inspect", shop, *TOKEN, "--json").stdout)
    assert report["serverInfo"] == {"name": "shop", "version": "1.0.0"}
    tools = {tool["name"]: tool for tool in report["tools"]}
    assert tools["stock"]["inputSchema"]["required"] == ["name"]


def test_resources_read_prompts_and_completion(shop: str) -> None:
    listed = genmcp("resources", shop, *TOKEN)
    assert listed.stdout == "shop://products/{name}  (template) product\n"
    assert genmcp("read", shop, "shop://products/hammer", *TOKEN).stdout == "12 units\n"
    assert genmcp("prompts", shop, *TOKEN).stdout == "pitch  (product) Write a sales pitch.\n"
    got = genmcp("prompt", shop, "pitch", "-a", "product=saw", *TOKEN)
    assert got.stdout == "[user] Sell saw\n"
    assert genmcp("complete", shop, "--prompt", "pitch", "product", "", *TOKEN).stdout == (
        "hammer\nsaw\n"
    )
    assert genmcp("complete", shop, "--prompt", "pitch", "product", "h", *TOKEN).stdout == (
        "hammer\n"
    )


@pytest.mark.parametrize(
    ("typed", "out"), [("y\n", "alice bought ['hammer']\n"), ("n\n", "Not bought.\n")]
)
def test_call_answers_elicitation_on_the_terminal(shop: str, typed: str, out: str) -> None:
    done = genmcp("call", shop, "buy", "-a", "name=hammer", *TOKEN, stdin=typed)
    assert (done.returncode, done.stdout) == (0, out), done.stderr
    assert "Buy a hammer?" in done.stderr
    assert "  yes (boolean): " in done.stderr


def test_call_cancels_at_end_of_input_and_no_input_refuses(shop: str) -> None:
    cancelled = genmcp("call", shop, "buy", "-a", "name=saw", *TOKEN, stdin="")
    assert cancelled.stdout == "Not bought.\n"  # the tool reads a cancel as "no"
    refused = genmcp("call", shop, "buy", "-a", "name=saw", "--no-input", *TOKEN)
    assert refused.returncode == 1
    assert "Missing required client capability: elicitation (-32021)" in refused.stderr


# -- a server without 2026-07-28 ------------------------------------------------------------


class Only2025:
    """ASGI gate: a 2026-07-28 request gets what a 2025-only server answers (400)."""

    def __init__(self, app: Any) -> None:
        self.app, self.modern_refused = app, 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or ()) if scope["type"] == "http" else {}
        if headers.get(b"mcp-protocol-version") == b"2026-07-28":
            self.modern_refused += 1
            body = b'{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,' \
                   b'"message":"Bad Request: Missing session ID"}}'  # fmt: skip
            await send({"type": "http.response.start", "status": 400,
                        "headers": [(b"content-type", b"application/json")]})  # fmt: skip
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def test_a_2025_only_server_is_used_through_a_session(
    live_server: LiveServers, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from genmcp.cli import main

    gate = Only2025(load("shop_app").app)
    url = live_server(gate) + "/mcp"
    token = ["-H", "Authorization: Bearer alice-token"]
    assert main(["inspect", url, *token]) == 0
    out = capsys.readouterr().out
    assert "protocol  2025-11-25  (2025 session fallback)" in out
    assert "tool buy  Buys one item after the user confirms." in out
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO("yes\n"))
    assert main(["call", url, "buy", "-a", "name=saw", *token]) == 0
    captured = capsys.readouterr()
    assert captured.out == "alice bought ['saw']\n"  # asked on the session's SSE stream
    assert "Buy a saw?" in captured.err
    assert main(["read", url, "shop://products/hammer", *token]) == 0
    assert capsys.readouterr().out.endswith("units\n")
    assert gate.modern_refused == 3  # one probe per command, then the session


def test_a_server_that_is_not_mcp_at_all_is_one_line(live_server: LiveServers) -> None:
    from fastapi import FastAPI

    url = live_server(FastAPI()) + "/mcp"
    with pytest.raises(CLIError, match=r"answered HTTP 404 Not Found, not MCP"):
        HTTPClient(url, timeout=5).list_tools()


# -- the terminal form ----------------------------------------------------------------------


def test_the_form_checks_types_retries_and_keeps_defaults() -> None:
    import io

    schema = {
        "type": "object",
        "properties": {
            "qty": {"type": "integer", "minimum": 1, "title": "Quantity"},
            "size": {"type": "string", "enum": ["S", "M"], "default": "M"},
            "note": {"type": "string"},
        },
        "required": ["qty"],
    }
    ask = {"method": "elicitation/create", "params": {"message": "Order?",
                                                      "requestedSchema": schema}}  # fmt: skip
    err = io.StringIO()
    answer = ask_on_terminal(ask, stdin=io.StringIO("two\n0\n3\n\n\n"), out=err)
    assert answer == {"action": "accept", "content": {"qty": 3, "size": "M"}}
    assert "expected an integer" in err.getvalue() and "minimum is 1" in err.getvalue()
    assert "  Quantity (integer, required): " in err.getvalue()
    declined = ask_on_terminal(ask, stdin=io.StringIO("decline\n"), out=io.StringIO())
    assert declined == {"action": "decline"}
    with pytest.raises(ValueError, match="choose one of S, M"):
        parse_field(schema["properties"]["size"], "XL")


# -- install --------------------------------------------------------------------------------


def test_install_writes_each_clients_config(tmp_path: Path) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}, "theme": "dark"}))
    done = genmcp("install", "claude-desktop", "shop_app:app", "--app-dir", "examples",
                  "--config", str(config), "-e", f"GENMCP_SECRET_KEY={STRONG}")  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = json.loads(config.read_text())
    assert written["theme"] == "dark" and written["mcpServers"]["other"] == {"command": "x"}
    assert written["mcpServers"]["shop_app"] == {
        "command": sys.executable,
        "args": ["-m", "genmcp", "run", "shop_app:app", "--transport", "stdio",
                 "--app-dir", str(ROOT / "examples")],
        "env": {"GENMCP_SECRET_KEY": STRONG},
    }  # fmt: skip
    code = tmp_path / ".mcp.json"
    shown = genmcp("install", "claude-code", "http://127.0.0.1:8000/mcp", "--name", "shop",
                   "--config", str(code), "--dry-run", "-H", "Authorization: Bearer t")  # fmt: skip
    assert not code.exists()
    assert json.loads(shown.stdout.split("\n", 1)[1]) == {"mcpServers": {"shop": {
        "type": "http", "url": "http://127.0.0.1:8000/mcp",
        "headers": {"Authorization": "Bearer t"}}}}  # fmt: skip
    cursor = tmp_path / "cursor.json"
    genmcp("install", "cursor", "http://h/mcp", "--name", "s", "--config", str(cursor))
    assert json.loads(cursor.read_text()) == {"mcpServers": {"s": {"url": "http://h/mcp"}}}


def test_install_refuses_what_the_client_cannot_run(tmp_path: Path) -> None:
    done = genmcp("install", "claude-desktop", "http://h/mcp", "--config", str(tmp_path / "c"))
    assert done.returncode == 2
    assert "Claude Desktop starts local servers only (stdio)" in done.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    broken = genmcp("install", "cursor", "m:app", "--config", str(bad), "--no-check")
    assert broken.returncode == 2 and "is not valid JSON" in broken.stderr

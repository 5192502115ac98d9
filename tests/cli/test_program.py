"""The `genmcp` command line: `run`, `list` and `call` against real servers.

`list`/`call` run in-process through `cli.program` (fast) against a `live_server`, and as real
subprocesses where the process matters (progress printed as it arrives, import errors
without tracebacks, `genmcp run` serving over HTTP, the console script).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.metadata import requires
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Header, HTTPException

from demo_tools import make_suite
from genmcp import mcp_router
from genmcp.cli import UsageError, main, parse_arguments
from genmcp.cli.client import CLIError, HTTPClient
from support.server import LiveServers

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
GENMCP = [sys.executable, "-m", "genmcp"]


def demo_app() -> FastAPI:
    app = FastAPI()
    app.include_router(mcp_router(suite=make_suite()), prefix="/mcp")
    return app


@pytest.fixture
def demo_url(live_server: LiveServers) -> str:
    return live_server(demo_app()) + "/mcp"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`genmcp ARGV` in-process: (exit status, stdout, stderr)."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until_served(url: str, process: subprocess.Popen[str], within: float = 20.0) -> None:
    deadline = time.monotonic() + within
    while True:
        try:
            HTTPClient(url, timeout=2).list_tools()
            return
        except CLIError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"never served {url}: {process.communicate()}") from None
            time.sleep(0.05)


@contextlib.contextmanager
def serving(*argv: str, cwd: Path) -> Iterator[subprocess.Popen[str]]:
    """`genmcp run ...` as a subprocess in its own session, stopped (SIGINT) at the end.

    `process.output` holds (stdout, stderr) afterwards.
    """
    process = subprocess.Popen(
        [*GENMCP, "run", *argv], cwd=cwd, text=True, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
        try:
            process.output = process.communicate(timeout=15)  # type: ignore[attr-defined]
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise


# -- list and call --------------------------------------------------------------------


def test_list_prints_one_line_per_tool(capsys: pytest.CaptureFixture[str], demo_url: str) -> None:
    status, out, _ = run(capsys, "list", demo_url)
    _, raw, _ = run(capsys, "list", demo_url, "--json")

    lines = out.splitlines()
    assert status == 0
    assert [line.split()[0] for line in lines] == sorted(line.split()[0] for line in lines)
    assert "add      Adds two numbers." in lines  # names padded to the longest (`confirm`)
    assert "add" in [tool["name"] for tool in __import__("json").loads(raw)]


def test_call_prints_the_text_result(capsys: pytest.CaptureFixture[str], demo_url: str) -> None:
    assert run(capsys, "call", demo_url, "add", "--arg", "a=1", "--arg", "b=2.5") == (
        0,
        "3.5\n",
        "",
    )


def test_call_json_sends_json_arguments_and_header_params(
    capsys: pytest.CaptureFixture[str], demo_url: str
) -> None:
    status, out, _ = run(
        capsys, "call", demo_url, "echo", "--arg", "region=Zürich", "--arg", 'value=[1,"x",null]',
        "--json",
    )  # fmt: skip

    result = __import__("json").loads(out)
    assert status == 0
    assert result["structuredContent"] == {"region": "Zürich", "value": [1, "x", None]}


@pytest.mark.parametrize(
    ("pair", "value"),
    [("n=1", 1), ("x=1.5", 1.5), ("b=true", True), ("z=null", None), ("l=[1, 2]", [1, 2]),
     ('o={"k": "v"}', {"k": "v"}), ("s=hello", "hello"), ('q="42"', "42"), ("e=", ""),
     ("eq=a=b", "a=b")],
)  # fmt: skip
def test_arg_values_are_json_when_they_parse_else_text(pair: str, value: Any) -> None:
    key = pair.partition("=")[0]
    assert parse_arguments([pair]) == {key: value}


@pytest.mark.long  # about 5 s: make test-long
def test_progress_and_logs_go_to_stderr_as_they_arrive(live_server: LiveServers) -> None:
    url = live_server(demo_app()) + "/mcp"
    argv = ["call", url, "count", "--arg", "n=3", "--arg", "delay=0.3", "--log-level", "info"]
    process = subprocess.Popen([*GENMCP, *argv], text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)  # fmt: skip
    assert process.stderr is not None and process.stdout is not None
    with process:
        first = process.stderr.readline()
        still_running = process.poll() is None
        err = first + process.stderr.read()  # the same buffered reader: nothing lost
        out = process.stdout.read()
        process.wait(20)

    assert first == "progress 1/3 step 1\n" and still_running
    assert err.splitlines() == [
        "progress 1/3 step 1", '[info] count: {"step": 1}',
        "progress 2/3 step 2", '[info] count: {"step": 2}',
        "progress 3/3 step 3", '[info] count: {"step": 3}',
    ]  # fmt: skip
    assert (process.returncode, out) == (0, "counted to 3\n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nope"], "unknown tool 'nope' at {url} (tools: add, boom, chatty, confirm,"),
        (["boom"], "genmcp: error: Internal error in tool 'boom' (its traceback is in the server"),
        (["confirm", "--arg", "question=?", "--no-input"],
         "Missing required client capability: elicitation (-32021)"),
        (["add", "--arg", "a=1"], None),  # a tool-level error result (invalid arguments)
    ],
)  # fmt: skip
def test_failed_calls_exit_1_with_one_line(
    capsys: pytest.CaptureFixture[str], demo_url: str, argv: list[str], message: str | None
) -> None:
    status, out, err = run(capsys, "call", demo_url, *argv)

    assert status == 1
    if message is None:
        assert "Invalid arguments for tool 'add'" in out
        assert err == "genmcp: 'add' reported an error\n"
    else:
        assert message.format(url=demo_url) in err and err.count("\n") == 1


def test_no_server_or_not_mcp_are_clear_errors(
    capsys: pytest.CaptureFixture[str], live_server: LiveServers
) -> None:
    nobody = f"http://127.0.0.1:{free_port()}/mcp"
    wrong_path = live_server(demo_app()) + "/elsewhere"

    refused = run(capsys, "call", nobody, "add")
    not_mcp = run(capsys, "list", wrong_path)
    bad_arg = run(capsys, "call", nobody, "add", "--arg", "oops")
    bad_url = run(capsys, "list", "ftp://example.com/mcp")

    assert refused == (1, "", f"genmcp: error: cannot connect to {nobody}: connection refused\n")
    assert not_mcp[0] == 1 and f"{wrong_path} answered HTTP 404 Not Found, not MCP" in not_mcp[2]
    assert bad_arg == (2, "", "genmcp: error: --arg 'oops': expected KEY=VALUE\n")
    assert bad_url == (1, "", "genmcp: error: not an http(s) URL: 'ftp://example.com/mcp'\n")


def test_headers_reach_the_server(
    capsys: pytest.CaptureFixture[str], live_server: LiveServers
) -> None:
    def auth(authorization: str = Header("")) -> str:
        if authorization != "Bearer let-me-in":
            raise HTTPException(401, "missing or bad token")
        return "ann"

    app = FastAPI()
    app.include_router(mcp_router(suite=make_suite(), auth=auth), prefix="/mcp")
    url = live_server(app) + "/mcp"

    refused = run(capsys, "list", url)
    allowed = run(
        capsys,
        "call",
        url,
        "add",
        "-a",
        "a=1",
        "-a",
        "b=1",
        "-H",
        "Authorization: Bearer let-me-in",
    )

    assert refused[0] == 1
    assert (
        'answered HTTP 401 Unauthorized, not MCP: {"detail":"missing or bad token"}' in refused[2]
    )
    assert allowed == (0, "2\n", "")


# -- run ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nosuch.module:app"], "cannot import 'nosuch.module': no module named 'nosuch'"),
        (["demo_tools:nope"], "module 'demo_tools' has no attribute 'nope'"),
        (["demo_tools:not_a_server"], "cannot serve 42: expected a Suite, an MCPRouter"),
        (["demo_tools"], "expected MODULE:ATTR (e.g. examples.app:app), got 'demo_tools'"),
        (["demo_tools:not_a_server", "--transport", "stdio"], "no Suite found in 42"),
        (["demo_tools:app", "--app-dir", "/no/such/dir"], "--app-dir '/no/such/dir' is not a"),
        (["demo_tools:suite", "--transport", "stdio", "--reload"], "--reload works with"),
    ],
)
def test_bad_import_paths_exit_2_without_a_traceback(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run(capsys, "run", *argv)

    assert (status, out) == (2, "")
    assert message in err and err.count("\n") == 1


def test_a_bad_import_path_in_a_real_process_prints_one_line() -> None:
    done = subprocess.run([*GENMCP, "run", "nosuch:app"], cwd=TESTS, capture_output=True,
                          text=True, timeout=30)  # fmt: skip

    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "genmcp: error: cannot import 'nosuch': no module named 'nosuch'\n"


def test_run_serves_a_suite_at_mcp_over_http(capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with serving("demo_tools:suite", "--port", str(port), cwd=TESTS) as process:
        wait_until_served(url, process)
        status, out, _ = run(capsys, "call", url, "add", "--arg", "a=2", "--arg", "b=2")
    _, err = process.output  # type: ignore[attr-defined]

    assert (status, out) == (0, "4\n")
    assert f"genmcp: MCP at {url} (uvloop, httptools)\n" in err  # the fast pair, installed


def test_the_default_install_brings_the_fast_stack_and_uvicorn_picks_it() -> None:
    """``pip install genmcp`` brings uvloop and httptools (where wheels exist), so a plain
    ``uvicorn app:app`` (uvicorn's "auto") serves with them too, not only ``genmcp run``."""
    import uvicorn
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    required = {re.split(r"[<>=;\s\[]", r, maxsplit=1)[0] for r in requires("genmcp") or ()}
    assert {"uvloop", "httptools"} <= required
    config = uvicorn.Config(lambda scope, receive, send: None)  # loop and http: "auto"
    config.load()
    loop = config.get_loop_factory()
    assert config.http_protocol_class is HttpToolsProtocol
    assert loop is not None and type(loop()).__module__.startswith("uvloop")


@pytest.mark.long  # about 4 s (a reloader and its child): make test-long
def test_run_reload_serves_an_app_and_stops_with_its_child() -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with serving("examples.app:app", "--port", str(port), "--reload", cwd=ROOT) as process:
        wait_until_served(url, process)
        names = [tool["name"] for tool in HTTPClient(url).list_tools()]

    assert "add" in names and process.returncode is not None
    with pytest.raises(CLIError, match="connection refused"):
        HTTPClient(url, timeout=2).list_tools()


def test_help_shows_examples_through_both_entry_points() -> None:
    script = Path(sys.executable).with_name("genmcp")
    for command in ([*GENMCP, "--help"], [str(script), "call", "--help"]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0 and "examples:" in done.stdout
        assert "genmcp call http://127.0.0.1:8000/mcp add --arg a=1 --arg b=2" in done.stdout


def test_usage_errors_are_not_tracebacks(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["call"])
    with pytest.raises(UsageError, match="expected KEY=VALUE"):
        parse_arguments(["novalue"])

    assert exited.value.code == 2
    assert "the following arguments are required: URL, TOOL" in capsys.readouterr().err

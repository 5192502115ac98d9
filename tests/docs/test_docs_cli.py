"""The docs pages guides/testing.md and guides/cli.md ("stdio", "Command line") stay true.

Each shown block runs: the pytest example as written, the stdio command and the Claude
Desktop configuration (launched by the official SDK client from another directory), and
the command-line session, whose shown output must match what the commands print; every
other command shown parses with the CLI's own parser.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.cli.test_program import free_port, serving, wait_until_served

pytestmark = pytest.mark.long  # the CLI session of the docs, run, about 6 s (make test-long)

ROOT = Path(__file__).resolve().parents[2]
TESTING = ROOT / "docs" / "guides" / "testing.md"
CLI = ROOT / "docs" / "guides" / "cli.md"
GENMCP = Path(sys.executable).with_name("genmcp")


def section(title: str, page: Path = CLI) -> str:
    text = page.read_text() + "\n## "
    match = re.search(rf"^(#+) {re.escape(title)}\n(.*?)(?=^## )", text, re.S | re.M)
    assert match, f"{page.name} lost its {title!r} section"
    return match.group(2)


def blocks(title: str, language: str, page: Path = CLI) -> list[str]:
    found = re.findall(rf"^```{language}\n(.*?)^```", section(title, page), re.S | re.M)
    assert found, f"no {language} block in {title!r}"
    return found


def block(title: str, language: str, page: Path = CLI) -> str:
    return blocks(title, language, page)[0]


async def test_the_testing_example_runs_as_written() -> None:
    namespace: dict[str, Any] = {}
    code = block("Testing your tools", "python", TESTING)
    exec(compile(code, "docs/guides/testing.md", "exec"), namespace)
    tests = [fn for name, fn in namespace.items() if name.startswith("test_")]

    for test in tests:
        assert inspect.iscoroutinefunction(test)
        await test()
    assert len(tests) == 3


@pytest.mark.parametrize("page", ["testing.md", "legacy.md"])
def test_the_pages_examples_run_after_pip_install(page: str) -> None:
    # no import of the checkout's examples/: a user reading the page has only the package
    text = (ROOT / "docs" / "guides" / page).read_text(encoding="utf-8")
    code = "\n".join(re.findall(r"^```python\n(.*?)^```", text, re.S | re.M))
    assert code and not re.search(r"^\s*(from|import) examples\b", code, re.M)


async def test_the_stdio_command_answers_a_modern_client() -> None:
    command = shlex.split(block("stdio", "").strip())
    assert command == ["genmcp", "run", "examples.app:app", "--transport", "stdio"]
    discover = {
        "jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": {}}},
    }  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        str(GENMCP), *command[1:], cwd=ROOT,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    out, _ = await asyncio.wait_for(process.communicate(json.dumps(discover).encode() + b"\n"), 20)

    answer = json.loads(out)
    assert answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == (
        "genmcp-example"
    )
    assert process.returncode == 0


async def test_the_desktop_configuration_launches_the_server(tmp_path: Path) -> None:
    config = json.loads(block("stdio", "json").replace("/path/to/project", str(ROOT)))
    server = config["mcpServers"]["genmcp-example"]
    assert server["command"] == str(ROOT / ".venv/bin/genmcp")
    if GENMCP != ROOT / ".venv/bin/genmcp":
        server["command"] = str(GENMCP)  # this venv lives elsewhere: the same entry point
    parameters = StdioServerParameters(command=server["command"], args=server["args"],
                                       cwd=tmp_path)  # fmt: skip

    async with Client(parameters) as client:  # the SDK probes with server/discover first
        added = await client.call_tool("add", {"a": 1, "b": 2})
        version = client.protocol_version

    assert version == "2026-07-28"
    assert added.content[0].text == "3"  # type: ignore[union-attr]


def test_the_command_line_session_prints_what_it_shows() -> None:
    session = block("Command line", "console")
    steps = re.split(r"^\$ ", session, flags=re.M)[1:]
    commands = [step.split("\n", 1) for step in steps]
    serve, *calls = commands
    assert serve[0] == "genmcp run examples.app:app" and not serve[1]
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    with serving("examples.app:app", "--port", str(port), cwd=ROOT) as process:
        wait_until_served(url, process)
        for command, shown in calls:
            argv = shlex.split(command.replace("127.0.0.1:8000", f"127.0.0.1:{port}"))
            assert argv[0] == "genmcp"
            done = subprocess.run([str(GENMCP), *argv[1:]], capture_output=True, text=True,
                                  timeout=30)  # fmt: skip
            assert (done.returncode, done.stdout) == (0, shown), command
    assert len(calls) == 3


def test_every_other_command_shown_parses() -> None:
    from genmcp.cli import build_parser

    shown = blocks("Command line", "console")[1]
    commands = [line[2:].split("  #")[0] for line in shown.splitlines() if line.startswith("$ ")]
    assert len(commands) == 9
    parser = build_parser()
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == "genmcp", command
        parser.parse_args(argv[1:])  # a wrong flag or command exits (SystemExit 2)

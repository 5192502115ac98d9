"""`genmcp registry`: server.json and a draft Server Card from a Suite, on the command line.

The command runs as users run it (`genmcp.cli.program.main`) on examples/everything_server.py;
what it writes validates against the registry's schema (tests/support/registry).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from genmcp.cli.program import main
from genmcp.cli.registry import server_json_of
from support import examples
from support.registry import server_card_errors, server_json_errors

EXAMPLES = str(Path(__file__).resolve().parents[2] / "examples")
APP = "everything_server:SUITE"
NAME = ["--name", "io.github.genmcp/everything", "--description", "Every MCP feature"]


def test_server_json_is_written_and_validates(tmp_path: Path) -> None:
    out = tmp_path / "server.json"
    status = main(
        ["registry", "server-json", APP, "--app-dir", EXAMPLES, *NAME,
         "--url", "https://mcp.example.com/mcp", "--pypi", "genmcp-everything",
         "--repository", "https://github.com/genmcp/genmcp", "--out", str(out)]
    )  # fmt: skip
    assert status == 0
    document = json.loads(out.read_text())
    assert server_json_errors(document) == []
    assert document["version"] == "1.0.0"  # the Suite's server_version
    assert document["packages"][0]["identifier"] == "genmcp-everything"
    assert document["repository"] == {"url": "https://github.com/genmcp/genmcp", "source": "github"}


def test_the_card_needs_draft(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["registry", "card", APP, "--app-dir", EXAMPLES, *NAME, "--url", "https://h/mcp"]
    assert main(base) == 2
    assert "--draft" in capsys.readouterr().err
    assert main([*base, "--draft"]) == 0
    card = json.loads(capsys.readouterr().out)
    assert server_card_errors(card) == []
    assert "2025-11-25" in card["remotes"][0]["supportedProtocolVersions"]


def test_mistakes_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    bad_name = ["registry", "server-json", APP, "--app-dir", EXAMPLES, "--name", "nope"]
    assert main([*bad_name, "--description", "d"]) == 2
    assert "reverse-DNS" in capsys.readouterr().err
    not_suite = ["registry", "server-json", "everything_server:main", "--app-dir", EXAMPLES]
    assert main([*not_suite, *NAME]) == 2
    assert "no Suite found in <function main" in capsys.readouterr().err  # require_suite's


def test_the_command_finds_an_apps_suite_as_genmcp_run_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = ["registry", "server-json", "everything_server:app", "--app-dir", EXAMPLES, *NAME]
    assert main(app) == 0  # the FastAPI app that mounts the router: its one Suite
    assert json.loads(capsys.readouterr().out)["version"] == "1.0.0"


def test_the_function_takes_a_router_too() -> None:
    everything = examples.load("everything_server")
    with pytest.raises(TypeError, match="give a Suite, an MCPRouter, or an app"):
        server_json_of(everything.main, name="io.github.genmcp/everything")
    document = server_json_of(
        everything.router, name="io.github.genmcp/everything", description="Everything",
        packages={"npm": ["@genmcp/everything"]},
    )  # fmt: skip
    assert server_json_errors(document) == []
    assert document["packages"][0]["runtimeHint"] == "npx"


GUIDE = (
    Path(__file__).resolve().parents[2] / "docs" / "guides" / "registry.md"
)  # guides/registry.md


@pytest.mark.parametrize("index", [0, 1])
def test_the_guide_commands_run_as_shown(
    index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import re
    import shlex

    shown = re.findall(r"^```bash\n(.*?)^```", GUIDE.read_text(), re.S | re.M)
    assert len(shown) == 2
    argv = shlex.split(shown[index].replace("\\\n", " "))
    assert argv[:2] == ["genmcp", "registry"]
    monkeypatch.chdir(Path(EXAMPLES).parent)  # the commands run from the repository root
    if "--out" in argv:
        argv[argv.index("--out") + 1] = str(tmp_path / "server.json")
    assert main(argv[1:]) == 0
    if index == 0:
        assert server_json_errors(json.loads((tmp_path / "server.json").read_text())) == []
    else:
        assert server_card_errors(json.loads(capsys.readouterr().out)) == []

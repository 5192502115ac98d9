"""The README stays true: its curl session runs against a live example server, its make lines
do what they say, its example serves, and it links every page of the docs (docs/)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from genmcp.testing import MCPTestClient
from support import examples

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def curl_session() -> str:
    text = README.read_text()
    match = re.search(r"```bash\n(MCP=http://127\.0\.0\.1:8000/mcp\n.*?)```", text, re.S)
    assert match, "README lost its curl session"
    return match.group(1)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_readme_curl_session_works_verbatim(live_server: Any) -> None:
    base = live_server(examples.load("app").app)
    script = curl_session().replace("http://127.0.0.1:8000", base, 1)
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    discover, listing, call = (json.loads(line) for line in done.stdout.splitlines() if line)
    assert "2026-07-28" in discover["result"]["supportedVersions"]
    assert "add" in [tool["name"] for tool in listing["result"]["tools"]]
    assert call["result"]["content"] == [{"type": "text", "text": "3"}]
    assert '"text":"3"' in README.read_text()  # the answer the README shows


def test_the_readme_example_serves_add() -> None:
    text = README.read_text()
    [code] = re.findall(r"```python\n(.*?)```", text, re.S)
    namespace: dict[str, Any] = {}
    exec(compile(code, "README.md", "exec"), namespace)

    async def call() -> str:
        async with MCPTestClient(namespace["app"]) as client:
            return (await client.call_tool("add", {"a": 1, "b": 2})).text

    assert asyncio.run(call()) == "3"


def test_make_run_and_make_test_do_what_the_readme_says() -> None:
    make_lines = re.search(r"```\n(make run .*?)```", README.read_text(), re.S)
    assert make_lines, "README lost its make lines"
    assert make_lines[1] == (
        "make run     # serves examples/app.py on http://127.0.0.1:8000, MCP at /mcp\n"
        "make test    # ruff, mypy --strict, the layout checks, pytest in .venv "
        "(made on first use)\n"
    )
    run = dry_run("run")
    assert "-m uvicorn --app-dir examples app:app --host 127.0.0.1 --port 8000" in run
    steps = [line for line in dry_run("test").splitlines() if not line.startswith("echo")]
    ruff, checks = steps[-4:-2]
    assert ruff.split("/bin/")[-1] == "ruff check src tests examples"
    # mypy, while a pytest that only collects writes the assertion-rewrite cache
    assert "-m pytest --collect-only" in checks and "/bin/mypy; checked=$?;" in checks
    assert [s.split("/bin/")[-1] for s in steps[-2:]] == [
        "python -m pytest -q tests/layout",  # the layout checks, reported apart
        # the rest: PYTEST_XDIST, and PYTEST_MARKS (the `long` tests are make test-long's)
        'python -m pytest --ignore=tests/layout -n 3 --dist loadfile -m "not long" ',
    ]
    assert "strict = true" in (ROOT / "pyproject.toml").read_text()
    assert examples.load("app").app is not None


def dry_run(target: str) -> str:
    """``make -n target`` as a user types it (not the flags of a ``make test`` around us)."""
    outer = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "PYTEST_ARGS", "PYTEST_XDIST"}
    env = {key: value for key, value in os.environ.items() if key not in outer}
    done = subprocess.run(["make", "-n", "--no-print-directory", target], capture_output=True,
                          text=True, cwd=ROOT, timeout=30, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_readme_links_into_every_docs_page() -> None:
    linked = set(re.findall(r"\]\((docs/[^)#]+)\)", README.read_text()))
    assert all((ROOT / path).is_file() for path in linked), sorted(linked)
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert pages - linked == set()
    named = re.findall(r"`make ([a-z-]+)`", README.read_text())
    targets = set(re.findall(r"^([a-z-]+):", (ROOT / "Makefile").read_text(), re.M))
    assert set(named) <= targets and {"docs", "fuzz", "bench", "conformance"} <= set(named)


def block(name: str) -> str:
    """The ``--8<-- [start:name]`` block of README.md (docs pages include it by that name)."""
    found = re.search(rf"\[start:{name}\] -->\n```bash\n(.*?)```", README.read_text(), re.S)
    assert found, f"no {name} block in README.md"
    return found[1]


def test_the_install_lines_install_this_checkout_and_its_extras() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    commands = [line.split("#")[0].strip() for line in block("install").splitlines()]
    # genmcp is not on the index: every line installs this checkout, none names the index
    named = [re.fullmatch(r"pip install (?:\.|'\.\[([a-z0-9_,-]+)\]')", c) for c in commands]
    assert commands and all(named), commands
    extras = {extra for match in named if match and match[1] for extra in match[1].split(",")}
    assert extras == set(project["optional-dependencies"]) - {"dev", "docs"}, extras
    getting_started = (ROOT / "docs" / "guides" / "getting-started.md").read_text(encoding="utf-8")
    assert '--8<-- "README.md:install"' in getting_started  # the same lines, shown there
    assert '--8<-- "README.md:wheel"' in getting_started


def test_the_wheel_lines_name_what_make_dist_builds() -> None:
    import tomllib

    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"
    ]
    commands = [line.split("#")[0].strip() for line in block("wheel").splitlines()]
    assert commands == [
        "make dist",
        "pip install dist/genmcp-*.whl",
        f"pip install 'dist/genmcp-{version}-py3-none-any.whl[redis]'",
    ]
    build = dry_run("dist")
    assert "-m build --outdir dist ." in build  # the sdist, then the wheel, into dist/
    assert "scripts/wheel_smoke.py" in dry_run("wheel-smoke")
    assert "make wheel-smoke" in (ROOT / ".ci" / "run").read_text()  # CI installs the wheel


def test_the_readme_says_genmcp_is_not_on_the_index_yet() -> None:
    text = README.read_text()
    install = text[text.index("## Install") : text.index("## Quick start")]
    assert "not on the package index yet" in install
    assert "Once genmcp is published (it is not yet" in install
    # only the pages that say it is not there yet name the index's bare `pip install genmcp`
    pages = [README, *(ROOT / "docs").rglob("*.md")]
    told = {p.name for p in pages if re.search(r"`pip install\s+genmcp`", p.read_text())}
    assert told == {"README.md", "getting-started.md", "releasing.md"}, told
    releasing = (ROOT / "docs" / "guides" / "releasing.md").read_text()
    assert "not published yet" in releasing

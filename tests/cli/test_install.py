"""``genmcp install``: what would fail at the client's launch is refused at install time,
and a stdio target keeps its headers (in the entry's environment).

Driven as a user would, through ``python -m genmcp`` subprocesses; the generated stdio
entry is launched as the client would launch it (its command, args and env).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from demo_tools import make_suite
from genmcp.cli.install import HEADERS_ENV, weak_key
from support.server import LiveServers

pytestmark = pytest.mark.long  # real processes, 2.6-4.6 s each: make test-long (CI runs it)

GENMCP: Final = [sys.executable, "-m", "genmcp"]
STRONG: Final = "q4Xv9Lr2Tz7Wm1Kc8Np3Hs6Jd0Fg5Ab-Ye_Uo"

GUARDED: Final = textwrap.dedent('''
    from typing import Annotated

    from fastapi import FastAPI, Header, HTTPException

    from genmcp import mcp_router


    def bearer(authorization: Annotated[str | None, Header()] = None) -> dict[str, str]:
        if authorization != "Bearer t1":
            raise HTTPException(401, "a bearer token is required")
        return {"principal": "t1"}


    app = FastAPI()
    app.include_router(
        mcp_router(server_name="guarded", server_version="1", auth=bearer), prefix="/mcp"
    )
''')


def genmcp(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*GENMCP, *argv], capture_output=True, text=True, timeout=60,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def guarded(tmp_path: Path) -> Path:
    (tmp_path / "guarded_app.py").write_text(GUARDED, encoding="utf-8")
    return tmp_path


def install(guarded: Path, *more: str) -> tuple[subprocess.CompletedProcess[str], Any]:
    config = guarded / "config.json"
    done = genmcp("install", "claude-desktop", "guarded_app:app", "--app-dir", str(guarded),
                  "--config", str(config), *more)  # fmt: skip
    if done.returncode != 0:
        return done, None
    return done, json.loads(config.read_text())["mcpServers"]["guarded_app"]


def launch(entry: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """Run a stdio entry as a client would, stdin closed at once (the server answers EOF)."""
    return subprocess.run(
        [entry["command"], *entry["args"]], input="", capture_output=True, text=True,
        timeout=60, env={**os.environ, **entry.get("env", {})},
    )  # fmt: skip


def test_a_stdio_target_keeps_its_header_in_the_entrys_environment(guarded: Path) -> None:
    done, entry = install(guarded, "-H", "Authorization: Bearer t1")
    assert done.returncode == 0, done.stderr
    assert json.loads(entry["env"][HEADERS_ENV]) == {"Authorization": "Bearer t1"}
    assert not any("Bearer" in arg for arg in entry["args"])  # never in the process list
    assert launch(entry).returncode == 0  # the auth dependency accepted it at startup
    without = {**entry, "env": {}}
    refused = launch(without)
    assert refused.returncode == 2 and "a bearer token is required" in refused.stderr


def test_a_stdio_header_given_on_the_command_line_wins(guarded: Path) -> None:
    done, entry = install(guarded, "-H", "Authorization: Bearer wrong")
    assert done.returncode == 0, done.stderr
    entry["args"] += ["--header", "Authorization: Bearer t1"]
    assert launch(entry).returncode == 0


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("no_such_module:app", "cannot import 'no_such_module'"),
        ("guarded_app:nothing", "has no attribute 'nothing'"),
        ("guarded_app:GUARDED_NOT", "has no attribute"),
        ("guarded_app:Header", "no Suite found"),
    ],
)
def test_a_target_that_cannot_be_served_is_refused(guarded: Path, target: str, why: str) -> None:
    config = guarded / "config.json"
    done = genmcp("install", "cursor", target, "--app-dir", str(guarded), "--config", str(config))
    assert done.returncode == 2, done.stderr
    assert why in done.stderr and "--no-check" in done.stderr
    assert not config.exists()
    skipped = genmcp("install", "cursor", target, "--app-dir", str(guarded), "--config",
                     str(config), "--no-check")  # fmt: skip
    assert skipped.returncode == 0, skipped.stderr


def test_a_missing_app_dir_is_refused(tmp_path: Path) -> None:
    done = genmcp("install", "cursor", "m:app", "--app-dir", str(tmp_path / "gone"),
                  "--config", str(tmp_path / "c.json"))  # fmt: skip
    assert done.returncode == 2 and "is not a directory" in done.stderr


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("abc", "3 bytes long; at least 32"),
        ("a" * 40, "only 1 distinct characters"),
        ("ab" * 20, "only 2 distinct characters"),
        (f"{STRONG},short", "5 bytes long"),  # every key of a rotation list
    ],
)
def test_a_weak_secret_key_is_refused_with_the_way_to_make_one(
    guarded: Path, key: str, why: str
) -> None:
    done, _ = install(guarded, "-e", f"GENMCP_SECRET_KEY={key}")
    assert done.returncode == 2 and why in done.stderr, done.stderr
    assert "secrets.token_urlsafe(32)" in done.stderr


def test_a_strong_key_passes() -> None:
    assert weak_key(STRONG) is None
    assert weak_key(f"{STRONG}, {STRONG[::-1]}") is None


@pytest.fixture
def demo_url() -> Iterator[str]:
    from fastapi import FastAPI

    from genmcp import mcp_router

    app = FastAPI()
    app.include_router(mcp_router(suite=make_suite()), prefix="/mcp")
    live = LiveServers()
    try:
        yield live(app) + "/mcp"
    finally:
        live.stop_all()


def test_inspect_into_a_closed_pipe_prints_no_traceback(demo_url: str) -> None:
    reader, writer = os.pipe()
    os.close(reader)  # `| head` that already left: every write fails with EPIPE
    try:
        done = subprocess.run(
            [*GENMCP, "inspect", demo_url], stdout=writer, stderr=subprocess.PIPE, text=True,
            timeout=60,
        )  # fmt: skip
    finally:
        os.close(writer)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.stderr == "" and done.returncode == 141

"""``genmcp dev``: a real subprocess serves an app with reload and prints its page's URL;
a headless Chromium on the page sees the app restart after its source changed and the page
reconnect by itself, listing the new tool (``support/docsui_browser.mjs``, flow ``reload``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from genmcp.cli.dev import docs_paths
from genmcp.docsui import DOCS_ENV
from support.browser import ARTIFACTS, run_docs_page
from support.redis_server import free_port

ROOT: Final = Path(__file__).resolve().parents[2]

APP: Final = '''
from fastapi import FastAPI
from genmcp import mcp_router, tool

@tool
def first() -> str:
    """The first tool."""
    return "one"

TOOLS = [first]
{more}
app = FastAPI()
app.include_router(mcp_router(server_name="dev", server_version="1", tools=TOOLS), prefix="/mcp")
'''
MORE: Final = '''
@tool
def second() -> str:
    """Added while the server runs."""
    return "two"

TOOLS.append(second)
'''


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path, str]]:
    source = tmp_path / "devapp.py"
    source.write_text(APP.replace("{more}", ""))
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONUNBUFFERED": "1"}
    env.pop(DOCS_ENV, None)
    process = subprocess.Popen(
        [sys.executable, "-m", "genmcp", "dev", "devapp:app", "--app-dir", str(tmp_path),
         "--port", str(port)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
        start_new_session=True,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        url = ""
        for line in process.stderr:  # ends if the process dies
            if "the docs page: " in line:
                url = line.split("the docs page: ", 1)[1].strip()
            if "Application startup complete" in line:
                break
        assert url, "genmcp dev printed no page URL"
        # keep reading its log: a full pipe would stop the server
        drain = threading.Thread(target=process.stderr.read, daemon=True)
        drain.start()
        yield process, source, url
    finally:
        os.killpg(process.pid, signal.SIGTERM)  # the reloader and its worker: ours
        process.wait(timeout=30)
        if process.stderr is not None:
            process.stderr.close()


@pytest.mark.long  # a reload and a browser: about 5 s
def test_dev_serves_the_page_on_loopback_and_it_reconnects_after_a_reload(
    served: tuple[subprocess.Popen[str], Path, str],
) -> None:
    _, source, url = served
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp/docs")
    base, page = url.removesuffix("/mcp/docs"), "/mcp/docs"
    rewrite = APP.replace("{more}", MORE)
    config = {"example": "dev", "base": base, "page": page, "file": str(source), "rewrite": rewrite}
    readings = run_docs_page(config)["reload"]
    assert "failure" not in readings, readings.get("failure")
    assert readings["before"] == ["first"]
    assert readings["after"] == ["first", "second"]
    assert "bad" in readings["seen"]  # it saw the server gone, then came back by itself
    assert readings["seen"][-1] == "ok"
    assert (ARTIFACTS / "dev-reload.png").stat().st_size > 1000


def test_docs_paths_finds_each_page_through_includes() -> None:
    from fastapi import APIRouter, FastAPI

    from genmcp import mcp_router

    app = FastAPI()
    outer = APIRouter()
    outer.include_router(mcp_router(server_name="a", server_version="1", docs=True), prefix="/a")
    app.include_router(outer, prefix="/v1")
    app.include_router(mcp_router(server_name="b", server_version="1"), prefix="/b")
    assert list(docs_paths(app.router.routes)) == ["/v1/a/docs"]


def test_dev_refuses_an_app_without_a_page(tmp_path: Path) -> None:
    source = tmp_path / "nopage.py"
    source.write_text(
        APP.replace("{more}", "").replace('server_version="1",', 'server_version="1", docs=False,')
    )
    done = subprocess.run(
        [sys.executable, "-m", "genmcp", "dev", "nopage:app", "--app-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert done.returncode == 2
    assert "serves no interactive page" in done.stderr

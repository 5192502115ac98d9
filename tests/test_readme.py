"""The README's quick start stays true: its curl session runs against a live example server."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support import examples

README = Path(__file__).resolve().parents[1] / "README.md"


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

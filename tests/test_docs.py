"""The documentation site: `mkdocs build --strict` passes and every Python block in docs/ runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[1]
DOCS: Final = ROOT / "docs"
BLOCK: Final = re.compile(r"```python\n(.*?)```", re.S)


def blocks() -> list[tuple[str, str]]:
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        for index, code in enumerate(BLOCK.findall(page.read_text(encoding="utf-8"))):
            found.append((f"{page.relative_to(DOCS)}#{index}", code))
    return found


def test_the_docs_have_code_to_run() -> None:
    pages = {name.split("#")[0] for name, _ in blocks()}
    assert {"index.md", "guides/fastapi.md", "guides/routes-as-tools.md"} <= pages


@pytest.mark.parametrize(("name", "code"), blocks(), ids=[name for name, _ in blocks()])
def test_every_docs_code_block_runs(name: str, code: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={**os.environ, "GENMCP_SECRET_KEY": "docs-test-key-" + "x" * 32},
    )
    assert done.returncode == 0, f"{name}:\n{done.stderr}"


@pytest.mark.timeout(120)
def test_the_site_builds_in_strict_mode(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=110, cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    home = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "Routes as tools" in home
    reference = (tmp_path / "reference" / "routes" / "index.html").read_text(encoding="utf-8")
    assert "route_tools" in reference and "routes_router" in reference
    assert (tmp_path / "search" / "search_index.json").is_file()
    assert 'class="mermaid"' in (tmp_path / "guides" / "lifecycle" / "index.html").read_text()

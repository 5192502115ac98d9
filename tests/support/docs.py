"""The documentation site as tests see it: its code blocks, a runner for them, the built site.

- `blocks()`: every fenced block of every page under ``docs/`` with its language and the
  ``<!-- docs: ... -->`` mark on the line before it, if any (what checks a block that is not
  Python: ``checked by tests/x.py``; or ``not run: why``).
- `BlockRunner`: runs Python blocks in ``docs_runner.py`` (one preloaded interpreter, a fork
  per block).
- `Build(site_dir)`: ``mkdocs build --strict`` in the background; `inventory(site_dir)`: the
  names in the ``objects.inv`` mkdocstrings writes; `broken_links(site_dir)`: internal links
  of the built HTML whose file or ``#fragment`` does not exist.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote, urlsplit

ROOT: Final = Path(__file__).resolve().parents[2]
DOCS: Final = ROOT / "docs"
RUNNER: Final = Path(__file__).with_name("docs_runner.py")
FENCE: Final = re.compile(r"^```(?P<lang>[\w+-]*)[^\n]*\n(?P<code>.*?)^```[ \t]*$", re.S | re.M)
MARK: Final = re.compile(
    r"<!-- docs: (?P<kind>checked by|not run:) ?(?P<what>.*?) -->[ \t]*\n\s*\Z"
)
SNIPPET: Final = re.compile(r'^-{1,3}8<-{1,3} "(?P<path>[^"]+)"\s*$', re.M)


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: where it is, its language, its text and its mark."""

    page: str
    index: int
    line: int
    lang: str
    code: str
    mark: tuple[str, str] | None

    @property
    def name(self) -> str:
        return f"{self.page}#{self.index}"

    @property
    def snippets(self) -> list[str]:
        """Files the block includes (``--8<-- "examples/x.py"``) in place of its own text."""
        return SNIPPET.findall(self.code)


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def blocks() -> list[Block]:
    found = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(DOCS).as_posix()
        for index, match in enumerate(FENCE.finditer(text)):
            before = text[: match.start()]
            mark = MARK.search(before[-400:])
            found.append(Block(
                page=name, index=index, line=before.count("\n") + 1, lang=match["lang"],
                code=match["code"], mark=(mark["kind"], mark["what"]) if mark else None,
            ))  # fmt: skip
    return found


class BlockRunner:
    """A ``docs_runner.py`` process: `run(block)` forks it to run one Python block."""

    def __init__(self) -> None:
        env = {**os.environ, "GENMCP_SECRET_KEY": "docs-test-key-" + "x" * 32}
        self.process = subprocess.Popen(
            [sys.executable, str(RUNNER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, cwd=ROOT, env=env,
        )  # fmt: skip
        assert json.loads(self._read()) == {"ready": True}

    def _read(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, f"the docs runner exited ({self.process.poll()})"
        return line

    def run(self, block: Block, timeout_s: int = 30) -> tuple[int, str]:
        assert self.process.stdin is not None
        job = {"name": f"docs/{block.page} (block {block.index}, line {block.line})",
               "code": block.code, "timeout": timeout_s}  # fmt: skip
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self._read())
        return answer["status"], answer["output"]

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait(10)
        self.process.stdout.close()


class Build:
    """``mkdocs build --strict`` into ``site_dir``, started at once; `wait()` for its end."""

    def __init__(self, site_dir: Path) -> None:
        self.site_dir = site_dir
        self._errors = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
            stdout=subprocess.DEVNULL, stderr=self._errors, cwd=ROOT,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        )  # fmt: skip

    def wait(self, timeout_s: float = 170) -> tuple[int, str]:
        """The build's exit status and what it printed on stderr."""
        returncode = self.process.wait(timeout_s)
        self._errors.seek(0)
        return returncode, self._errors.read().decode("utf-8", "replace")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self._errors.close()


def inventory(site_dir: Path) -> dict[str, str]:
    """``objects.inv``: each documented name and the page#anchor it lives at."""
    raw = (site_dir / "objects.inv").read_bytes()
    header_end = 0
    for _ in range(4):  # four header lines, then the zlib stream
        header_end = raw.index(b"\n", header_end) + 1
    names = {}
    for line in zlib.decompress(raw[header_end:]).decode().splitlines():
        name, _role, _priority, location, _display = line.split(" ", 4)
        names[name] = location.replace("$", name)
    return names


HREF: Final = re.compile(r'\s(?:href|src)="([^"]*)"')
ID: Final = re.compile(r'\sid="([^"]*)"')


def _ids(page: Path, cache: dict[Path, set[str]]) -> set[str]:
    if page not in cache:
        cache[page] = {html.unescape(i) for i in ID.findall(page.read_text(encoding="utf-8"))}
    return cache[page]


def _target(site_dir: Path, page: Path, path: str) -> Path:
    target = (site_dir / path.lstrip("/")) if path.startswith("/") else (page.parent / path)
    return target / "index.html" if path.endswith("/") or target.is_dir() else target


def broken_links(site_dir: Path) -> list[str]:
    """Every internal ``href``/``src`` of the built site that resolves to nothing."""
    broken: list[str] = []
    ids: dict[Path, set[str]] = {}
    for page in sorted(site_dir.rglob("*.html")):
        for link in set(HREF.findall(page.read_text(encoding="utf-8"))):
            parts = urlsplit(html.unescape(link))
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = _target(site_dir, page, unquote(parts.path)) if parts.path else page
            where = f"{page.relative_to(site_dir)}: {link}"
            if not target.resolve().is_relative_to(site_dir.resolve()) or not target.exists():
                broken.append(f"{where} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                if unquote(parts.fragment) not in _ids(target, ids):
                    broken.append(f"{where} (no id {parts.fragment!r})")
    return broken


def heading(site_dir: Path, location: str) -> str:
    """The plain text of the API entry at ``page#anchor``: its heading and signature."""
    path, _, anchor = location.partition("#")
    text = (site_dir / path / "index.html").read_text(encoding="utf-8")
    start = text.index(f'id="{anchor}"')
    end = text.find('class="doc doc-contents', start)
    return html.unescape(re.sub(r"<[^>]+>", "", text[start : end if end > 0 else None]))


def nav_pages(nav: Any) -> list[str]:
    """The page files a mkdocs ``nav`` names, depth first."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    if isinstance(nav, list):
        return [page for item in nav for page in nav_pages(item)]
    return []

"""The documentation site: it builds strict, every page is in the nav, no link is broken,
every public name is in the API reference with its signature, and every code block is run.

Python blocks run as scripts (each in a fresh fork of one preloaded interpreter, see
`support.docs_runner`), so an example that stops working fails here. Any other block says on
the line before it what checks it (``<!-- docs: checked by tests/x.py -->``, a test that reads
that page) or why nothing can (``<!-- docs: not run: ... -->``); a ``--8<--`` include shows a
file of ``examples/``, which its own test runs.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import pytest
from mkdocs.config import load_config

from support import docs

PYTHON: Final = [b for b in docs.blocks() if b.lang == "python" and not b.snippets]
RUN: Final = [b for b in PYTHON if b.mark is None or b.mark[0] != "not run:"]
NOT_RUN_BUDGET: Final = 3
"""Python blocks showing code that needs the outside world (an OAuth issuer, a collector,
FastMCP: the "Coming from FastMCP" page shows its twin, which is not a dependency)."""

PUBLIC_MODULES: Final = (
    "genmcp",
    "genmcp.testing",
    "genmcp.client",
    "genmcp.auth",
    "genmcp.auth.redact",
    "genmcp.auth.front",
    "genmcp.storage",
    "genmcp.storage.memory",
    "genmcp.storage.redis",
    "genmcp.storage.redis.tasks",
    "genmcp.routes_as_tools",
    "genmcp.middleware.telemetry",
    "genmcp.scaleout",
    "genmcp.fastapi",
    "genmcp.transports.stdio",
    "genmcp.transports.hosting",
    "genmcp.sessions",
)
"""Every module a user imports from; the reference must show each name of its ``__all__``."""

GUIDES: Final = {
    "getting-started", "tools", "channel", "input-rounds", "resources-prompts", "apps",
    "fastapi", "fastapi-patterns", "routes-as-tools", "auth", "legacy", "lifecycle", "tasks",
    "middleware",
    "scaling-out", "testing", "cli", "deployment", "security", "performance", "quality",
    "skills", "registry", "releasing",
    "client", "composition", "tenancy", "search", "user-state", "drafts",
    "openapi-import", "shaping",
    "from-fastmcp", "from-sdk",
    "troubleshooting", "versions",
    "docs-page",
}  # fmt: skip
"""The guides issue 18 asks for, split out of the README (and issue 34's skills and
registry, issue 33's tenancy, issue 51's interactive page, issue 49's OpenAPI import,
shaping, search and state per user, issue 52's drafts): none may go missing."""


@pytest.fixture(scope="module", autouse=True)
def building(tmp_path_factory: pytest.TempPathFactory) -> Iterator[docs.Build]:
    """Start the strict build at once: it runs while the blocks run, on the other core."""
    build = docs.Build(tmp_path_factory.mktemp("site"))
    try:
        yield build
    finally:
        build.close()


@pytest.fixture(scope="module")
def site(building: docs.Build) -> Path:
    returncode, errors = building.wait()
    assert returncode == 0, errors[-3000:]
    return building.site_dir


@pytest.fixture(scope="module")
def runner() -> Iterator[docs.BlockRunner]:
    running = docs.BlockRunner()
    try:
        yield running
    finally:
        running.close()


def test_every_page_is_in_the_nav_once() -> None:
    named = docs.nav_pages(load_config(str(docs.ROOT / "mkdocs.yml"))["nav"])
    files = [page.relative_to(docs.DOCS).as_posix() for page in docs.pages()]
    assert sorted(named) == sorted(files)
    assert {Path(page).stem for page in files if page.startswith("guides/")} == GUIDES


def test_the_guides_have_code_to_run() -> None:
    pages = {block.page for block in RUN}
    prose = {  # no code
        "lifecycle", "performance", "quality", "releasing", "troubleshooting", "versions"
    }
    wanted = {f"guides/{guide}.md" for guide in GUIDES - prose}
    assert wanted - pages == set()


@pytest.mark.parametrize("block", RUN, ids=[block.name for block in RUN])
def test_every_python_block_runs(block: docs.Block, runner: docs.BlockRunner) -> None:
    status, output = runner.run(block)
    assert status == 0, f"{block.name} (line {block.line}) failed:\n{output}"


def test_every_other_block_is_checked_or_says_why_not() -> None:
    others = [b for b in docs.blocks() if b.lang not in ("python", "mermaid") and not b.snippets]
    unmarked = [f"{b.name} ({b.lang or 'no language'}, line {b.line})" for b in others
                if b.mark is None]  # fmt: skip
    assert unmarked == []
    for block in others + PYTHON:
        if block.mark is None:
            continue
        kind, what = block.mark
        if kind == "checked by":
            test = docs.ROOT / what.split()[0]
            assert test.is_file(), f"{block.name}: {what} does not exist"
            assert block.page in test.read_text(encoding="utf-8"), f"{test} never reads it"
        else:
            assert what.strip(), f"{block.name}: 'not run:' must say why"
    not_run = [b for b in PYTHON if b not in RUN]
    for block in not_run:
        compile(block.code, block.name, "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)  # valid Python
    assert len(not_run) <= NOT_RUN_BUDGET, [b.name for b in not_run]


def test_included_files_are_examples_a_test_runs() -> None:
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (docs.ROOT / "tests").rglob("*.py"))
    included = {path.split(":")[0] for block in docs.blocks() for path in block.snippets}
    assert included, "no page shows an example file"
    for path in sorted(included):
        assert (docs.ROOT / path).is_file() and path.startswith("examples/"), path
        stem = Path(path).stem
        assert re.search(rf"""(load\(["']{stem}["']\)|examples[./]{stem}\b)""", tests), path


def test_the_project_layout_names_the_tree() -> None:
    [block] = [b for b in docs.blocks() if b.page == "layout.md"]
    src = docs.ROOT / "src"
    stack: list[tuple[int, Path]] = []
    named: set[Path] = set()
    for line in block.code.splitlines():
        indent = len(line) - len(line.lstrip())
        if not line.strip() or indent > 20:  # a description carried onto the next line
            continue
        names = re.split(r" {2,}", line.strip())[0]
        stack = [(i, p) for i, p in stack if i < indent]
        parent = stack[-1][1] if stack else docs.ROOT
        for name in names.split():
            paths = sorted(parent.glob(name.rstrip("/")))
            assert paths, f"layout.md names {name!r}, but {parent} has no such file"
            named.update(paths)
            if name.endswith("/"):
                stack.append((indent, paths[0]))
    skip = {"__init__.py", "__main__.py", "py.typed", "__pycache__"}
    unnamed = [p.name for p in sorted((src / "genmcp").iterdir()) if p.name not in skip
               and p not in named]  # fmt: skip
    assert unnamed == [], "layout.md does not name these"


@pytest.mark.timeout(180)
def test_the_site_builds_in_strict_mode(site: Path) -> None:
    assert "Routes as tools" in (site / "index.html").read_text(encoding="utf-8")
    reference = (site / "reference" / "routes_as_tools" / "index.html").read_text(encoding="utf-8")
    assert "route_tools" in reference and "routes_router" in reference
    search = (site / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "open_call" in search and "keepalive_s" in search
    for page in ("lifecycle", "legacy", "input-rounds"):
        assert 'class="mermaid"' in (site / "guides" / page / "index.html").read_text(), page


@pytest.mark.timeout(180)
def test_no_link_of_the_site_is_broken(site: Path) -> None:
    assert docs.broken_links(site) == []


def _paths(module: str, name: str, value: Any) -> set[str]:
    paths = {f"{module}.{name}"}
    if getattr(value, "__qualname__", None) and getattr(value, "__module__", None):
        paths.add(f"{value.__module__}.{value.__qualname__}")
    return paths


def _members(cls: type) -> Iterator[tuple[str, Any]]:
    """The public methods and properties a class defines itself (not inherited ones)."""
    for name, value in vars(cls).items():
        if not name.startswith("_") and (callable(value) or isinstance(value, property)):
            yield name, value


def _own_init(cls: type) -> bool:
    """Whether genmcp defines the class's constructor (not FastAPI, logging, a Protocol)."""
    owner = next(base for base in cls.__mro__ if "__init__" in vars(base))
    init = vars(owner)["__init__"]
    return owner.__module__.startswith("genmcp") and "_no_init" not in init.__name__


def _signature_shown(shown: str, value: Any) -> list[str]:
    """Parameters of a function or class that its reference entry does not show."""
    if inspect.isclass(value) and not _own_init(value):
        return []
    target = value.fget if isinstance(value, property) else value
    if isinstance(target, staticmethod | classmethod):
        target = target.__func__
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return []
    wanted = [p for p in parameters if p not in ("self", "cls")]
    return [p for p in wanted if not re.search(rf"\b{re.escape(p)}\b", shown)]


def _undocumented(site: Path, found: dict[str, str]) -> Iterator[str]:
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            where = [found[p] for p in sorted(_paths(module_name, name, value)) if p in found]
            if not where:
                yield f"{module_name}.{name}: not in the API reference"
                continue
            if not (inspect.isclass(value) or inspect.isfunction(value)):
                continue
            for missing in _signature_shown(docs.heading(site, where[0]), value):
                yield f"{module_name}.{name}: the signature shown lacks {missing!r}"
            if not inspect.isclass(value) or issubclass(value, BaseException):
                continue
            base = where[0].partition("#")[2]
            for member, attribute in _members(value):
                location = found.get(f"{base}.{member}")
                if location is None:
                    yield f"{base}.{member}: not in the API reference"
                    continue
                for missing in _signature_shown(docs.heading(site, location), attribute):
                    yield f"{base}.{member}: the signature shown lacks {missing!r}"


@pytest.mark.timeout(180)
def test_every_public_name_is_in_the_reference_with_its_signature(site: Path) -> None:
    found = docs.inventory(site)
    assert list(_undocumented(site, found)) == []
    open_call = docs.heading(site, found["genmcp.testing.MCPTestClient.open_call"])
    assert "progress" in open_call and "True" in open_call


@pytest.mark.timeout(180)
@pytest.mark.long  # about 8 s (a real browser): make test-long
def test_the_site_works_in_a_headless_browser(site: Path, live_server: Any) -> None:
    from starlette.staticfiles import StaticFiles

    from support.browser import run_docs_site

    report = run_docs_site(live_server(StaticFiles(directory=site, html=True)))
    home = report["home"]
    assert home["title"].startswith("genmcp") and home["heading"].rstrip("¶") == "genmcp"
    nav = {text.strip() for text in home["nav"]}
    assert {"Getting started", "Routes as tools", "genmcp.testing"} <= nav
    assert "progress" in report["api"]["openCall"] and "True" in report["api"]["openCall"]
    search = report["search"]
    hits = zip(search["hrefs"], search["texts"], strict=True)
    [hit] = [text for href, text in hits if href.endswith(".open_call")]
    assert "progress: bool | ProgressCallback = True" in hit
    landed = urlsplit(search["landed"])
    assert (landed.path, landed.fragment) == (
        "/reference/testing/",
        "genmcp.testing.MCPTestClient.open_call",
    )
    assert (report["failed"], report["errors"]) == ([], [])

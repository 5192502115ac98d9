"""The test tree is an index of the source: ``tests/<package>/test_<module>.py`` (DESIGN, STYLE).

Modelled on gen_mcp's ``check-test-naming``. A folder of ``tests/`` either mirrors a package of
``src/genmcp`` (``tests/`` itself mirrors ``src/genmcp/``; ``tests/sessions/`` mirrors
``sessions/``) or is one of the free folders below. In a mirror folder every
``test_*.py`` names a module of its package: ``test_<module>.py``, or
``test_<module>_<topic>.py`` when one module's tests are split by topic. So a module renamed
or removed leaves no orphan test file behind, and a test file says where its code lives.

Coverage: of the modules of the core packages (``CORE``), at least ``MIN_COVERAGE`` have their own
``test_<module>.py``; every module without one is listed in ``UNMIRRORED`` with the reason.
The top-level modules (``src/genmcp/*.py``: the contracts every layer shares, ``channel``,
``events``, ``errors``, the behaviours) each have ``tests/test_<module>.py``, or are listed in
``TOP_LEVEL_UNMIRRORED`` with the reason. Each exception fails once it is no longer needed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from tests.layout.sources import PACKAGE, TESTS

FREE_FOLDERS: Final[dict[str, str]] = {
    "e2e": "end to end: real servers driven by the official SDK clients (Python, TypeScript)",
    "scenarios": "behaviour across modules: scale-out, streaming, lazy imports, token audiences",
    "docs": "the documentation and the README stay true; the public API is documented",
    "examples": "every example of examples/ served and driven over real servers",
    "layout": "these checks: they read the source and the test tree",
    "fuzz": "the fuzz harness (make fuzz) and its short form",
    "support": "the test helpers (imported as support.x) and their smoke tests",
}
"""Folders of ``tests/`` that mirror no package, and what they hold."""

NOT_PACKAGES: Final[dict[str, str]] = {
    "tests/examples": (
        "with pythonpath = tests, a package tests/examples/ would be imported for the repo's "
        "examples/ (`from examples.app import app` in tests and docs); without __init__.py both "
        "folders are portions of one namespace, and its file names are unique by themselves"
    ),
    "tests/fastapi": (
        "the tests of genmcp.fastapi; with pythonpath = tests, a package tests/fastapi/ would "
        "shadow FastAPI itself (`import fastapi`); a namespace portion never does, and its file "
        "names are unique by themselves"
    ),
}
"""Folders of ``tests/`` that hold tests but must not be packages, and why."""

NAMING_EXEMPT: Final[dict[str, str]] = {
    "tests/auth/test_oauth_eras.py": "OAuth in both eras: auth/ with the transports (scenario)",
    "tests/auth/test_oauth_lists.py": "scopes filtering the list results: auth/ with catalogs/",
    "tests/auth/test_oauth_matrix.py": "the OAuth matrix over real servers (scenario)",
    "tests/auth/test_oauth_sdk.py": "the official SDK's OAuth client end to end (e2e)",
    "tests/routes_as_tools/test_routes_router_live.py": (
        "routes_router is the package's own function (its __init__), served live"
    ),
}
"""Test files in a mirror folder that name no module of it, each with its reason."""

CORE: Final = (
    "call", "catalogs", "tasks", "sync", "sessions", "transports", "fastapi", "protocol",
    "schema", "storage", "auth",
)

MIN_COVERAGE: Final = 0.80
"""The share of core modules with their own test file (the issue's mark)."""

UNMIRRORED: Final[dict[str, str]] = {
    "fastapi.tenants": (
        "tested in tests/fastapi/test_tenants_servers.py: tests/fastapi/ and tests/examples/ are "
        "no packages, so their file names share one namespace, and tests/examples/test_tenants.py "
        "(the example) holds this one"
    ),
}
"""Core modules without ``tests/<package>/test_<module>.py``, each with the reason."""

TOP_LEVEL_UNMIRRORED: Final[dict[str, str]] = {
    "scaleout": (
        "a short import path: re-exports the Redis parts (tests/storage/redis/), LegacyServer "
        "(tests/sessions/) and two storage exceptions; nothing of its own"
    ),
}
"""Modules of ``src/genmcp/*.py`` without ``tests/test_<module>.py``, each with the reason."""


def _folders() -> Iterator[Path]:
    yield TESTS
    for path in sorted(TESTS.rglob("*")):
        if path.is_dir() and "__pycache__" not in path.parts and "node_modules" not in path.parts:
            yield path


def _free(folder: Path) -> bool:
    parts = folder.relative_to(TESTS).parts
    return bool(parts) and parts[0] in FREE_FOLDERS


def mirror_of(folder: Path) -> Path | None:
    """The package of src/genmcp a folder of tests/ mirrors (None: it mirrors none)."""
    source = PACKAGE.joinpath(*folder.relative_to(TESTS).parts)
    return source if any(source.glob("*.py")) else None


def module_names(package: Path) -> set[str]:
    return {p.stem for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")}


def names_a_module(test: Path, modules: set[str]) -> bool:
    stem = test.stem.removeprefix("test_")
    return stem in modules or any(stem.startswith(module + "_") for module in modules)


def _rel(path: Path) -> str:
    return str(path.relative_to(TESTS.parent))


def test_every_folder_mirrors_a_package_or_is_a_free_folder() -> None:
    orphans = [
        _rel(folder)
        for folder in _folders()
        if not _free(folder) and mirror_of(folder) is None and any(folder.glob("*.py"))
    ]
    assert orphans == [], "test folders that mirror no package of src/genmcp (renamed?)"
    assert sorted(set(FREE_FOLDERS) - {p.name for p in TESTS.iterdir()}) == []


def test_every_folder_of_tests_is_a_package() -> None:
    """Mirrored names repeat (tests/tasks/test_service.py, tests/storage/redis/test_tasks.py):
    pytest's default import mode keeps them apart only inside packages."""
    missing = [
        _rel(folder)
        for folder in _folders()
        if any(folder.glob("test_*.py")) or any(folder.glob("conftest.py"))
        for each in [folder.relative_to(TESTS), *folder.relative_to(TESTS).parents]
        if not (TESTS / each / "__init__.py").is_file() and _rel(folder) not in NOT_PACKAGES
    ]
    assert sorted(set(missing)) == [], "folders of tests/ without an __init__.py"
    assert [f for f in NOT_PACKAGES if (TESTS.parent / f / "__init__.py").exists()] == []


def test_every_test_file_names_a_module_of_its_package() -> None:
    orphans, named = [], []
    for folder in _folders():
        package = mirror_of(folder)
        if package is None or _free(folder):
            continue
        modules = module_names(package)
        for test in sorted(folder.glob("test_*.py")):
            (named if names_a_module(test, modules) else orphans).append(_rel(test))
    assert sorted(set(orphans) - set(NAMING_EXEMPT)) == [], (
        "test files that name no module of the package their folder mirrors: "
        "test_<module>.py or test_<module>_<topic>.py"
    )
    stale = sorted(set(NAMING_EXEMPT) - set(orphans))
    assert stale == [], "no longer needed (file gone or it names a module): drop from NAMING_EXEMPT"


def core_modules() -> list[Path]:
    return sorted(
        path
        for package in CORE
        for path in (PACKAGE / package).rglob("*.py")
        if path.name != "__init__.py"  # a package's face; its contract has its own tests
    )


def mirror_test(module: Path) -> Path:
    relative = module.relative_to(PACKAGE)
    return TESTS.joinpath(*relative.parent.parts, f"test_{relative.stem}.py")


def dotted(module: Path) -> str:
    return ".".join(module.relative_to(PACKAGE).with_suffix("").parts)


def coverage() -> tuple[int, int, list[str]]:
    """(covered, total, the uncovered modules) over the core packages."""
    modules = core_modules()
    uncovered = [dotted(m) for m in modules if not mirror_test(m).is_file()]
    return len(modules) - len(uncovered), len(modules), uncovered


def test_the_core_modules_have_their_own_test_files() -> None:
    covered, total, uncovered = coverage()
    assert sorted(set(uncovered) - set(UNMIRRORED)) == [], (
        "core modules without tests/<package>/test_<module>.py (write one, or list the "
        "module in UNMIRRORED with the reason)"
    )
    assert sorted(set(UNMIRRORED) - set(uncovered)) == [], (
        "these have their test file now (or are gone): drop them from UNMIRRORED"
    )
    assert covered / total >= MIN_COVERAGE, f"{covered}/{total} core modules have a test file"


def top_level_modules() -> list[str]:
    """The modules of ``src/genmcp/*.py`` (not the package's face or ``python -m``)."""
    return sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__"))


def test_the_top_level_modules_have_their_own_test_files() -> None:
    modules = top_level_modules()
    assert {"channel", "events", "errors", "context", "tools", "suite"} <= set(modules)
    uncovered = [m for m in modules if not (TESTS / f"test_{m}.py").is_file()]
    assert sorted(set(uncovered) - set(TOP_LEVEL_UNMIRRORED)) == [], (
        "top-level modules of src/genmcp without tests/test_<module>.py (write one, or list "
        "the module in TOP_LEVEL_UNMIRRORED with the reason)"
    )
    assert sorted(set(TOP_LEVEL_UNMIRRORED) - set(uncovered)) == [], (
        "these have their test file now (or are gone): drop them from TOP_LEVEL_UNMIRRORED"
    )


def test_the_naming_rule_reads_prefixes_as_topics() -> None:
    modules = {"http", "asgi", "legacy_session"}
    assert names_a_module(Path("test_http.py"), modules)
    assert names_a_module(Path("test_http_host_origin_matrix.py"), modules)
    assert names_a_module(Path("test_legacy_session.py"), modules)
    assert not names_a_module(Path("test_https.py"), modules)
    assert not names_a_module(Path("test_legacy_http.py"), modules)

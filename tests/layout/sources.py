"""What the layout checks read: the modules of ``src/genmcp`` and the files of ``tests/``.

Read with ``ast``; nothing here imports genmcp, so the checks also see imports inside functions
and under ``TYPE_CHECKING``, and a module that fails to import is still read.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
SRC: Final = ROOT / "src"
PACKAGE: Final = SRC / "genmcp"
TESTS: Final = ROOT / "tests"

LONG_MODULE: Final = 400
"""House rule: about 400 lines per module. Past it a module is reported (never failed): it
may hold two ideas, or one that is simply long; the report says which modules to look at."""


@dataclass(frozen=True)
class Module:
    """One source module: its dotted name, its file and its text."""

    name: str
    path: Path
    text: str

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"

    @property
    def tree(self) -> ast.Module:
        return _parse(self.text, str(self.path))


@cache
def _parse(text: str, filename: str) -> ast.Module:
    return ast.parse(text, filename=filename)


def read(path: Path, name: str | None = None) -> Module:
    """Any Python file as a Module (``name`` defaults to its stem)."""
    return Module(name or path.stem, path, path.read_text(encoding="utf-8"))


@cache
def modules() -> tuple[Module, ...]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        found.append(read(path, ".".join(parts[:-1] if parts[-1] == "__init__" else parts)))
    return tuple(found)


def names() -> list[str]:
    return [module.name for module in modules()]


def under(prefix: str) -> list[str]:
    return [name for name in names() if name == prefix or name.startswith(prefix + ".")]


def long_modules(limit: int = LONG_MODULE) -> list[tuple[str, int]]:
    """Every module past ``limit`` lines, longest first: (dotted name, lines)."""
    sizes = [(module.name, len(module.text.splitlines())) for module in modules()]
    return sorted(((name, lines) for name, lines in sizes if lines > limit), key=lambda x: -x[1])


# -- imports --------------------------------------------------------------------------------


@cache
def _is_module(name: str) -> bool:
    base = SRC.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.name.split(".")
    if not module.is_package:
        package = package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(module: Module) -> set[str]:
    """Every module ``module`` imports, anywhere in its source, as absolute dotted names.

    ``from X import a`` counts as importing ``X.a`` when that is a genmcp module, else ``X``.
    """
    found: set[str] = set()
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            for alias in node.names:
                target = f"{source}.{alias.name}"
                found.add(target if _is_module(target) else source)
    return found


@cache
def imports(name: str) -> frozenset[str]:
    return frozenset(imports_of(next(each for each in modules() if each.name == name)))


def top_levels(name: str) -> set[str]:
    return {each.split(".")[0] for each in imports(name)}


def from_genmcp(name: str) -> set[str]:
    return {each for each in imports(name) if each == "genmcp" or each.startswith("genmcp.")}

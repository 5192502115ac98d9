"""The exception tree of ``genmcp/errors.py``'s docstring is whole and true.

Every exception class defined under ``src/genmcp`` is drawn there, under its base, with the
module it lives in; a drawn class that is gone, moved or rebased fails too. So a new exception
is placed in the tree (and its reader learns when it is raised) in the change that adds it.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import re
from dataclasses import dataclass
from typing import Final

from tests.layout.sources import PACKAGE, Module, modules, read

ROW: Final = re.compile(
    r"^(?P<trunk>(?:│   |    )*)(?:├── |└── )(?P<name>\w+)(?:  \[(?P<module>[\w.]+)\])?$"
)


@dataclass(frozen=True, order=True)
class Drawn:
    """One exception class: its name, its module (under ``genmcp.``) and its base's name."""

    name: str
    module: str
    base: str


def _builtin_exception(name: str) -> bool:
    value = getattr(builtins, name, None)
    return isinstance(value, type) and issubclass(value, BaseException)


def tree_text() -> str:
    """The tree block of errors.py's docstring: the indented lines after ``::``."""
    doc = ast.get_docstring(read(PACKAGE / "errors.py").tree) or ""
    block = doc.split("The exception tree", 1)[1].split("::\n", 1)[1]
    lines = []
    for line in block.splitlines()[1:]:
        if line and not line.startswith("    "):
            break
        lines.append(line[4:])
    return "\n".join(lines)


def drawn(text: str) -> list[Drawn]:
    """The rows of a tree: each class row with the row it hangs under (its base)."""
    rows: list[Drawn] = []
    path: list[str] = []
    for line in text.splitlines():
        if line and line[0].isalpha():  # the root: Exception
            path = [line.strip()]
            continue
        match = ROW.match(line)
        if match is None:
            continue  # what the row above says
        depth = len(match["trunk"]) // 4 + 1
        name, module = match["name"], match["module"]
        assert module or _builtin_exception(name), f"{line!r}: a class of genmcp needs [module]"
        path = [*path[:depth], name]
        if module:
            rows.append(Drawn(name, module, path[depth - 1]))
    return rows


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Names a module imports under another name (``import X as Y``): Y -> X."""
    return {
        alias.asname: alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname
    }


def _base(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def defined(sources: list[Module]) -> list[Drawn]:
    """Every exception class the sources define (nested ones too), with its first base.

    A class is an exception when a base is a builtin exception or an exception class of the
    sources (by name, after undoing ``as`` imports), found to a fixed point."""
    classes: list[tuple[str, str, str]] = []
    for module in sources:
        aliases = _aliases(module.tree)
        short = module.name.removeprefix("genmcp.")
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ClassDef) and node.bases:
                base = _base(node.bases[0])
                classes.append((node.name, short, aliases.get(base, base)))
    exceptions: set[str] = set()
    while True:
        more = {
            name for name, _, base in classes if _builtin_exception(base) or base in exceptions
        } - exceptions
        if not more:
            break
        exceptions |= more
    return sorted(Drawn(*each) for each in classes if each[0] in exceptions)


def test_every_exception_class_is_drawn_in_the_tree() -> None:
    source = defined(list(modules()))
    tree = drawn(tree_text())
    assert sorted(set(source) - set(tree)) == [], (
        "exception classes not drawn (or drawn under another base or module) in the tree of "
        "src/genmcp/errors.py's docstring: draw each under its base, with when it is raised"
    )
    assert sorted(set(tree) - set(source)) == [], "drawn in the tree, not in the source"
    assert len(tree) == len(set(tree)), "a class drawn twice"


def test_the_drawn_tree_is_what_python_sees() -> None:
    """Each drawn class imports from its module and derives from the row it hangs under."""
    tree = drawn(tree_text())
    assert len(tree) >= 35
    for row in tree:
        cls = getattr(importlib.import_module(f"genmcp.{row.module}"), row.name)
        assert isinstance(cls, type) and issubclass(cls, BaseException), row
        assert cls.__bases__[0].__name__ == row.base, row


def test_the_tree_reader_follows_the_trunks() -> None:
    text = (
        "Exception\n"
        "├── A  [a]\n"
        "│   │   what A is\n"
        "│   ├── B  [b.c]\n"
        "│   │       what B is\n"
        "│   └── C  [c]\n"
        "│       └── D  [d]\n"
        "└── ValueError\n"
        "    └── E  [e]\n"
    )
    assert drawn(text) == [
        Drawn("A", "a", "Exception"),
        Drawn("B", "b.c", "A"),
        Drawn("C", "c", "A"),
        Drawn("D", "d", "C"),
        Drawn("E", "e", "ValueError"),
    ]


def test_the_finder_sees_nested_and_renamed_bases() -> None:
    text = (
        '"""m."""\n'
        "from genmcp.client.errors import RPCError as Base\n"
        "class Mine(Base): ...\n"
        "class Plain: ...\n"
        "class Fault(ValueError): ...\n"
        "class Deeper(Fault): ...\n"
        "def f():\n"
        "    class _Local(Exception): ...\n"
    )
    sources = [
        Module("genmcp.m", PACKAGE / "m.py", text),
        Module(
            "genmcp.client.errors", PACKAGE / "client/errors.py", "class RPCError(Exception): ...\n"
        ),
    ]
    assert defined(sources) == [
        Drawn("Deeper", "m", "Fault"),
        Drawn("Fault", "m", "ValueError"),
        Drawn("Mine", "m", "RPCError"),
        Drawn("RPCError", "client.errors", "Exception"),
        Drawn("_Local", "m", "Exception"),
    ]

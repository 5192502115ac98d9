"""A package's names never hide its submodules: ``genmcp.x`` is one thing.

``from genmcp import tool`` is the decorator; the module of ``Tool`` was ``genmcp/tool.py`` too,
so ``genmcp.tool`` was the function after ``import genmcp`` and the module after
``import genmcp.tool`` had run first: which one a reader (or ``mock.patch("genmcp.tool.x")``,
or a documentation tool) got depended on import order. The modules are ``tools.py``,
``prompts.py`` and ``resources.py`` now (issue 46), and this rule keeps it so for every
package: a name a package binds or exports is never the name of one of its submodules, unless
it is that submodule.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sys
from collections.abc import Iterator

import genmcp
from tests.layout.sources import PACKAGE, Module, modules


def submodules(package: Module) -> set[str]:
    """The names of the modules and packages directly inside ``package``."""
    folder = package.path.parent
    files = {p.stem for p in folder.glob("*.py") if p.stem not in ("__init__", "__main__")}
    return files | {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}


def _exported(tree: ast.Module) -> set[str]:
    """The strings of ``__all__`` and the keys of a lazy-import table (``_LAZY``)."""
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            if names & {"__all__", "_LAZY"} and node.value is not None:
                value = node.value
                items = value.keys if isinstance(value, ast.Dict) else getattr(value, "elts", [])
                found |= {i.value for i in items if isinstance(i, ast.Constant)}
    return found


def _bindings(package: Module) -> Iterator[tuple[str, str]]:
    """(name, what it is bound to) for each top-level binding of a package's ``__init__``;
    what it is bound to is the dotted module when the binding imports a submodule itself."""
    own = package.name
    for node in package.tree.body:
        if isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:  # from . import x, from .x import y
                source = ".".join([own, *([source] if source else [])])
            for alias in node.names:
                yield alias.asname or alias.name, f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    yield alias.asname, alias.name
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, f"{own}:{node.name}"
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield target.id, f"{own}:{target.id}"


def shadowed(package: Module, subs: set[str]) -> list[str]:
    """The submodules ``subs`` of ``package`` a name of its ``__init__`` hides, as
    ``package.name``."""
    bound = dict(_bindings(package))
    hidden = {
        name
        for name in subs & (set(bound) | _exported(package.tree))
        if bound.get(name) != f"{package.name}.{name}"
    }
    return sorted(f"{package.name}.{name}" for name in hidden)


def test_no_name_of_a_package_hides_one_of_its_submodules() -> None:
    found = [
        name
        for module in modules()
        if module.is_package
        for name in shadowed(module, submodules(module))
    ]
    assert found == [], "a package binds or exports the name of its own submodule: rename one"


def test_genmcp_x_is_the_module_x_whatever_was_imported_first() -> None:
    """At run time: after every submodule of genmcp is imported, ``genmcp.<name>`` is still
    that module (the public attribute did not replace it, nor it the attribute)."""
    names = [info.name for info in pkgutil.iter_modules(genmcp.__path__)]
    assert {"tools", "prompts", "resources", "errors", "channel"} <= set(names)
    for name in names:
        if name == "__main__":
            continue
        module = importlib.import_module(f"genmcp.{name}")
        assert getattr(genmcp, name) is module is sys.modules[f"genmcp.{name}"], name
    assert callable(genmcp.tool) and genmcp.tool is genmcp.functions.tool  # the decorator
    assert {"tool", "prompt", "resource"} <= set(genmcp.__all__)


def test_the_rule_sees_a_decorator_named_like_its_module() -> None:
    text = (
        '"""pkg."""\n'
        "from pkg.functions import tool\n"
        "from pkg.tools import Tool\n"
        "from pkg import errors\n"
        "from . import channel as channel\n"
        "def helper(): ...\n"
        "__all__ = ['Tool', 'tool', 'errors', 'lazy']\n"
        "_LAZY = {'lazy': 'pkg.other'}\n"
    )
    package = Module("pkg", PACKAGE / "__init__.py", text)
    subs = {"tool", "tools", "errors", "channel", "helper", "lazy", "functions"}
    assert shadowed(package, subs) == ["pkg.helper", "pkg.lazy", "pkg.tool"]
    assert shadowed(package, subs - {"tool", "helper", "lazy"}) == []

"""The source layout holds: modules stay small and imports follow the layers (DESIGN.md §1).

Every check reads ``src/genmcp`` with ``ast`` and imports nothing, so it also sees imports
inside functions and under ``TYPE_CHECKING``. An exception to a rule is listed below with its
reason, and fails once it is no longer needed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

import pytest

SRC: Final = Path(__file__).resolve().parents[1] / "src"

MAX_LINES: Final = 450
"""House rule: about 400 lines per module; past this a module holds more than one idea."""

OVERSIZED: Final[dict[str, str]] = {}
"""Modules allowed past ``MAX_LINES``, each with its reason."""

WEB: Final = frozenset({"fastapi", "starlette", "sse_starlette"})
"""The web framework; only the FastAPI adapter may import it."""

WEB_MODULES: Final = frozenset(
    {
        "genmcp.transports.fastapi",
        "genmcp.transports.endpoint",
        "genmcp.transports.depends",
        "genmcp.fastapi",
    }
)
"""The adapter, and ``genmcp.fastapi``: the short import path that re-exports it."""

WEB_EXCEPTIONS: Final[dict[str, str]] = {
    "genmcp.auth.protected_resource": (
        "OAuthResource is a FastAPI dependency and serves the metadata routes"
    ),
    "genmcp.routes_as_tools": "routes_router builds an MCPRouter around a FastAPI app's routes",
    "genmcp.routes_as_tools.build": "route_tools reads a FastAPI app's routes and OpenAPI document",
    "genmcp.routes_as_tools.credentials": (
        "forward_credentials and mcp_caller are FastAPI dependencies"
    ),
}
"""Modules outside ``WEB_MODULES`` that still import the web framework, and why."""

IO_AND_WEB: Final = frozenset(
    {"asyncio", "fastapi", "starlette", "sse_starlette", "uvicorn", "httpx"}
)
"""What pure modules never import: an event loop, a web framework, an HTTP client."""

PROTOCOL_MAY_USE: Final = ("genmcp.protocol", "genmcp.errors")
"""The only genmcp modules ``protocol/`` may import."""

PURE_OUTSIDE_PROTOCOL: Final = frozenset(
    {
        "genmcp.errors",
        "genmcp.schema",
        "genmcp.schema.engine",
        "genmcp.schema.fastcheck",
        "genmcp.schema.keywords",
        "genmcp.schema.re2syntax",
        "genmcp.schema.refs",
        "genmcp.schema.regex",
        "genmcp.schema.wellformed",
        "genmcp.sealing",
    }
)
"""Modules outside ``protocol/`` whose docstrings promise no asyncio and no web framework."""

SELF_CONTAINED: Final = frozenset({"genmcp.errors", "genmcp.sealing"})
"""Modules that import nothing from genmcp (everything else may build on them)."""

REDIS_MODULES: Final = frozenset(
    {
        "genmcp.storage.redis",
        "genmcp.storage.redis.batch",
        "genmcp.storage.redis.broker",
        "genmcp.storage.redis.inbox",
        "genmcp.storage.redis.options",
        "genmcp.storage.redis.registry",
        "genmcp.storage.redis.tasks",
    }
)


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
        return ast.parse(self.text, filename=str(self.path))


@cache
def modules() -> tuple[Module, ...]:
    found = []
    for path in sorted((SRC / "genmcp").rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.append(Module(name, path, path.read_text(encoding="utf-8")))
    return tuple(found)


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


def _names() -> list[str]:
    return [module.name for module in modules()]


def _under(prefix: str) -> list[str]:
    return [name for name in _names() if name == prefix or name.startswith(prefix + ".")]


# -- size -----------------------------------------------------------------------------------


@pytest.mark.parametrize("module", modules(), ids=lambda module: module.name)
def test_modules_stay_small(module: Module) -> None:
    lines = len(module.text.splitlines())
    if module.name in OVERSIZED:
        assert lines > MAX_LINES, f"{module.name} is {lines} lines now: drop it from OVERSIZED"
    else:
        assert lines <= MAX_LINES, (
            f"{module.name} has {lines} lines (budget {MAX_LINES}): split it by concept"
        )


@pytest.mark.parametrize("module", modules(), ids=lambda module: module.name)
def test_every_module_opens_with_a_docstring(module: Module) -> None:
    assert ast.get_docstring(module.tree), f"{module.name} has no module docstring"


# -- import contracts -----------------------------------------------------------------------


@pytest.mark.parametrize("name", _under("genmcp.protocol"))
def test_protocol_is_pure(name: str) -> None:
    assert top_levels(name) & IO_AND_WEB == set()
    outside = {
        each
        for each in from_genmcp(name)
        if not any(each == ok or each.startswith(ok + ".") for ok in PROTOCOL_MAY_USE)
    }
    assert outside == set(), f"{name} imports genmcp outside protocol/ and errors"


@pytest.mark.parametrize("name", sorted(PURE_OUTSIDE_PROTOCOL))
def test_pure_modules_stay_pure(name: str) -> None:
    assert top_levels(name) & IO_AND_WEB == set()


@pytest.mark.parametrize("name", sorted(SELF_CONTAINED))
def test_errors_and_sealing_import_nothing_from_genmcp(name: str) -> None:
    assert from_genmcp(name) == set()


def test_only_the_fastapi_adapter_imports_the_web_framework() -> None:
    users = {name for name in _names() if top_levels(name) & WEB}
    assert users - WEB_MODULES == set(WEB_EXCEPTIONS), (
        "a module outside transports/fastapi.py imports FastAPI, Starlette or sse-starlette "
        "(or an exception in WEB_EXCEPTIONS is no longer needed)"
    )


def test_only_the_redis_store_imports_redis() -> None:
    users = {name for name in _names() if "redis" in top_levels(name)}
    assert users <= REDIS_MODULES


def test_the_reader_sees_every_kind_of_import() -> None:
    text = (
        '"""Example."""\n'
        "from typing import TYPE_CHECKING\n"
        "from . import shapes\n"
        "from .. import errors\n"
        "from genmcp.protocol.meta import LOG_LEVELS\n"
        "if TYPE_CHECKING:\n"
        "    from fastapi import FastAPI\n"
        "def later() -> None:\n"
        "    import asyncio.queues\n"
    )
    module = Module("genmcp.protocol.example", SRC / "genmcp/protocol/example.py", text)
    assert imports_of(module) == {
        "typing",
        "genmcp.protocol.shapes",
        "genmcp.errors",
        "genmcp.protocol.meta",
        "fastapi",
        "asyncio.queues",
    }


# -- the architecture: layers, cycles, the private machinery ------------------------------

LAYERS: Final[tuple[tuple[str, ...], ...]] = (
    ("genmcp.errors", "genmcp.events", "genmcp.sealing"),
    ("genmcp.protocol",),
    ("genmcp.schema",),
    ("genmcp.context",),
    ("genmcp.outcomes", "genmcp.behaviour", "genmcp.channel"),
    ("genmcp.tool", "genmcp.prompt", "genmcp.resource", "genmcp.apps"),
    ("genmcp.storage",),
    ("genmcp._suite",),
    ("genmcp.middleware",),
    ("genmcp.suite",),
    ("genmcp.transports", "genmcp.fastapi", "genmcp.auth"),
    (
        "genmcp.testing",
        "genmcp.cli",
        "genmcp.__main__",
        "genmcp.scaleout",
        "genmcp.routes_as_tools",
    ),
)
"""DESIGN.md §1, lowest first: a module imports only from its own layer or below."""


def layer_of(name: str) -> int:
    for rank, prefixes in enumerate(LAYERS):
        if any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes):
            return rank
    raise AssertionError(f"{name} is in no layer of LAYERS: place it")


def test_every_module_has_a_layer() -> None:
    for name in _names():
        if name != "genmcp":
            layer_of(name)


def test_no_module_imports_a_higher_layer() -> None:
    upward = sorted(
        f"{name} -> {target}"
        for name in _names()
        if name != "genmcp"
        for target in from_genmcp(name)
        if target != "genmcp" and layer_of(target) > layer_of(name)
    )
    assert upward == [], "imports from a lower layer to a higher one"


def import_graph() -> dict[str, set[str]]:
    known = set(_names())
    return {
        name: {target for target in from_genmcp(name) if target in known and target != name}
        for name in known
        if name != "genmcp"  # the package only re-exports; it imports everything by design
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_there_are_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


PRIVATE: Final = "genmcp._suite"
PRIVATE_TESTS: Final = "tests/_suite"
"""The unit tests of the private machinery (its phase table, the Call) are its only users
outside the package."""


def test_nothing_outside_the_package_imports_the_private_machinery() -> None:
    root = SRC.parent
    users = []
    for folder in ("tests", "examples", "bench"):
        for path in sorted((root / folder).rglob("*.py")):
            if path.is_relative_to(root / PRIVATE_TESTS) or path.name == "test_layout.py":
                continue
            module = Module(path.stem, path, path.read_text(encoding="utf-8"))
            if any(t == PRIVATE or t.startswith(PRIVATE + ".") for t in imports_of(module)):
                users.append(str(path.relative_to(root)))
    assert users == []


def test_the_public_behaviours_sit_on_top_of_the_package() -> None:
    tops = {path.stem for path in (SRC / "genmcp").glob("*.py")}
    assert {"tool", "prompt", "resource", "channel", "suite", "errors"} <= tops
    assert not {"worker", "oneshot", "subscriptions", "tool_catalog", "mail"} & tops

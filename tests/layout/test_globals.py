"""Module-level state that changes at run time: none but the listed, each with its reason.

A module global that a function rebinds (``global x``) or a module-level container that the
module fills at run time (``NAME[key] = ...``, ``NAME.add(...)``, ``next(NAME)``...) is state
every Suite, router and test of the process shares. State that belongs to one object lives
on it; what stays is process-wide by nature (a process's thread pool, ``gc.freeze``, uvicorn's
exit), a memo of a pure function over code (bounded by the classes and schemas served), or a
registration at import that keeps the layers pointing down. A new one fails here until it is
listed with its reason, and an entry fails once it is no longer needed.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

from tests.layout.sources import Module, modules

ALLOWED: Final[dict[str, str]] = {
    "genmcp.call.call._ids": (
        "call ids are unique in the process: every Suite shares the process's random prefix"
    ),
    "genmcp.transforms.as_tools._IDS": (
        "ids of the in-process requests a prompt or resource tool makes: unique in the process"
    ),
    "genmcp.catalogs.hooks._ASYNC": "a memo per hook function (code: bounded)",
    "genmcp.catalogs.hooks._CHECKED": "hook functions found fit (code: bounded, cleared at 4096)",
    "genmcp.fastapi.compat._watch": (
        "uvicorn's exit is the process's: one watch per loop, shared by every stream"
    ),
    "genmcp.fastapi.depends._dependants": "a memo per dependency (code: bounded)",
    "genmcp.functions.tools._READINGS": (
        "a memo of @tool readings per function shape (code: bounded, cleared at 1024)"
    ),
    "genmcp.fastapi.gcfreeze._frozen": "gc.freeze is the process's: once per process",
    "genmcp.protocol.legacy_schemas._KNOWN": "a memo per shape and supported version (bounded)",
    "genmcp.schema.keywords._CHECKERS": "a memo per jsonschema class (bounded)",
    "genmcp.schema.keywords._CLASSES": "a memo per jsonschema class (bounded)",
    "genmcp.schema.offload._pool": (
        "one validation thread pool per process bounds the threads of every Suite"
    ),
    "genmcp.schema.regex._REGEXES": "a memo of compiled schema patterns (server code: bounded)",
    "genmcp.schema.sandbox._idle": (
        "the process's idle helper processes: MAX_CHILDREN bounds them per process"
    ),
    "genmcp.storage.redis.eviction._warned": (
        "an unreadable eviction policy is warned once per process and Redis, whatever the "
        "brokers and lifespans"
    ),
    "genmcp.transports.http.rules._REFUSALS_LOGGED": (
        "refused Host/Origin values are logged at most 64 per process (hostile traffic), "
        "whatever the routers (tenants)"
    ),
    "genmcp.transports.http.keepalive._WHEELS": (
        "one keepalive wheel (one timer) per event loop, shared by every endpoint's streams "
        "on it; weakly keyed: a loop's wheel goes with the loop"
    ),
    "genmcp.transports.hosting._HOSTS": (
        "the FastAPI adapter registers its app host at import: stdio serves apps without "
        "importing a higher layer"
    ),
}
"""``module.name`` -> why it stays module state."""

_EMPTY_CALLS: Final = frozenset(
    {"set", "dict", "list", "count", "defaultdict", "WeakKeyDictionary", "WeakValueDictionary",
     "WeakSet", "OrderedDict", "deque"}
)  # fmt: skip
_MUTATORS: Final = frozenset(
    {"add", "append", "extend", "update", "setdefault", "pop", "popitem", "discard", "remove",
     "clear", "insert", "appendleft"}
)  # fmt: skip


def _containers(tree: ast.Module) -> set[str]:
    """Module-level names bound to an empty container or a counter (filled at run time)."""
    found: set[str] = set()
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        empty = (isinstance(value, ast.Dict | ast.List | ast.Set) and not _items(value)) or (
            isinstance(value, ast.Call) and _called(value) in _EMPTY_CALLS
        )
        if empty:
            found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


def _items(node: ast.Dict | ast.List | ast.Set) -> list[object]:
    return list(node.keys) if isinstance(node, ast.Dict) else list(node.elts)


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def mutated(module: Module) -> set[str]:
    """The module's globals rebound by ``global`` or its empty containers filled at run time."""
    tree = module.tree
    names = {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}
    containers = _containers(tree)
    for node in ast.walk(tree):
        target: ast.expr | None = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            target = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _MUTATORS:
                target = node.func.value
        elif isinstance(node, ast.Call) and _called(node) == "next" and node.args:
            target = node.args[0]
        if isinstance(target, ast.Name) and target.id in containers:
            names.add(target.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            if isinstance(node.value, ast.Name) and node.value.id in containers:
                if node.attr in _MUTATORS:  # a bound method passed on: ``NAME.discard``
                    names.add(node.value.id)
    return {f"{module.name}.{name}" for name in names}


def test_module_state_changed_at_run_time_is_only_the_listed() -> None:
    found = set().union(*(mutated(module) for module in modules()))
    assert sorted(found - set(ALLOWED)) == [], (
        "module state changed at run time: make it state of the object that owns it, or list "
        "it in ALLOWED with the reason it must be the process's"
    )
    assert sorted(set(ALLOWED) - found) == [], "no longer module state: drop from ALLOWED"


def test_the_check_sees_each_kind_of_change() -> None:
    source = (
        "import itertools\n_a = {}\n_b: set[str] = set()\n_c = itertools.count()\n_d = None\n"
        "_e: list[int] = []\n_kept = {}\n_f = []\n"
        "def f(k):\n    global _d\n    _d = 1\n    _a[k] = 1\n    _b.add(k)\n    next(_c)\n"
        "    g(_e.append)\n    return _kept.get(k), _f[0]\n"
    )
    module = Module("genmcp.x", Path("x.py"), source)
    assert mutated(module) == {f"genmcp.x.{n}" for n in ("_a", "_b", "_c", "_d", "_e")}

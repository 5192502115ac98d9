"""Each module holds one concept, whole: it says what it owns, and no class is cut in two.

The size of a module is not a rule: modules past ~400 lines are reported at the end of the
run (``conftest.py`` here), never failed. What is refused is the way a line budget used to be
met: one class written as a base plus a mixin of stubs (``SuiteMethods`` under ``Suite``).

A *stub* is a method whose body (after its docstring) is a single ``raise TypeError(...)`` or
``raise NotImplementedError(...)``; a *declared attribute* is a bare class-level annotation
(``name: T`` with no value). A class with either expects a subclass to supply it. That is an
interface, and fine, when it says so in a way the tools check:

- it derives from ``Protocol`` (mypy checks every implementation structurally), or
- its stubs are ``@abstractmethod`` (ABC refuses to instantiate a subclass that lacks one),
- its annotations are fields: a dataclass, ``NamedTuple``, ``TypedDict`` or ``ClassVar``
  declarations of a base with several subclasses (below).

Otherwise it is a template with extension points (``Job.start``, ``Catalog.make``,
``Tool.call``), and fine only while more than one class fills them in: across ``src/``,
``tests/`` and ``examples/`` it has at least two subclasses. A stub base with a single
subclass is one class written in two places; a base whose whole body is annotations or
stubs is no class at all. Both are refused.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from tests.layout.sources import LONG_MODULE, ROOT, long_modules, modules, read

MIXINS_PENDING: Final[dict[str, str]] = {}
"""Classes the rule refuses today, each with the change that removes it; fails once gone."""

INTERFACE_BASES: Final = frozenset({"Protocol", "ABC", "TypedDict", "NamedTuple"})
FIELD_DECORATORS: Final = frozenset({"dataclass", "dataclasses.dataclass"})
STUB_ERRORS: Final = frozenset({"TypeError", "NotImplementedError"})


def _name(node: ast.expr) -> str:
    """The simple name a base or decorator expression ends with (``a.B[T]`` -> ``B``)."""
    while isinstance(node, (ast.Subscript, ast.Call)):
        node = node.value if isinstance(node, ast.Subscript) else node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _body(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements after a docstring, without ``pass`` and ``...``."""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return [
        s
        for s in body
        if not isinstance(s, ast.Pass)
        and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]


def is_stub(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = _body(function.body)
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    abstract = any(_name(d) == "abstractmethod" for d in function.decorator_list)
    return _name(body[0].exc) in STUB_ERRORS and not abstract


@dataclass(frozen=True)
class ClassShape:
    """What the rule needs of one class of src/: its stubs, declared attributes, bases."""

    qualname: str
    bases: tuple[str, ...]
    stubs: tuple[str, ...]
    declared: tuple[str, ...]
    others: int
    """Statements that are neither stubs nor declared attributes (methods, assignments)."""
    interface: bool


def shape_of(module: str, node: ast.ClassDef) -> ClassShape:
    bases = tuple(_name(base) for base in node.bases)
    keywords = {kw.arg: _name(kw.value) for kw in node.keywords}
    interface = (
        bool(set(bases) & INTERFACE_BASES)
        or keywords.get("metaclass") == "ABCMeta"
        or any(ast.unparse(d).split("(")[0] in FIELD_DECORATORS for d in node.decorator_list)
    )
    stubs, declared, others = [], [], 0
    for statement in _body(node.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_stub(statement):
            stubs.append(statement.name)
        elif isinstance(statement, ast.AnnAssign) and statement.value is None:
            declared.append(ast.unparse(statement.target))
        else:
            others += 1
    return ClassShape(
        f"{module}.{node.name}", bases, tuple(stubs), tuple(declared), others, interface
    )


def classes_of(tree: ast.Module, module: str) -> Iterator[ClassShape]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            yield shape_of(module, node)


def stub_bases(src: list[ClassShape], elsewhere: list[tuple[str, ...]]) -> dict[str, str]:
    """The classes of ``src`` the rule refuses, each with why.

    ``elsewhere`` holds the bases of the classes defined in tests/ and examples/ (by simple
    name), which count as subclasses too: users subclass the public behaviours.
    """
    subclasses: dict[str, int] = defaultdict(int)
    for bases in [shape.bases for shape in src] + elsewhere:
        for base in set(bases):
            subclasses[base] += 1
    interfaces = {shape.qualname.rsplit(".", 1)[1] for shape in src if shape.interface}
    grown = True
    while grown:  # a TypedDict (a Protocol...) that extends one is an interface too
        more = {s.qualname.rsplit(".", 1)[1] for s in src if set(s.bases) & interfaces}
        grown = not more <= interfaces
        interfaces |= more
    refused = {}
    for shape in src:
        name = shape.qualname.rsplit(".", 1)[1]
        if name in interfaces or not subclasses[name] or not (shape.stubs or shape.declared):
            continue
        if shape.others == 0:
            refused[shape.qualname] = "its body is only stubs and declared attributes"
        elif shape.stubs and subclasses[name] < 2:
            refused[shape.qualname] = (
                f"stubs {list(shape.stubs)} filled in by its one subclass: write one class"
            )
    return refused


def test_every_module_opens_with_a_docstring() -> None:
    missing = [module.name for module in modules() if not ast.get_docstring(module.tree)]
    assert missing == [], "modules without a docstring saying what they own"


def test_no_class_is_a_base_plus_a_stub_mixin() -> None:
    src = [shape for m in modules() for shape in classes_of(m.tree, m.name)]
    elsewhere = [
        shape.bases
        for folder in ("tests", "examples")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for shape in classes_of(read(path).tree, path.stem)
    ]
    refused = stub_bases(src, elsewhere)
    pending = {name: why for name, why in refused.items() if name in MIXINS_PENDING}
    assert {name: why for name, why in refused.items() if name not in pending} == {}, (
        "a class cut into a base plus a stub-raising mixin, or a base of annotations only"
    )
    assert sorted(set(MIXINS_PENDING) - set(pending)) == [], (
        "no longer refused: drop from MIXINS_PENDING"
    )


def _shapes(text: str) -> list[ClassShape]:
    return list(classes_of(ast.parse(text), "m"))


def test_the_rule_tells_mixins_from_interfaces_and_templates() -> None:
    text = (
        "from typing import Protocol, ClassVar, TypedDict\n"
        "from abc import ABC, abstractmethod\n"
        "class Half:\n"
        "    size: int\n"
        "    def send(self): raise TypeError('the other half defines send')\n"
        "    def twice(self): return self.send() * 2\n"
        "class Whole(Half):\n"
        "    def send(self): return 1\n"
        "class Fields:\n"
        "    a: int\n"
        "    b: str\n"
        "class UsesFields(Fields): ...\n"
        "class Port(Protocol):\n"
        "    def send(self) -> int: raise NotImplementedError\n"
        "class Impl(Port): ...\n"
        "class Abstract(ABC):\n"
        "    @abstractmethod\n"
        "    def send(self) -> int: raise NotImplementedError\n"
        "    def twice(self) -> int: return self.send() * 2\n"
        "class Concrete(Abstract): ...\n"
        "class Template:\n"
        "    kind: ClassVar[str]\n"
        "    def make(self): raise TypeError('subclasses define make')\n"
        "    def add(self): return self.make()\n"
        "class One(Template): ...\n"
        "class Two(Template): ...\n"
        "class Unused:\n"
        "    def make(self): raise TypeError\n"
        "class Keys(TypedDict):\n"
        "    a: int\n"
        "class MoreKeys(Keys):\n"
        "    b: int\n"
        "class MostKeys(MoreKeys):\n"
        "    c: int\n"
    )
    assert stub_bases(_shapes(text), []) == {
        "m.Half": "stubs ['send'] filled in by its one subclass: write one class",
        "m.Fields": "its body is only stubs and declared attributes",
    }
    # a subclass in tests/ or examples/ (a user of a public base) counts as a second one
    assert "m.Half" not in stub_bases(_shapes(text), [("Half",)])


def test_the_long_module_report_lists_each_module_past_the_mark_longest_first() -> None:
    report = long_modules()
    assert [lines for _, lines in report] == sorted((lines for _, lines in report), reverse=True)
    assert all(lines > LONG_MODULE for _, lines in report)
    sizes = {m.name: len(m.text.splitlines()) for m in modules()}
    assert {name for name, _ in report} == {n for n, lines in sizes.items() if lines > LONG_MODULE}
    assert len(long_modules(limit=0)) == len(modules())  # every module has a line


FACES: Final = frozenset({"genmcp.protocol.v2607", "genmcp.scaleout"})
"""Modules that are one import path for names defined elsewhere, by design (their docstrings
say so); every package ``__init__`` is a face too."""


def _own_names(tree: ast.Module) -> set[str]:
    """What a module defines itself: functions, classes, assigned names (try-import fallbacks
    count as its own)."""
    own: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            own.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
        elif isinstance(node, ast.Try):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom | ast.Import):
                    own.update(alias.asname or alias.name for alias in inner.names)
    return own


def _exported(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(_name(t) == "__all__" for t in node.targets):
            return [e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant)]
    return []


def test_a_module_exports_only_its_own_definitions() -> None:
    """No re-export shims: a name leaves ``__all__`` of the module it moved out of, and its
    users import it from where it is defined; package faces (``__init__``) are exempt."""
    shims = {
        module.name: foreign
        for module in modules()
        if not module.is_package and module.name not in FACES
        if (foreign := [n for n in _exported(module.tree) if n not in _own_names(module.tree)])
    }
    assert shims == {}

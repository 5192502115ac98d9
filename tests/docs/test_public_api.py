"""`genmcp`'s public API: `__all__` is sorted and complete, and everything in it is documented."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import pytest

import genmcp
import genmcp.fastapi

INIT: Final = Path(genmcp.__file__)

#: What DESIGN.md §2a promises a tool author can import from `genmcp` itself.
DESIGNED: Final = {
    "CallbackReturnError",
    "Channel",
    "Error",
    "InputRequired",
    "Result",
    "Stream",
    "Suite",
    "Tool",
    "audio",
    "call_tool_result",
    "create_message_request",
    "elicit_request",
    "embedded_resource",
    "image",
    "list_roots_request",
    "mcp_router",
    "resource_link",
    "text",
}


def defined_names() -> set[str]:
    """Every public name `genmcp/__init__.py` binds at module level (imports included)."""
    names: set[str] = set()
    for node in ast.parse(INIT.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom | ast.Import):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
    return {name for name in names if not name.startswith("_")}


def test_all_is_sorted_without_duplicates() -> None:
    assert genmcp.__all__ == sorted(genmcp.__all__)
    assert len(set(genmcp.__all__)) == len(genmcp.__all__)


TYPING_HELPERS: Final = {"annotations", "TYPE_CHECKING", "Any"}
"""What ``genmcp/__init__.py`` imports for its own annotations, not for users."""


def test_all_lists_every_public_name_the_package_defines() -> None:
    lazy = set(genmcp._LAZY)
    assert lazy == {"Client", "ClientGroup", "MCPRouter", "mcp_app", "mcp_router", "route_tools",
                    "routes_router",
                    "TenantRequest", "Tenants", "tenant_from_claim", "tenant_from_header",
                    "tenant_from_path", "tenants_router",
                    "OpenAPI", "OpenAPITool", "openapi_tools"}  # fmt: skip
    assert (defined_names() - TYPING_HELPERS) | lazy == set(genmcp.__all__)


def test_import_genmcp_loads_no_web_framework() -> None:
    code = (
        "import sys, genmcp\n"
        "web = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'fastapi', 'starlette', 'sse_starlette', 'uvicorn', 'redis'})\n"
        "print(web)\n"
        "genmcp.mcp_router\n"
        "print('fastapi' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.split("\n")
    assert out[0] == "[]", f"import genmcp loaded {out[0]}"
    assert out[1] == "True", "genmcp.mcp_router resolves the FastAPI adapter on first use"


def test_internals_stay_out_of_the_top_level() -> None:
    assert not {"Mailbox", "Sealer", "Call", "Job"} & set(genmcp.__all__)


def test_everything_listed_exists() -> None:
    missing = [name for name in genmcp.__all__ if not hasattr(genmcp, name)]
    assert missing == []


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, Any] = {}
    exec("from genmcp import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(genmcp.__all__)


def test_the_designed_api_is_importable_from_genmcp() -> None:
    assert sorted(DESIGNED - set(genmcp.__all__)) == []


def test_mcp_router_is_also_reachable_from_genmcp_fastapi() -> None:
    assert genmcp.fastapi.mcp_router is genmcp.mcp_router
    assert genmcp.fastapi.MCPRouter is genmcp.MCPRouter
    assert genmcp.fastapi.__all__ == sorted(genmcp.fastapi.__all__)
    assert all(hasattr(genmcp.fastapi, name) for name in genmcp.fastapi.__all__)


def own_docstring(obj: Any) -> str | None:
    """The docstring written for `obj` itself: not inherited, not dataclass-generated."""
    if inspect.isclass(obj):
        doc = obj.__dict__.get("__doc__")
        if dataclasses.is_dataclass(obj) and doc is not None:
            generated = obj.__name__ + str(inspect.signature(obj)).replace(" -> None", "")
            if doc == generated:
                return None
        return doc
    doc = getattr(obj, "__doc__", None)
    return doc if isinstance(doc, str) else None


EXPORTED: Final = {name: getattr(genmcp, name, None) for name in genmcp.__all__}
DOCUMENTABLE: Final = sorted(
    name for name, obj in EXPORTED.items() if inspect.isclass(obj) or inspect.isfunction(obj)
)
CLASSES: Final = sorted(name for name, obj in EXPORTED.items() if inspect.isclass(obj))


def test_the_documentation_checks_cover_the_core_api() -> None:
    assert {"Tool", "Suite", "Channel", "MCPError", "Result", "InputRequired"} <= set(CLASSES)
    assert {"call_tool_result", "mcp_router", "text"} <= set(DOCUMENTABLE) - set(CLASSES)


@pytest.mark.parametrize("name", DOCUMENTABLE)
def test_every_exported_class_and_function_has_a_docstring(name: str) -> None:
    doc = own_docstring(EXPORTED[name])
    assert doc is not None and doc.strip(), f"genmcp.{name} has no docstring of its own"


@pytest.mark.parametrize("name", CLASSES)
def test_every_public_method_of_an_exported_class_has_a_docstring(name: str) -> None:
    cls = EXPORTED[name]
    undocumented = [
        attr
        for attr, member in vars(cls).items()
        if not attr.startswith("_")
        and (inspect.isfunction(member) or isinstance(member, property | classmethod))
        and not (inspect.getdoc(getattr(cls, attr)) or "").strip()
    ]
    assert undocumented == [], f"genmcp.{name}: undocumented public methods {undocumented}"


def test_own_docstring_sees_through_inherited_and_generated_docs() -> None:
    @dataclasses.dataclass
    class Bare:
        x: int

    class Child(genmcp.Tool):
        pass

    assert own_docstring(Bare) is None
    assert own_docstring(Child) is None
    assert own_docstring(genmcp.Result) is not None


def test_importing_a_package_keeps_the_lazy_names_it_serves() -> None:
    """A subpackage named like a lazy name would replace it once imported
    (``genmcp.route_tools``, the function, by the package): none is so named."""
    code = (
        "import genmcp.routes_as_tools, genmcp.fastapi.router, genmcp\n"
        "print(all(callable(getattr(genmcp, name)) for name in genmcp._LAZY))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "True"

"""`genmcp.protocol.methods`: every method name, checked against the official schemas.

The schemas are the copies in `tests/support/spec/` (see its SOURCES.md): every request and
notification name they declare is a constant of the module, every constant is named by the
module's rule, and no module outside `protocol/` spells a method name as a string literal
(except those the coordinator's sweep has not reached yet, listed below).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from genmcp.protocol import methods

ROOT: Final = Path(__file__).resolve().parents[2]
SPEC: Final = ROOT / "tests" / "support" / "spec" / "schema"
SCHEMAS: Final = ("2026-07-28", "2025-11-25")

CONSTANTS: Final = {
    name: value
    for name, value in vars(methods).items()
    if name.isupper() and isinstance(value, str) and name != "TASKS_PREFIX"
}
EXTENSION_ONLY: Final = frozenset(
    {
        methods.TASKS_UPDATE,
        methods.TASKS,
        methods.SKILLS_LIST,
        methods.SKILLS_GET,
        methods.RESOURCES_DIRECTORY_READ,
    }
)
"""Names only the Tasks and Skills (SEP-2640) extensions declare (their schemas are not among
the copies)."""


def _method_consts(node: Any) -> Iterator[str]:
    """Every ``"method": {"const": ...}`` in a schema document, at any depth."""
    if isinstance(node, dict):
        method = node.get("properties", {}).get("method") if "properties" in node else None
        if isinstance(method, dict) and isinstance(method.get("const"), str):
            yield method["const"]
        for value in node.values():
            yield from _method_consts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _method_consts(value)


def declared(version: str) -> frozenset[str]:
    schema = json.loads((SPEC / version / "schema.json").read_text(encoding="utf-8"))
    return frozenset(_method_consts(schema))


def constant_name(method: str) -> str:
    """The module's naming rule: upper snake case, ``notifications/`` dropped."""
    path = method.removeprefix("notifications/")
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", path).replace("/", "_").upper()


@pytest.mark.parametrize("version", SCHEMAS)
def test_every_method_the_schema_declares_is_a_constant(version: str) -> None:
    names = declared(version)
    assert len(names) > 20  # the walk found the schema's methods, not nothing
    missing = names - set(CONSTANTS.values())
    assert not missing, f"{version} declares methods protocol.methods lacks: {sorted(missing)}"


def test_every_constant_is_declared_by_a_schema_or_an_extension() -> None:
    known = frozenset().union(*(declared(version) for version in SCHEMAS)) | EXTENSION_ONLY
    assert set(CONSTANTS.values()) <= known
    assert not EXTENSION_ONLY & declared("2026-07-28")  # still extension-only


@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_a_constant_is_named_by_the_rule(name: str) -> None:
    assert constant_name(CONSTANTS[name]) == name


def test_the_rule_reads_camel_case_and_drops_the_notifications_prefix() -> None:
    assert constant_name("sampling/createMessage") == "SAMPLING_CREATE_MESSAGE"
    assert constant_name("notifications/tools/list_changed") == "TOOLS_LIST_CHANGED"
    assert constant_name("logging/setLevel") == "LOGGING_SET_LEVEL"


def test_the_sets_split_requests_from_notifications_and_hold_every_constant() -> None:
    values = set(CONSTANTS.values())
    assert methods.REQUESTS | methods.NOTIFICATIONS == values
    assert not methods.REQUESTS & methods.NOTIFICATIONS
    assert all(name.startswith("notifications/") for name in methods.NOTIFICATIONS)
    assert not any(name.startswith("notifications/") for name in methods.REQUESTS)
    assert methods.SERVER_REQUESTS <= methods.REQUESTS
    assert methods.LEGACY_ONLY <= methods.REQUESTS
    assert len(values) == len(CONSTANTS)  # no name spelled twice


def test_the_server_requests_are_the_nested_input_requests() -> None:
    assert methods.SERVER_REQUESTS == {"elicitation/create", "sampling/createMessage", "roots/list"}


def test_the_legacy_only_requests_are_those_2026_07_28_dropped() -> None:
    dropped = declared("2025-11-25") - declared("2026-07-28") - {methods.TASKS_RESULT}
    requests = {name for name in dropped if not name.startswith("notifications/")}
    assert requests - {methods.TASKS_GET, methods.TASKS_CANCEL, methods.TASKS_LIST} == set(
        methods.LEGACY_ONLY
    )


def test_every_task_request_has_the_tasks_prefix() -> None:
    tasks = {v for k, v in CONSTANTS.items() if k.startswith("TASKS_")} & methods.REQUESTS
    assert tasks == {"tasks/get", "tasks/update", "tasks/cancel", "tasks/result", "tasks/list"}
    assert all(name.startswith(methods.TASKS_PREFIX) for name in tasks)


def test_all_lists_every_constant_and_is_sorted() -> None:
    public = {name for name in vars(methods) if name.isupper()}
    assert set(methods.__all__) == public
    assert list(methods.__all__) == sorted(methods.__all__)


def _literals(path: Path) -> list[int]:
    """Lines of ``path`` holding a string constant that is exactly a method name."""
    names = methods.REQUESTS | methods.NOTIFICATIONS
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
    )


def test_no_method_name_literal_outside_protocol() -> None:
    src = ROOT / "src" / "genmcp"
    found = {
        path.relative_to(src).as_posix(): lines
        for path in sorted(src.rglob("*.py"))
        if "protocol" not in path.relative_to(src).parts and (lines := _literals(path))
    }
    assert not found, f"method names as literals (use genmcp.protocol.methods): {found}"

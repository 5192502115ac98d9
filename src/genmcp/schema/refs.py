"""Self-contained JSON Schema: local ``#/$defs/X`` references replaced by their definitions.

A pydantic model's JSON Schema keeps its nested models under ``$defs``; a tool listing
advertises it inlined, so clients need no reference resolver. Pure: imports no asyncio, no
web framework and nothing from genmcp.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["inline_refs"]


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace local ``#/$defs/X`` references by their definitions.

    Recursive definitions cannot be inlined; they keep their ``$ref`` and the
    needed ``$defs`` stay, so the result is still self-contained.
    """
    defs: dict[str, Any] = schema.get("$defs", {})
    kept: set[str] = set()

    def walk(node: Any, active: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(item, active) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in active or name not in defs:
                kept.add(name)
                return node
            target = walk(copy.deepcopy(defs[name]), (*active, name))
            siblings = {k: walk(v, active) for k, v in node.items() if k != "$ref"}
            return {**target, **siblings}
        return {k: walk(v, active) for k, v in node.items() if k != "$defs"}

    result: dict[str, Any] = walk(schema, ())
    if kept:
        result["$defs"] = {name: walk(defs[name], (name,)) for name in sorted(kept) if name in defs}
    return result

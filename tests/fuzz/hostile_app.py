"""A small genmcp app whose tool schemas are hostile but legal, served beside the example.

Owns: the tools (`SAFE`: bounded strings, numbers, arrays, a recursive `$ref`; `COSTLY`:
`multipleOf: 0.01`, `uniqueItems`, a backtracking `pattern`, a 24-level `oneOf` chain,
`unevaluatedProperties`), and `build_router()`. A COSTLY tool that the Suite refuses at
build time (issue 12 item 1 asks for that for backtracking patterns) is left out and named
in `REFUSED`, so the harness keeps running once the guard lands.
"""

from __future__ import annotations

import json
from typing import Any, Final

from genmcp import Result, Suite, Tool, call_tool_result, mcp_router

REFUSED: list[str] = []


class Echo(Tool, name="echo_base"):
    async def call(self, request: Any, channel: Any, arg: Any) -> Result:
        text = json.dumps(request.arguments)
        return Result(call_tool_result(text=f"{len(text)} bytes of arguments"))


def tool(name: str, schema: dict[str, Any]) -> type[Tool]:
    return type(name, (Echo,), {}, name=name, input_schema={"type": "object", **schema})


def _chain(depth: int) -> dict[str, Any]:
    """`oneOf` levels that each try the level below twice, via `$ref`: 2**depth checks."""
    defs: dict[str, Any] = {"l0": {"type": "object"}}
    for level in range(1, depth + 1):
        below = {"$ref": f"#/$defs/l{level - 1}"}
        defs[f"l{level}"] = {"oneOf": [below, {"not": below}]}
    return {"$defs": defs, "properties": {"v": {"$ref": f"#/$defs/l{depth}"}}}


SAFE: Final = (
    tool(
        "bounded",
        {
            "properties": {
                "s": {"type": "string", "maxLength": 10},
                "n": {"type": "integer", "minimum": 0, "maximum": 10},
                "x": {"type": "number", "exclusiveMaximum": 1e300},
                "e": {"enum": ["a", 1, None, {"k": [1]}]},
                "a": {"type": "array", "maxItems": 5, "items": {"type": "integer"}},
                "o": {"type": "object", "maxProperties": 3},
                "p": {"type": "string", "pattern": "^[a-z]{1,8}$"},
                "f": {"type": "string", "format": "email"},
            },
            "additionalProperties": False,
        },
    ),
    tool(
        "tree",
        {
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                    },
                }
            },
            "properties": {"root": {"$ref": "#/$defs/node"}},
        },
    ),
)
COSTLY: Final = (
    tool("fractions", {"properties": {"x": {"multipleOf": 0.01}, "y": {"multipleOf": 1e-300}}}),
    tool("unique", {"properties": {"items": {"type": "array", "uniqueItems": True}}}),
    tool("backtrack", {"properties": {"s": {"type": "string", "pattern": "(?=a)a*a*a*a*a*a*b"}}}),
    tool("one_of_chain", _chain(24)),
    tool(
        "unevaluated",
        {"properties": {"a": {"type": "integer"}}, "unevaluatedProperties": {"type": "integer"}},
    ),
)


def build_suite() -> Suite:
    """The Suite of SAFE and the COSTLY tools it accepts."""
    accepted = list(SAFE)
    for candidate in COSTLY:
        try:
            Suite(server_name="probe", server_version="0", tools=[candidate])
        except Exception as exc:  # the build-time guard of issue 12 item 1
            REFUSED.append(f"{candidate.__name__}: {exc}")
        else:
            accepted.append(candidate)
    return Suite(server_name="hostile", server_version="0", tools=accepted)


def build_router() -> Any:
    return mcp_router(suite=build_suite())

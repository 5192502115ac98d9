"""Per-call cost of validating the common tool schemas, as the worker does it.

    .venv/bin/python bench/validation/common.py

Prints one Markdown row per schema: the microseconds one validation takes on the event loop
(the call the worker makes before ``call``), best of several rounds of 2,000 calls, so a
change to the validation path can be checked for slowdowns on the shapes most tools use.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from genmcp.schema import compile_schema

try:  # the off-loop path, where it exists
    from genmcp.schema.offload import validate_off_loop
except ImportError:  # before it: the worker validated inline
    validate_off_loop = None


class Person(BaseModel):
    name: str
    age: int
    tags: list[str] = []


CASES: list[tuple[str, Any, Any]] = [
    (
        "3 typed properties (fast path)",
        {
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "days": {"type": "integer", "minimum": 1, "maximum": 16},
                "units": {"type": "string", "enum": ["metric", "imperial"]},
            },
            "required": ["city"],
            "additionalProperties": False,
        },
        {"city": "Paris", "days": 3, "units": "metric"},
    ),
    (
        "pattern + format (fast path)",
        {
            "type": "object",
            "properties": {
                "user": {"type": "string", "pattern": "^[a-z0-9_-]{3,16}$"},
                "email": {"type": "string", "format": "email"},
            },
        },
        {"user": "user_name", "email": "a@example.com"},
    ),
    (
        "anyOf + multipleOf (full validator)",
        {
            "type": "object",
            "properties": {
                "id": {"anyOf": [{"type": "integer", "multipleOf": 1}, {"type": "string"}]},
                "items": {"type": "array", "items": {"type": "number"}, "uniqueItems": True},
            },
        },
        {"id": 12, "items": [1, 2.5, 3]},
    ),
    ("pydantic model", Person, {"name": "Ada", "age": 36, "tags": ["x"]}),
]


async def per_call(check: Callable[[], Awaitable[Any]], calls: int = 2000, rounds: int = 7) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            await check()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


async def main() -> None:
    print("| schema | µs per validation |")
    print("| --- | --- |")
    for label, schema, arguments in CASES:
        validator = compile_schema(schema, owner="bench")

        async def inline(validator: Any = validator, arguments: Any = arguments) -> Any:
            return validator.validate(arguments)

        async def off_loop(validator: Any = validator, arguments: Any = arguments) -> Any:
            assert validate_off_loop is not None
            return await validate_off_loop(validator, arguments)

        check = inline if validate_off_loop is None else off_loop
        print(f"| {label} | {await per_call(check) * 1e6:.1f} |")


if __name__ == "__main__":
    asyncio.run(main())

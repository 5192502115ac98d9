"""Micro-benchmarks behind the hot-path notes in RESULTS.md: what one tools/call pays for
argument validation, JSON encoding and per-call bookkeeping, per candidate library.

    bash bench/setup.sh micro
    taskset -c 1 /tmp/genmcp-bench/venvs/micro/bin/python bench/micro.py

Prints a Markdown table of microseconds per operation (best of 5 repeats). Candidates that are
not installed are skipped. Every validator is first checked to accept ORDER_ARGS and to reject
a payload that breaks the schema, so a fast but wrong validator shows up as such.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import itertools
import json
import os
import secrets
import sys
import timeit
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "servers"))
import _common as C

ROWS: list[tuple[str, str, float, str]] = []


def measure(group: str, name: str, fn: Callable[[], Any], note: str = "") -> None:
    n = 200
    while timeit.timeit(fn, number=n) < 0.05 and n < 10**7:
        n *= 4
    best = min(timeit.repeat(fn, number=n, repeat=5)) / n
    ROWS.append((group, name, best * 1e6, note))


def broken_order() -> dict:
    bad = copy.deepcopy(C.ORDER_ARGS)
    bad["items"][1]["sku"] = "not-a-sku"
    bad["shipping"]["method"] = "teleport"
    return bad


def check(name: str, valid: Callable[[Any], bool]) -> str:
    ok_good = valid(C.ORDER_ARGS)
    ok_bad = not valid(broken_order())
    fmt_bad = copy.deepcopy(C.ORDER_ARGS)
    fmt_bad["customer"]["email"] = "not an email"
    ok_fmt = not valid(fmt_bad)
    if ok_good and ok_bad:
        return "" if ok_fmt else "accepts a bad email (no format check)"
    return f"WRONG: accepts valid={ok_good} rejects invalid={ok_bad}"


def validators() -> None:
    g = "validate create_order (valid, 5 items)"
    ga = "validate add {a:1,b:2}"
    try:
        import jsonschema

        cls = jsonschema.Draft202012Validator
        v = cls(C.ORDER_SCHEMA, format_checker=cls.FORMAT_CHECKER)
        va = cls(C.ADD_SCHEMA, format_checker=cls.FORMAT_CHECKER)
        note = check("jsonschema", v.is_valid)
        from importlib.metadata import version

        measure(
            g,
            f"jsonschema {version('jsonschema')} sorted(iter_errors) (genmcp fallback path)",
            lambda: sorted(v.iter_errors(C.ORDER_ARGS), key=str),
            note,
        )
        measure(g, "jsonschema is_valid", lambda: v.is_valid(C.ORDER_ARGS), note)
        measure(
            ga,
            "jsonschema sorted(iter_errors)",
            lambda: sorted(va.iter_errors({"a": 1, "b": 2}), key=str),
        )
    except ImportError:
        pass
    try:
        import fastjsonschema

        fv = fastjsonschema.compile(C.ORDER_SCHEMA)
        fa = fastjsonschema.compile(C.ADD_SCHEMA)

        def f_ok(x: Any) -> bool:
            try:
                fv(x)
                return True
            except fastjsonschema.JsonSchemaException:
                return False

        measure(
            g,
            "fastjsonschema (compiled to Python; drafts 4/6/7)",
            lambda: fv(C.ORDER_ARGS),
            check("fastjsonschema", f_ok),
        )
        measure(ga, "fastjsonschema", lambda: fa({"a": 1, "b": 2}))
    except ImportError:
        pass
    try:
        import jsonschema_rs

        rv = jsonschema_rs.validator_for(C.ORDER_SCHEMA, validate_formats=True)
        ra = jsonschema_rs.validator_for(C.ADD_SCHEMA, validate_formats=True)
        measure(
            g,
            "jsonschema-rs is_valid (Rust; 2020-12)",
            lambda: rv.is_valid(C.ORDER_ARGS),
            check("jsonschema-rs", rv.is_valid),
        )
        measure(ga, "jsonschema-rs is_valid", lambda: ra.is_valid({"a": 1, "b": 2}))
    except ImportError:
        pass
    try:
        from _order_models import Customer, Item, Shipping
        from pydantic import BaseModel, ConfigDict

        class Order(BaseModel):
            model_config = ConfigDict(extra="forbid")
            customer: Customer
            items: list[Item]
            shipping: Shipping
            coupon: str | None = None
            notes: str | None = None
            metadata: dict[str, str] | None = None

        def p_ok(x: Any) -> bool:
            try:
                Order.model_validate(x)
                return True
            except Exception:
                return False

        measure(
            g,
            "pydantic model_validate (what MCPServer/FastMCP pay)",
            lambda: Order.model_validate(C.ORDER_ARGS),
            check("pydantic", p_ok),
        )
    except ImportError:
        pass


def encoders() -> None:
    result = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "content": [{"type": "text", "text": "3"}],
            "resultType": "complete",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "bench", "version": "1.0"}},
        },
    }
    tools = [
        {"name": "create_order", "description": C.ORDER_DESCRIPTION, "inputSchema": C.ORDER_SCHEMA}
    ]
    tools += [
        {
            "name": C.extra_name(i),
            "description": C.extra_description(i),
            "inputSchema": C.EXTRA_SCHEMA,
        }
        for i in range(1000)
    ]
    listing = {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools, "resultType": "complete"}}
    request = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": "create_order",
                "arguments": C.ORDER_ARGS,
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
            },
        }
    ).encode()
    compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    measure("encode add result", "json.dumps(...).encode()", lambda: json.dumps(result).encode())
    measure(
        "encode add result",
        "JSONEncoder(compact).encode(...).encode()",
        lambda: compact(result).encode(),
    )
    measure("encode tools/list, 1,001 tools", "json compact", lambda: compact(listing).encode())
    measure("decode tools/call create_order body", "json.loads", lambda: json.loads(request))
    try:
        import orjson

        measure("encode add result", "orjson.dumps", lambda: orjson.dumps(result))
        measure("encode tools/list, 1,001 tools", "orjson.dumps", lambda: orjson.dumps(listing))
        measure(
            "decode tools/call create_order body", "orjson.loads", lambda: orjson.loads(request)
        )
    except ImportError:
        pass
    measure("encode tools/list, 1,001 tools", "cached bytes (no work)", lambda: None)


def bookkeeping() -> None:
    def digest(*parts: Any) -> str:  # genmcp.sealing.digest's recipe
        canonical = json.dumps(
            list(parts), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
        return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()

    g = "per-call bookkeeping"
    measure(
        g,
        "digest(name, create_order args, principal) (requestState binding)",
        lambda: digest("create_order", C.ORDER_ARGS, None),
    )
    measure(g, "digest(name, add args, principal)", lambda: digest("add", {"a": 1, "b": 2}, None))
    measure(g, "secrets.token_hex(8) (worker id)", lambda: secrets.token_hex(8))
    counter = itertools.count()
    measure(g, "next(counter) (alternative id)", lambda: next(counter))

    async def queues() -> None:
        measure(g, "asyncio.Queue(16) (mailbox)", lambda: asyncio.Queue(16))
        loop = asyncio.get_running_loop()

        async def nothing() -> None:
            return None

        async def spawn() -> None:
            await loop.create_task(nothing())

        async def inline() -> None:
            await nothing()

        n = 20000
        for name, fn in (
            ("create_task + await (worker task)", spawn),
            ("await coroutine inline", inline),
        ):
            best = float("inf")
            for _ in range(5):
                t0 = loop.time()
                for _ in range(n):
                    await fn()
                best = min(best, (loop.time() - t0) / n)
            ROWS.append((g, name, best * 1e6, ""))

    asyncio.run(queues())


def main() -> None:
    validators()
    encoders()
    bookkeeping()
    print(f"Python {sys.version.split()[0]}, pinned CPUs {sorted(os.sched_getaffinity(0))}\n")
    print("| what | how | us per op | note |\n|---|---|--:|---|")
    for group, name, us, note in ROWS:
        print(f"| {group} | {name} | {us:,.2f} | {note} |")


if __name__ == "__main__":
    main()

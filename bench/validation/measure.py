"""Measure argument validation and JSON decoding on hostile input, before and after hardening.

    .venv/bin/python bench/validation/measure.py            # ~2 min; prints Markdown
    .venv/bin/python bench/validation/measure.py --quick    # skips the slowest stock cases

"stock" is what genmcp did before: jsonschema's own keywords on stdlib ``re`` and
``json.loads``. "genmcp" is ``genmcp.schema.compile_schema`` and
``genmcp.protocol.jsonrpc.decode_json``. The optional ``regex`` module (``timeout=``) is
measured when installed. Times are the best of a few runs (``best``) or one run in a child
process killed at its deadline (``isolated``), so a catastrophic case cannot hang the script.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import jsonschema

from genmcp import schema as genmcp_schema
from genmcp.protocol.jsonrpc import EnvelopeError, decode_json
from genmcp.schema import InvalidArguments, compile_schema

ROWS: list[tuple[str, str, str]] = []


def best(fn: Callable[[], Any], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def paired(
    stock: Callable[[], Any], ours: Callable[[], Any], rounds: int = 9
) -> tuple[float, float]:
    """Best times of two functions run in alternation (so both see the same machine load)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for fn, bucket in ((stock, times[0]), (ours, times[1])):
            start = time.perf_counter()
            fn()
            bucket.append(time.perf_counter() - start)
    return min(times[0]), min(times[1])


def row_paired(
    case: str, stock: Callable[[], Any], ours: Callable[[], Any], *, per: int, rounds: int
) -> None:
    a, b = paired(stock, ours, rounds)
    row(case, fmt(a / per), fmt(b / per))


def _child(fn: Callable[[], Any], queue: Any) -> None:
    start = time.perf_counter()
    try:
        fn()
        outcome = "ok"
    except BaseException as exc:
        outcome = type(exc).__name__
    queue.put((time.perf_counter() - start, outcome))


def isolated(fn: Callable[[], Any], deadline: float) -> tuple[float | None, str]:
    """Run ``fn`` once in a child process; (seconds, outcome) or (None, "killed")."""
    queue: Any = multiprocessing.Queue()
    child = multiprocessing.Process(target=_child, args=(fn, queue))
    child.start()
    child.join(deadline)
    if child.is_alive():
        child.kill()
        child.join()
        return None, f"killed at {deadline:g} s"
    seconds, outcome = queue.get()
    return seconds, outcome


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def row(case: str, stock: str, ours: str) -> None:
    ROWS.append((case, stock, ours))
    print(f"  {case}: stock {stock} | genmcp {ours}", file=sys.stderr, flush=True)


def stock_validator(schema: dict[str, Any]) -> Any:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def ours(schema: dict[str, Any]) -> Callable[[Any], str]:
    validator = compile_schema(schema, owner="bench")

    def run(value: Any) -> str:
        try:
            validator.validate(value)
        except InvalidArguments:
            return "invalid"
        return "valid"

    return run


# -- cases (module level: the child processes pickle them by name) --------------------------


def stock_pattern(n: int) -> Callable[[], Any]:
    return _Call(stock_validator({"pattern": r"^(a|a)*$"}).is_valid, "a" * n + "!")


def stock_pattern_properties(n: int) -> Callable[[], Any]:
    schema = {"patternProperties": {r"^(a|a)*$": {}}, "additionalProperties": False}
    return _Call(stock_validator(schema).is_valid, {"a" * n + "!": 1})


def stock_format_regex(text: str) -> Callable[[], Any]:
    return _Call(stock_validator({"format": "regex"}).is_valid, text)


def stock_unique(items: list[Any]) -> Callable[[], Any]:
    return _Call(stock_validator({"uniqueItems": True}).is_valid, items)


class _Call:
    def __init__(self, fn: Callable[[Any], Any], arg: Any) -> None:
        self.fn, self.arg = fn, arg

    def __call__(self) -> Any:
        return self.fn(self.arg)


def regexes(quick: bool) -> None:
    print("## pattern / patternProperties", file=sys.stderr)
    for n in (16, 20, 22) if quick else (16, 20, 22, 24):
        seconds, _ = isolated(stock_pattern(n), 30)
        check = ours({"pattern": r"^(a|a)*$"})
        row(
            f"`pattern: ^(a|a)*$`, {n + 1}-char input",
            fmt(seconds),
            fmt(best(lambda n=n, check=check: check("a" * n + "!"))),
        )
    seconds, outcome = isolated(stock_pattern(27), 10)
    check = ours({"pattern": r"^(a|a)*$"})
    row(
        "`pattern: ^(a|a)*$`, 28-char input",
        f"{fmt(seconds)} ({outcome})",
        fmt(best(lambda: check("a" * 27 + "!"))),
    )
    big = "a" * (4 * 1024 * 1024) + "!"
    row("`pattern: ^(a|a)*$`, 4 MiB input", "-", fmt(best(lambda: check(big), 3)))
    seconds, outcome = isolated(stock_pattern_properties(24), 30)
    pp = ours({"patternProperties": {r"^(a|a)*$": {}}, "additionalProperties": False})
    row(
        "`patternProperties` + `additionalProperties: false`, 25-char key",
        f"{fmt(seconds)} ({outcome})",
        fmt(best(lambda: pp({"a" * 24 + "!": 1}))),
    )
    typical = {"type": "string", "pattern": r"^[a-z0-9_-]{3,16}$"}
    stock_typical, our_typical = stock_validator(typical), ours(typical)
    row_paired(
        "typical `^[a-z0-9_-]{3,16}$` on `user_name` (per validation)",
        lambda: [stock_typical.is_valid("user_name") for _ in range(1000)],
        lambda: [our_typical("user_name") for _ in range(1000)],
        per=1000,
        rounds=9,
    )
    try:
        import regex as regex_module  # type: ignore[import-untyped]
    except ImportError:
        return
    for n in (20, 27):
        start = time.perf_counter()
        try:
            regex_module.search(r"^(a|a)*$", "a" * n + "!", timeout=0.1)
            outcome = "ok"
        except TimeoutError:
            outcome = "TimeoutError"
        row(
            f"`regex` module, `timeout=0.1`, ^(a|a)*$ on {n + 1} chars",
            f"{fmt(time.perf_counter() - start)} ({outcome})",
            "-",
        )


def format_regex(quick: bool) -> None:
    print("## format: regex", file=sys.stderr)
    check = ours({"format": "regex"})
    for size in (10_000, 100_000) if quick else (10_000, 100_000, 1_000_000):
        seconds, outcome = isolated(stock_format_regex("a" * size), 60)
        row(
            f"`format: regex`, {size}-char literal",
            f"{fmt(seconds)} ({outcome})",
            fmt(best(lambda size=size: check("a" * size))),
        )
    seconds, outcome = isolated(stock_format_regex("(" * 500 + ")" * 500), 10)
    row(
        "`format: regex`, 500 nested groups + `\\1`",
        f"{fmt(seconds)} ({outcome})",
        fmt(best(lambda: check("(" * 480 + ")" * 480 + r"\1"))),
    )


def unique_items(quick: bool) -> None:
    print("## uniqueItems", file=sys.stderr)
    check = ours({"uniqueItems": True})
    for n in (1_000, 2_000, 4_000) if quick else (1_000, 2_000, 4_000, 8_000):
        items = [{"id": i} for i in range(n)]
        seconds, outcome = isolated(stock_unique(items), 60)
        row(
            f"`uniqueItems`, {n} distinct objects",
            f"{fmt(seconds)} ({outcome})",
            fmt(best(lambda items=items: check(items), 3)),
        )
    for n in (20_000, 100_000):
        items = [{"id": i} for i in range(n)]
        row(
            f"`uniqueItems`, {n} distinct objects",
            "-",
            fmt(best(lambda items=items: check(items), 3)),
        )
    mixed: list[Any] = [x for i in range(2_000) for x in (str(i), i)]
    seconds, outcome = isolated(stock_unique(mixed), 60)
    row(
        "`uniqueItems`, 4000 mixed strings and numbers",
        f"{fmt(seconds)} ({outcome})",
        fmt(best(lambda: check(mixed), 3)),
    )
    numbers = list(range(1_000_000))
    row(
        "`uniqueItems`, 1M integers",
        fmt(best(lambda: stock_unique(numbers)(), 1)),
        fmt(best(lambda: check(numbers), 1)),
    )


def budget() -> None:
    print("## arrays and the budget", file=sys.stderr)
    schema = {"type": "array", "items": {"type": "integer"}}
    stock = stock_validator(schema)
    items = [1] * 100_000
    per_item = best(lambda: stock.is_valid(items), 1) / len(items)
    row(
        "`items: {type: integer}` per item",
        fmt(per_item),
        fmt(best(lambda: ours(schema)(items), 1) / len(items)),
    )
    row(
        "`items: {type: integer}`, 2M items (4 MiB body)",
        f"~{fmt(per_item * 2_000_000)} (extrapolated)",
        fmt(best(lambda: ours(schema)([1] * 2_000_000), 1)) + " (refused at the budget)",
    )
    typical = {
        "type": "object",
        "properties": {
            "a": {"type": "number"},
            "b": {"type": "number"},
            "op": {"enum": ["+", "-"]},
        },
        "required": ["a", "b"],
    }
    stock_typical, our_typical = stock_validator(typical), ours(typical)
    args = {"a": 1, "b": 2.5, "op": "+"}
    row_paired(
        "typical 3-argument object (per validation)",
        lambda: [stock_typical.is_valid(args) for _ in range(1000)],
        lambda: [our_typical(args) for _ in range(1000)],
        per=1000,
        rounds=9,
    )


def decoding() -> None:
    print("## JSON decoding", file=sys.stderr)

    def outcome(fn: Callable[[], Any]) -> str:
        try:
            fn()
        except EnvelopeError as exc:
            return f"{exc.code} {exc.message}"
        except BaseException as exc:
            return type(exc).__name__
        return "ok"

    deep = ("[" * 100_000 + "]" * 100_000).encode()
    row(
        "100k nested arrays",
        f"{fmt(best(lambda: outcome(lambda: json.loads(deep))))} ({outcome(lambda: json.loads(deep))})",
        f"{fmt(best(lambda: outcome(lambda: decode_json(deep))))} ({outcome(lambda: decode_json(deep))})",
    )
    at_65 = ("[" * 65 + "]" * 65).encode()
    row("65 nested arrays", outcome(lambda: json.loads(at_65)), outcome(lambda: decode_json(at_65)))
    digits = ("9" * 100_000).encode()
    row(
        "100k-digit integer",
        f"{fmt(best(lambda: outcome(lambda: json.loads(digits))))} ({outcome(lambda: json.loads(digits))})",
        f"{fmt(best(lambda: outcome(lambda: decode_json(digits))))} ({outcome(lambda: decode_json(digits))})",
    )
    for token in (b"[1e400]", b"[NaN]"):
        row(
            f"`{token.decode()}`",
            repr(json.loads(token)),
            outcome(lambda token=token: decode_json(token)),
        )
    typical = (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1.5,'
        b'"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        b'"io.modelcontextprotocol/clientCapabilities":{},'
        b'"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}'
    )
    row_paired(
        f"typical tools/call body ({len(typical)} B)",
        lambda: [json.loads(typical) for _ in range(10_000)],
        lambda: [decode_json(typical) for _ in range(10_000)],
        per=10_000,
        rounds=9,
    )
    bracketed = json.dumps({"a": {"b": [[{"c": [i, [i]]} for i in range(40)]]}}).encode()
    row_paired(
        f"body with 120 brackets, depth 7 ({len(bracketed)} B: one walk)",
        lambda: [json.loads(bracketed) for _ in range(1000)],
        lambda: [decode_json(bracketed) for _ in range(1000)],
        per=1000,
        rounds=9,
    )
    flat = ("[" + ",".join(["[]"] * 1_300_000) + "]").encode()
    row_paired(
        f"1.3M empty arrays ({len(flat) / 2**20:.1f} MiB: the worst walk)",
        lambda: json.loads(flat),
        lambda: decode_json(flat),
        per=1,
        rounds=3,
    )
    floats = ("[" + ",".join(["0.5"] * 1_000_000) + "]").encode()
    row_paired(
        f"1M floats ({len(floats) / 2**20:.1f} MiB: range check on each)",
        lambda: json.loads(floats),
        lambda: decode_json(floats),
        per=1,
        rounds=3,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the slowest stock cases")
    sections = {
        "regex": lambda: regexes(options.quick),
        "format": lambda: format_regex(options.quick),
        "unique": lambda: unique_items(options.quick),
        "budget": budget,
        "decode": decoding,
    }
    parser.add_argument("--only", choices=sorted(sections), action="append", help="sections to run")
    options = parser.parse_args()
    for name, run in sections.items():
        if not options.only or name in options.only:
            run()
    print(
        f"Python {sys.version.split()[0]}, jsonschema {version('jsonschema')}, google-re2 {version('google-re2')}, budget {genmcp_schema.VALIDATION_BUDGET_S} s\n"
    )
    print("| case | stock (jsonschema + re / json.loads) | genmcp |")
    print("| --- | --- | --- |")
    for case, stock, mine in ROWS:
        print(f"| {case} | {stock} | {mine} |")


if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    re.purge()
    main()

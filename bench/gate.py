"""The instruction-count regression gate (issue 50): instructions per in-process request of
genmcp under valgrind's callgrind, against the committed baseline ``bench/gate_baseline.json``.

Three requests are counted, all driven as ASGI calls with no sockets (bench/inproc.py's app,
bench/servers/genmcp_server.py, with 200 extra tools):

- ``call_2026``: a 2026-07-28 (stateless) ``tools/call add``;
- ``call_2025``: the same call in a 2025-11-25 session (``Mcp-Session-Id``, the session path);
- ``list_page``: a 2026-07-28 ``tools/list`` second page (100 tools, a cursor decoded).

Instruction counts do not move with the machine's load, as wall-clock and CPU time do, so the
gate can run on a shared CI machine. One valgrind process does everything: start-up runs with
instrumentation off (``--instr-atstart=no``, then ``vgdb ... instrumentation on``), each
request is warmed up, then counted over a window of ``n`` and one of ``2n`` requests (a
loop turn before each dump, so what a window's requests left to the loop, such as a call's task
ending on 3.11, is counted with them);
callgrind dumps its counters at every ``os.getppid()`` (``--dump-before=getppid``), so a
window's cost is one dump and (cost(2n) - cost(n)) / n is one request's, whatever a window's
fixed cost. ``PYTHONHASHSEED`` is fixed and the bytecode compiled first.

    python bench/gate.py                 # check: exit 1 when a figure is > 3 % above baseline
    python bench/gate.py --runs 5        # the spread over 5 valgrind runs (min is gated)
    python bench/gate.py --write         # re-baseline: write bench/gate_baseline.json

``make bench-gate`` checks, ``make bench-gate-baseline`` re-baselines (commit the file, and
say in the commit why the new cost is worth it). The baseline records the interpreter and the
web stack's versions: counts on another Python or FastAPI/Starlette/pydantic differ, and the
gate says so when they do not match.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BASELINE = HERE / "gate_baseline.json"
TOLERANCE = 0.03
"""A figure more than this fraction above its baseline fails the gate."""
METRICS = ("call_2026", "call_2025", "list_page")
WINDOW = {"call_2026": 60, "call_2025": 60, "list_page": 20}
"""Requests in a metric's first window (the second holds twice as many)."""
WARMUP = 60
EXTRA_TOOLS = 200
STACK = ("fastapi", "starlette", "pydantic", "pydantic-core", "orjson", "anyio")
"""The packages whose versions the baseline records beside the interpreter's."""


def environment() -> dict[str, str]:
    """What the counts depend on besides genmcp: the interpreter and the web stack."""
    env = {"python": platform.python_version(), "implementation": platform.python_implementation(),
           "machine": platform.machine()}
    for name in STACK:
        try:
            env[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            env[name] = "absent"
    return env


# ---------------------------------------------------------------- inside valgrind


def marker() -> None:
    """Callgrind dumps (and zeroes) its counters on entering getppid (--dump-before)."""
    os.getppid()


async def measure(app: Any, scale: int) -> list[str]:
    """Warm each request up, then mark a window of n and one of 2n; return the order."""
    import inproc

    modern_body, modern_headers = inproc.request_bytes()
    legacy_body, legacy_headers = await inproc.legacy_request(app)
    list_body, list_headers = await list_request(app)
    requests = {"call_2026": (modern_body, modern_headers, b'"text":"3"'),
                "call_2025": (legacy_body, legacy_headers, b'"text":"3"'),
                "list_page": (list_body, list_headers, b'"tool_0195"')}
    for name, (body, headers, expect) in requests.items():
        answer = await inproc.one_call(app, body, headers)
        if expect not in answer.replace(b" ", b""):
            raise SystemExit(f"gate: unexpected answer to {name}: {answer[:300]!r}")
    for body, headers, _ in requests.values():
        for _ in range(WARMUP):
            await inproc.one_call(app, body, headers)
    instrumentation("on")
    order: list[str] = []
    for name in METRICS:
        body, headers, _ = requests[name]
        for count in (WINDOW[name] * scale, 2 * WINDOW[name] * scale):
            await asyncio.sleep(0)  # what the last window's requests left runs before its dump
            gc.collect()
            marker()
            for _ in range(count):
                await inproc.one_call(app, body, headers)
            order.append(name)
    await asyncio.sleep(0)
    marker()
    return order


async def list_request(app: Any) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """A 2026-07-28 tools/list for the second page (the first page's nextCursor)."""
    import inproc

    meta = {"io.modelcontextprotocol/protocolVersion": inproc.MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "genmcp-gate", "version": "1.0"}}
    extra = ((b"mcp-protocol-version", inproc.MODERN.encode()), (b"mcp-method", b"tools/list"))

    def message(params: dict[str, Any]) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                           "params": {**params, "_meta": meta}}).encode()

    first = message({})
    answer = json.loads(await inproc.one_call(app, first, inproc.headers_of(first, *extra)))
    body = message({"cursor": answer["result"]["nextCursor"]})
    return body, inproc.headers_of(body, *extra)


def instrumentation(state: str) -> None:
    """Switch callgrind's instrumentation through vgdb. This process keeps running until vgdb
    is done: valgrind reads vgdb's command while its guest runs, so vgdb never needs ptrace
    (``--max-invoke-ms=0``), which a CI machine may forbid (Yama's ptrace_scope)."""
    command = ["vgdb", "--max-invoke-ms=0", f"--pid={os.getpid()}", "instrumentation", state]
    vgdb = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while vgdb.poll() is None:
        sum(range(1000))  # guest code: valgrind polls for vgdb's command as it runs
        if time.monotonic() > deadline:
            vgdb.kill()
            raise SystemExit("gate: vgdb did not answer in 120 s")
    _, err = vgdb.communicate()
    if vgdb.returncode != 0:
        raise SystemExit(f"gate: vgdb failed ({vgdb.returncode}): {err.strip()}")


def inner(scale: int, order_file: str) -> None:
    """The measured process (under valgrind): the app, its lifespan, the windows."""
    sys.path.insert(0, str(HERE))
    os.environ["EXTRA_TOOLS"] = str(EXTRA_TOOLS)
    import inproc

    app = inproc.load_app(None)
    order: list[str] = []

    async def body() -> None:
        order.extend(await measure(app, scale))

    asyncio.run(inproc.lifespan(app, body))
    Path(order_file).write_text(json.dumps(order))


# ---------------------------------------------------------------- outside


def one_run(python: str, scale: int) -> dict[str, float]:
    """One valgrind run: instructions per request of each metric."""
    if shutil.which("valgrind") is None or shutil.which("vgdb") is None:
        raise SystemExit("gate: valgrind is not installed (apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="genmcp-gate-") as out:
        order_file = os.path.join(out, "order.json")
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
        env.pop("PYTHONMALLOC", None)
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                   "--dump-before=getppid", f"--callgrind-out-file={out}/cg",
                   python, str(HERE / "gate.py"), "--inner", str(scale), order_file]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"gate: the measured run failed:\n{done.stderr[-3000:]}")
        order: list[str] = json.loads(Path(order_file).read_text())
        dumps = sorted((p for p in Path(out).glob("cg.*") if p.suffix[1:].isdigit()),
                       key=lambda p: int(p.suffix[1:]))
        costs = [totals(p) for p in dumps]
    # the first dump is instrumentation-on -> first marker; then one per window
    windows = costs[1:1 + len(order)]
    if len(windows) != len(order):
        raise SystemExit(f"gate: {len(costs)} callgrind dumps for {len(order)} windows")
    figures: dict[str, float] = {}
    for i, name in enumerate(METRICS):
        low, high = windows[2 * i], windows[2 * i + 1]
        figures[name] = (high - low) / (WINDOW[name] * scale)
    return figures


def totals(path: Path) -> int:
    for line in path.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise SystemExit(f"gate: no totals in {path}")


def compile_tree(python: str) -> None:
    """Bytecode first, so no run compiles (the counted windows never do, start-up gets shorter)."""
    targets = [str(HERE)] + [p for p in sys.path if p.endswith("src")]
    subprocess.run([python, "-m", "compileall", "-q", str(ROOT / "src"), *targets],
                   capture_output=True, check=False)


def report(runs: list[dict[str, float]], baseline: dict[str, Any] | None) -> bool:
    """Print the figures against the baseline; True when none is above tolerance."""
    ok = True
    base = (baseline or {}).get("instructions", {})
    print(f"{'request':<10} {'baseline':>10} {'now (min)':>10} {'ratio':>7}  spread over {len(runs)} run(s)")
    for name in METRICS:
        values = [run[name] for run in runs]
        now = min(values)
        spread = (max(values) - now) / now if now else 0.0
        ref = base.get(name)
        ratio = now / ref if ref else float("nan")
        verdict = ""
        if ref and ratio > 1 + TOLERANCE:
            ok = False
            verdict = f"  FAIL: {100 * (ratio - 1):.1f} % above baseline (limit {100 * TOLERANCE:.0f} %)"
        elif ref and ratio < 1 - TOLERANCE:
            verdict = "  (cheaper: re-baseline to keep the gain)"
        print(f"{name:<10} {ref or 0:>10,.0f} {now:>10,.0f} {ratio:>7.3f}  {100 * spread:.3f} %{verdict}")
    return ok


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--inner":
        inner(int(sys.argv[2]), sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="valgrind runs (the minimum is gated)")
    parser.add_argument("--scale", type=int, default=1, help="multiply every window's requests")
    parser.add_argument("--write", action="store_true", help="write the baseline file")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to measure")
    args = parser.parse_args()
    started = time.monotonic()
    compile_tree(args.python)
    runs = [one_run(args.python, args.scale) for _ in range(args.runs)]
    env = json.loads(subprocess.run(
        [args.python, "-c", "import json, sys; sys.path.insert(0, sys.argv[1]); import gate; "
         "print(json.dumps(gate.environment()))", str(HERE)],
        capture_output=True, text=True, check=True).stdout)
    if args.write:
        data = {"instructions": {name: round(min(r[name] for r in runs)) for name in METRICS},
                "environment": env, "tolerance": TOLERANCE,
                "how": "make bench-gate-baseline (python bench/gate.py --write --runs 3)"}
        BASELINE.write_text(json.dumps(data, indent=2) + "\n")
        report(runs, data)
        print(f"gate: wrote {BASELINE.relative_to(ROOT)} ({time.monotonic() - started:.0f} s)")
        return
    baseline = json.loads(BASELINE.read_text()) if BASELINE.exists() else None
    if baseline is None:
        raise SystemExit(f"gate: no baseline at {BASELINE}; make bench-gate-baseline writes one")
    differs = {k: (baseline["environment"].get(k), v) for k, v in env.items()
               if baseline["environment"].get(k) != v}
    ok = report(runs, baseline)
    print(f"gate: {time.monotonic() - started:.0f} s")
    if differs:
        print("gate: the baseline was taken on another stack, so counts may differ for that reason: "
              + ", ".join(f"{k} {a} -> {b}" for k, (a, b) in differs.items()))
    if not ok:
        print("gate: instructions per request rose more than 3 % above bench/gate_baseline.json.\n"
              "  Find the cause: bash bench/inproc_instructions.sh . /tmp/base (a worktree of main),\n"
              "  or bench/inproc.py --profile. If the cost is worth it, re-baseline with\n"
              "  `make bench-gate-baseline` and commit bench/gate_baseline.json saying why\n"
              "  (docs/guides/performance.md, \"The instruction gate\").")
        raise SystemExit(1)


if __name__ == "__main__":
    main()

"""tools/call add at c=16 with wrk: no middleware, 3 middlewares, OTel API only, OTel SDK.

    .venv/bin/python bench/otel_wrk.py [--duration 10] [--rounds 3] [--conc 16]

Same run, interleaved rounds (every variant once per round, a fresh server each time),
the server pinned to CPU 0 and wrk to CPU 1 (taskset); the median round per variant.
Runs the servers with this interpreter (bench/servers/genmcp_observed.py), so the worktree's
genmcp and the OpenTelemetry SDK are the ones measured.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from driver import load_env, run_wrk  # noqa: E402

VARIANTS = ("bare", "three", "otel_api", "otel_sdk")
PORT = 8107


def start(variant: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "VARIANT": variant, "PORT": str(PORT)}
    server = subprocess.Popen(
        ["taskset", "-c", "0", sys.executable, str(BENCH / "servers" / "genmcp_observed.py")],
        env=env, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(200):
        try:
            http.client.HTTPConnection("127.0.0.1", PORT, timeout=1).request("GET", "/mcp")
            return server
        except OSError:
            time.sleep(0.05)
    server.kill()
    raise RuntimeError(f"{variant}: the server did not start")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--conc", type=int, default=16)
    o = parser.parse_args()
    results: dict[str, list[dict]] = {v: [] for v in VARIANTS}
    for round_ in range(o.rounds):
        for variant in VARIANTS:
            server = start(variant)
            try:
                run_wrk(PORT, o.conc, 2, "1", load_env("modern"))  # warm-up
                result = run_wrk(PORT, o.conc, o.duration, "1", load_env("modern"))
            finally:
                server.terminate()
                server.wait(10)
            assert result["errors"] == 0 and result["non200"] == 0, result
            results[variant].append(result)
            print(f"round {round_ + 1} {variant}: {result['rps']:.0f} req/s "
                  f"p50 {result['p50_ms']:.2f} ms p99 {result['p99_ms']:.2f} ms", flush=True)  # fmt: skip
    base = statistics.median(r["rps"] for r in results["bare"])
    print("\n| variant | req/s (median) | vs bare | p50 ms | p99 ms |\n|---|--:|--:|--:|--:|")
    for variant in VARIANTS:
        rps = statistics.median(r["rps"] for r in results[variant])
        p50 = statistics.median(r["p50_ms"] for r in results[variant])
        p99 = statistics.median(r["p99_ms"] for r in results[variant])
        print(f"| {variant} | {rps:.0f} | {(rps / base - 1) * 100:+.1f}% | {p50:.2f} | {p99:.2f} |")


if __name__ == "__main__":
    main()

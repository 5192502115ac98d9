#!/usr/bin/env python3
"""tools/call through a proxy over real HTTP (issue 31): genmcp's against FastMCP's, one run.

    python3 bench/proxy.py run [--rows direct,genmcp,fastmcp,...] [--runs 3] [--run-id ID]
    python3 bench/proxy.py report [RUN_DIR] [--out bench/RESULTS.md]
    make bench-proxy                                  # both (about 8 minutes)

One upstream, bench/servers/genmcp_upstream.py (genmcp_server.py's ``add`` tool, its HTTP
requests counted), pinned to --upstream-cpu; in front of it one proxy pinned to --proxy-cpu;
wrk (c=--conc, closed loop, on --client-cpu) sends ``tools/call add {"a":1,"b":2}`` to the
proxy in the era the row names. Rows:

  direct           wrk straight at the upstream (2026-07-28 stateless): the upstream's own cost
  genmcp           mcp_router(proxy=URL) (= ``genmcp proxy URL``), 2026-07-28 stateless
  genmcp_session   the same proxy driven over 2025 sessions (not in the default rows)
  genmcp_base      the genmcp proxy from the genmcp_base venv (before/after; not by default)
  fastmcp          FastMCP 4.1.6 create_proxy(URL), stateless_http, 2026-07-28 requests
  fastmcp_session  the same, stateful: 2025 sessions (initialize per wrk thread)
  fastmcp_reuse    FastMCPProxy over one connected Client (FastMCP's opt-in session reuse),
                   stateless_http, 2026-07-28 requests
  fastmcp_reuse_session   the same over 2025 sessions

Fresh upstream and proxy processes for every row and repetition; repetitions interleave the
rows; each figure's median over --runs is taken on its own. Per row and repetition: req/s,
p50/p99, errors; the proxy's and the upstream's CPU µs per call (from /proc, over the
measured phase); the upstream HTTP requests per outer call, and which JSON-RPC methods they
were; req/s per core of the proxy (1e6 / its CPU µs per call) and of the whole chain (1e6 /
(proxy + upstream µs)); the load average and the CPU of everything else while measuring.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import driver as D  # noqa: E402

UPSTREAM_PORT = 8110
BEGIN, END = "<!-- proxy: begin (bench/proxy.py report) -->", "<!-- proxy: end -->"
ANCHOR = "<!-- curves: begin"  # the proxy block goes before the cost curves

D.SERVERS.update(
    {
        "upstream": {"venv": "genmcp", "script": "genmcp_upstream.py", "port": UPSTREAM_PORT,
                     "label": "upstream (genmcp)"},
        "genmcp_proxy": {"venv": "genmcp", "script": "genmcp_proxy.py", "port": 8111,
                         "label": "genmcp proxy"},
        "genmcp_base_proxy": {"venv": "genmcp_base", "script": "genmcp_proxy.py", "port": 8113,
                              "label": "genmcp proxy (baseline)"},
        "fastmcp_proxy": {"venv": "fastmcp", "script": "fastmcp_proxy.py", "port": 8112,
                          "label": "FastMCP proxy"},
    }
)  # fmt: skip

# row -> (proxy server or None, its env, wrk mode, label)
ROWS: dict[str, tuple[str | None, dict[str, str], str, str]] = {
    "direct": (None, {}, "modern", "direct to the upstream (no proxy)"),
    "genmcp": ("genmcp_proxy", {}, "modern", "genmcp `mcp_router(proxy=URL)`, 2026-07-28"),
    "genmcp_session": ("genmcp_proxy", {}, "legacy", "genmcp proxy, 2025 sessions in front"),
    "genmcp_base": ("genmcp_base_proxy", {}, "modern", "genmcp proxy at the baseline commit"),
    "fastmcp": ("fastmcp_proxy", {"VARIANT": "fresh", "STATEFUL": "0"}, "modern",
                "FastMCP `create_proxy(URL)`, stateless_http, 2026-07-28"),
    "fastmcp_session": ("fastmcp_proxy", {"VARIANT": "fresh", "STATEFUL": "1"}, "legacy",
                        "FastMCP `create_proxy(URL)`, 2025 sessions"),
    "fastmcp_reuse": ("fastmcp_proxy", {"VARIANT": "reuse", "STATEFUL": "0"}, "modern",
                      "FastMCP proxy on one connected Client, stateless_http, 2026-07-28"),
    "fastmcp_reuse_session": ("fastmcp_proxy", {"VARIANT": "reuse", "STATEFUL": "1"}, "legacy",
                              "FastMCP proxy on one connected Client, 2025 sessions"),
}  # fmt: skip
DEFAULT_ROWS = ["direct", "genmcp", "fastmcp", "fastmcp_session", "fastmcp_reuse",
                "fastmcp_reuse_session"]  # fmt: skip


def counts() -> dict[str, dict[str, int]]:
    """The upstream's request counters (genmcp_upstream.py's ``/_count``)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{UPSTREAM_PORT}/_count", timeout=10) as r:
        found: dict[str, dict[str, int]] = json.loads(r.read())
    return found


def delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}


def loadavg() -> float:
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def settle(*servers: D.Server) -> float:
    return max(s.settle() for s in servers)


def sessions(port: int, conc: int) -> dict[str, str]:
    """2025 sessions, one per wrk thread (and a probe that the front offers them)."""
    pairs = [D.legacy_session(port) for _ in range(D.wrk_threads(conc))]
    ids = [sid for sid, _ in pairs if sid]
    if not ids:
        raise D.BenchError(f"port {port}: initialize gave no Mcp-Session-Id (stateless?)")
    return {"BENCH_SESSIONS": ",".join(ids), "BENCH_VERSION": pairs[0][1]}


def measure(row: str, o: argparse.Namespace, rep: int) -> dict[str, Any]:
    """One repetition of one row: fresh upstream and proxy, warm-up, then one measured phase."""
    proxy_name, proxy_env, mode, _label = ROWS[row]
    logs = o.out / "logs"
    upstream = D.Server("upstream", {}, o.upstream_cpu, logs, f"{row}__upstream__{rep}")
    started = [upstream]
    try:
        upstream.start()
        D.wait_ready(upstream.port)
        front = upstream
        if proxy_name is not None:
            env = {**proxy_env, "UPSTREAM_URL": f"http://127.0.0.1:{UPSTREAM_PORT}/mcp"}
            front = D.Server(proxy_name, env, o.proxy_cpu, logs, f"{row}__proxy__{rep}")
            started.append(front)
            front.start()
        if mode == "modern":
            D.wait_ready(front.port)
        settle(*started)
        load = D.load_env(mode, expect='"text":"3')
        extra = sessions(front.port, o.conc) if mode == "legacy" else {}
        if o.warmup > 0:
            D.run_wrk(front.port, o.conc, o.warmup, o.client_cpu, {**load, **extra})
            settle(*started)
        before = counts()
        cpu0 = {s.name: s.cpu_s() for s in started}
        busy0, kids0, t0, load0 = (
            D.machine_busy_s(),
            D.children_cpu_s(),
            time.monotonic(),
            loadavg(),
        )
        r = D.run_wrk(front.port, o.conc, o.duration, o.client_cpu, {**load, **extra})
        used = {s.name: s.cpu_s() - cpu0[s.name] for s in started}
        wall = time.monotonic() - t0
        foreign = D.machine_busy_s() - busy0 - sum(used.values()) - (D.children_cpu_s() - kids0)
        after = counts()
        calls = r["requests"] or 1
        http = delta(after["http"], before["http"])
        out: dict[str, Any] = {
            "rps": r["rps"], "requests": r["requests"], "p50_ms": r["p50_ms"],
            "p99_ms": r["p99_ms"], "errors": r["errors"],
            "upstream_cpu_us": used["upstream"] * 1e6 / calls,
            "upstream_http_per_call": sum(http.values()) / calls,
            "upstream_http": http,
            "upstream_rpc": delta(after["rpc"], before["rpc"]),
            "load1": (load0 + loadavg()) / 2,
            "foreign_cpu_pct": max(0.0, 100 * foreign / wall),
            "wrk_command": r["wrk_command"],
            "commands": [s.command for s in started],
        }  # fmt: skip
        if proxy_name is not None:
            out["proxy_cpu_us"] = used[front.name] * 1e6 / calls
            out["proxy_rps_per_core"] = 1e6 / out["proxy_cpu_us"]
            out["proxy_rss_mb"] = front.rss_mb()
        chain = out.get("proxy_cpu_us", 0.0) + out["upstream_cpu_us"]
        out["chain_rps_per_core"] = 1e6 / chain
        return out
    finally:
        for s in reversed(started):
            s.stop()


def cmd_run(o: argparse.Namespace) -> Path:
    D.raise_nofile()
    run_id = o.run_id or dt.datetime.now(dt.UTC).strftime("proxy-%Y%m%dT%H%M%SZ")
    o.out = Path(o.results) / run_id
    o.out.mkdir(parents=True, exist_ok=True)
    venvs = sorted({D.SERVERS[ROWS[r][0] or "upstream"]["venv"] for r in o.rows} | {"genmcp"})
    meta: dict[str, Any] = {
        "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "invocation": " ".join(["proxy.py", *sys.argv[1:]]),
        "machine": D.machine_info(),
        "genmcp_source": D.genmcp_source(),
        "versions": {v: D.venv_versions(v) for v in venvs},
        "settings": {k: getattr(o, k) for k in ("runs", "duration", "warmup", "conc",
                                                "proxy_cpu", "upstream_cpu", "client_cpu")},
        "rows": o.rows,
    }  # fmt: skip
    if "genmcp_base" in o.rows:
        meta["genmcp_source"] += f"; genmcp_base: {D.genmcp_source('genmcp_base')}"
    runs: dict[str, list[dict[str, Any]]] = {row: [] for row in o.rows}
    failed: dict[str, str] = {}
    for rep in range(1, o.runs + 1):
        for row in o.rows:
            if row in failed:
                continue
            try:
                r = measure(row, o, rep)
            except (D.BenchError, OSError) as exc:
                failed[row] = str(exc)[:800]
                print(f"[{row} {rep}/{o.runs}] FAILED: {failed[row]}", flush=True)
                continue
            runs[row].append(r)
            proxy = f"proxy {r['proxy_cpu_us']:,.0f} us/call, " if "proxy_cpu_us" in r else ""
            print(
                f"[{row} {rep}/{o.runs}] {r['rps']:,.0f} req/s p99 {r['p99_ms']:.1f} ms "
                f"err {r['errors']} | {proxy}upstream {r['upstream_cpu_us']:,.0f} us/call, "
                f"{r['upstream_http_per_call']:.2f} upstream requests/call {r['upstream_rpc']} "
                f"| load {r['load1']:.1f}",
                flush=True,
            )
    meta["finished"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    meta["failed"] = failed
    (o.out / "meta.json").write_text(json.dumps(meta, indent=2))
    (o.out / "runs.json").write_text(json.dumps(runs, indent=2))
    print(f"results: {o.out}")
    return o.out


# --------------------------------------------------------------------------- report
def med(runs: list[dict[str, Any]], key: str) -> float | None:
    found = [r[key] for r in runs if isinstance(r.get(key), int | float)]
    return statistics.median(found) if found else None


def per_call(runs: list[dict[str, Any]], field: str) -> str:
    """The median count per call of each upstream request kind, e.g. ``tools/call 1.00``."""
    keys = sorted({k for r in runs for k in r[field]})
    parts = []
    for k in keys:
        share = statistics.median(r[field].get(k, 0) / (r["requests"] or 1) for r in runs)
        if share >= 0.005:
            parts.append(f"{k} {share:.2f}")
    return ", ".join(parts) or "-"


def report_markdown(run_dir: Path) -> str:
    meta = json.loads((run_dir / "meta.json").read_text())
    runs: dict[str, list[dict[str, Any]]] = json.loads((run_dir / "runs.json").read_text())
    st, mach = meta["settings"], meta["machine"]
    loads = [r["load1"] for rs in runs.values() for r in rs]
    foreign = [r["foreign_cpu_pct"] for rs in runs.values() for r in rs]
    versions = []
    for venv, v in sorted(meta["versions"].items()):
        keep = ("genmcp", "fastmcp", "mcp", "httpx", "uvicorn", "starlette", "fastapi")
        versions.append(f"{venv}: " + ", ".join(f"{p} {v[p]}" for p in keep if p in v))
    L = [
        f"### Over real HTTP: genmcp's proxy against FastMCP's (`bench/proxy.py`, run `{run_dir.name}`)",
        "",
        f"{meta['started']} → {meta['finished']} (UTC); `python3 bench/{meta['invocation']}` "
        f"(`make bench-proxy`); genmcp: {meta['genmcp_source']}; {'; '.join(versions)}. "
        f"{mach.get('cpus')} vCPU ({mach.get('cpu_model', '?')}), {mach.get('wrk', 'wrk')}.",
        "",
        f"One upstream (`bench/servers/genmcp_upstream.py`: genmcp_server.py's `add`, its "
        f"requests counted) on CPU {st['upstream_cpu']}, the proxy on CPU {st['proxy_cpu']}, wrk "
        f"on CPU {st['client_cpu']} (beside the upstream); `tools/call add` at c={st['conc']}, "
        f"{st['warmup']:g} s warm-up then {st['duration']:g} s measured; fresh processes per row "
        f"and repetition, rows interleaved, median of {st['runs']} per figure. CPU from "
        f"`/proc/<pid>/stat` over the measured phase, divided by the calls wrk completed; "
        f"**per core** = 1e6 / CPU µs per call. Load average (1 min) while measuring "
        f"{min(loads):.1f} to {max(loads):.1f} (median {statistics.median(loads):.1f}); other "
        f"jobs' CPU {statistics.median(foreign):.0f} % median (of 200 %).",
        "",
        "| row | req/s | p50 / p99 ms | errors | proxy CPU µs/call | proxy req/s per core | upstream CPU µs/call | chain req/s per core | upstream requests per call | which |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for row, rs in runs.items():
        if not rs:
            continue
        label = ROWS[row][3]
        pc = med(rs, "proxy_cpu_us")
        L.append(
            f"| {label} | {D.fmt(med(rs, 'rps'))} | {D.fmt(med(rs, 'p50_ms'), 1)} / "
            f"{D.fmt(med(rs, 'p99_ms'), 1)} | {D.fmt(med(rs, 'errors'))} | {D.fmt(pc)} | "
            f"{D.fmt(med(rs, 'proxy_rps_per_core'))} | {D.fmt(med(rs, 'upstream_cpu_us'))} | "
            f"{D.fmt(med(rs, 'chain_rps_per_core'))} | "
            f"{D.fmt(med(rs, 'upstream_http_per_call'), 2)} | {per_call(rs, 'upstream_rpc')}"
            + (f"; HTTP {per_call(rs, 'upstream_http')}" if row != "direct" else "")
            + " |"
        )
    for row, why in (meta.get("failed") or {}).items():
        L.append(f"| {ROWS[row][3]} | failed: {why[:200]} | | | | | | | | |")
    L += ["", *verdict(runs, st["conc"]), ""]
    return "\n".join(L)


def verdict(runs: dict[str, list[dict[str, Any]]], conc: int) -> list[str]:
    gm = med(runs.get("genmcp", []), "proxy_rps_per_core")
    fast = {
        row: med(rs, "proxy_rps_per_core")
        for row, rs in runs.items()
        if row.startswith("fastmcp") and rs
    }
    out = []
    if gm and fast:
        best_row = max(fast, key=lambda k: fast[k] or 0)
        best = fast[best_row] or 0
        x = gm / best if best else float("inf")
        out.append(
            f'- Target "beats FastMCP\'s proxy >= 3x per core" (proxy process, genmcp 2026-07-28 '
            f"against FastMCP's best row, {ROWS[best_row][3]}): {x:.1f}x, "
            f"**{'met' if x >= 3 else 'missed'}**."
        )
        chain = {row: med(rs, "chain_rps_per_core") for row, rs in runs.items() if rs}
        best_chain = max((v or 0) for k, v in chain.items() if k.startswith("fastmcp"))
        if chain.get("genmcp") and best_chain:
            out.append(
                f"- Whole chain (proxy + upstream CPU per call): {chain['genmcp'] / best_chain:.1f}x "
                "FastMCP's best."
            )
    hop = med(runs.get("genmcp", []), "upstream_http_per_call")
    calls = med(runs.get("genmcp", []), "requests")
    if hop is not None and calls:
        # the upstream counts the requests it began in the measured phase, wrk the calls it
        # completed: up to --conc calls straddle each edge
        slack = conc / calls
        out.append(
            f'- Target "a remote mount costs <= 1 extra pooled HTTP request per call": '
            f"{hop:.3f} upstream requests per outer call (± {slack:.3f}: the {conc} calls in "
            f"flight at each edge of the phase), **{'met' if hop <= 1 + slack else 'missed'}**."
        )
    direct = med(runs.get("direct", []), "upstream_cpu_us")
    up = med(runs.get("genmcp", []), "upstream_cpu_us")
    if direct and up:
        out.append(
            f"- The upstream's CPU per call behind genmcp's proxy is {up / direct:.2f}x its cost "
            "when called directly."
        )
    return out


def cmd_report(o: argparse.Namespace) -> None:
    results = Path(o.results)
    run_dir = Path(o.run_dir) if o.run_dir else max(results.glob("proxy-*"), key=os.path.getmtime)
    block = f"{BEGIN}\n\n{report_markdown(run_dir)}\n{END}"
    if o.out == "-":
        print(block)
        return
    path = Path(o.out)
    text = path.read_text()
    if BEGIN in text:
        head, _, rest = text.partition(BEGIN)
        text = head + block + rest.partition(END)[2]
    elif ANCHOR in text:
        head, _, rest = text.partition(ANCHOR)
        text = head + block + "\n" + ANCHOR + rest
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)
    print(f"wrote {path} from {run_dir}")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--rows", type=D.csv(str), default=DEFAULT_ROWS)
    r.add_argument("--runs", type=int, default=3)
    r.add_argument("--duration", type=float, default=10.0)
    r.add_argument("--warmup", type=float, default=3.0)
    r.add_argument("--conc", type=int, default=16)
    r.add_argument("--proxy-cpu", default="0")
    r.add_argument("--upstream-cpu", default="1")
    r.add_argument("--client-cpu", default="1")
    r.add_argument("--results", default=str(BENCH / "results"))
    r.add_argument("--run-id", default=None)
    rp = sub.add_parser("report")
    rp.add_argument("run_dir", nargs="?")
    rp.add_argument("--results", default=str(BENCH / "results"))
    rp.add_argument("--out", default=str(BENCH / "RESULTS.md"), help="'-': print it")
    o = ap.parse_args()
    if o.cmd == "run":
        unknown = [row for row in o.rows if row not in ROWS]
        if unknown:
            ap.error(f"unknown rows {unknown}; known: {', '.join(ROWS)}")
        cmd_run(o)
    else:
        cmd_report(o)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Score a run of the MCP conformance suite from the checks.json files it wrote.

Used by scripts/conformance.sh; standard library only.

    conformance_score.py select SELECTION_FILE
        Print every server scenario named in the output of `conformance list ...`
        (scored and not scored), one per line.

    conformance_score.py score [--only "a b"] RESULTS_DIR REV [REV ...]
        Read RESULTS_DIR/REV/{selection.txt,harness.rc,server-<scenario>-<timestamp>/checks.json},
        print a per-scenario table per revision and, last, "conformance: P passed, F failed".
        Exit 0 only if no scored scenario failed and at least one passed.

Scenarios named in RESULTS_DIR/REV/forced.txt (extension scenarios no requirement set lists,
which conformance.sh runs with --force: the Skills extension's sep-2640-*) are scored too.

A scenario fails when any of its checks has status FAILURE, or when it was expected but
left no readable checks.json. Scenarios a requirement set runs but does not score (its
"Run and reported, but never scored" block) are shown and never change the result, except
the extension scenarios named in SCORED_EXTENSIONS (tasks-*) and the scenarios in STRICT
(server-sse-polling), which are scored. A STRICT scenario reports what a server lacks as
warnings or info: it fails unless each of its named checks is there with SUCCESS.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

# server-<scenario>-2026-11-29T22-21-36-952Z
RUN_DIR = re.compile(r"^server-(?P<name>.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$")
SCORED_ITEM = re.compile(r"^  - (?P<name>\S+)")
UNSCORED_GROUP = re.compile(r"^  (?P<reason>\S.*?) \(\d+\):\s*$")
UNSCORED_ITEM = re.compile(r"^    - (?P<name>\S+) \[(?P<side>[a-z]+)\]")
SCORED_EXTENSIONS = ("tasks-",)
"""Extension scenarios the suite runs unscored that we score anyway: genmcp serves the Tasks
extension, so a failing tasks-* scenario fails the run."""
STRICT = {
    "server-sse-polling": (
        "server-sse-priming-event",
        "server-sse-retry-field",
        "server-sse-disconnect-resume",
    ),
}
"""Pending scenarios we score, and the checks each must pass: server-sse-polling (SEP-1699)
only warns (or informs) when a server sends no priming event, no retry: field, or does not
close the stream of test_reconnection (examples/everything_server.py) and resume it after
Last-Event-ID; genmcp does all three."""


@dataclass
class Selection:
    scored: list[str] = field(default_factory=list)
    unscored: dict[str, str] = field(default_factory=dict)  # scenario -> reason

    def all(self) -> list[str]:
        return self.scored + [s for s in self.unscored if s not in self.scored]


def parse_selection(path: Path) -> Selection:
    """Parse `list --requirements REV` or `list --server --spec-version REV` output."""
    sel = Selection()
    section = None
    reason = ""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return sel
    for line in lines:
        if line.startswith("Server scenarios"):
            section = "server"
        elif line.startswith("Client scenarios") or line.startswith("Authorization"):
            section = "other"
        elif line.startswith("Run and reported, but never scored"):
            section = "unscored"
        elif section == "server" and (m := SCORED_ITEM.match(line)):
            sel.scored.append(m["name"])
        elif section == "unscored" and (m := UNSCORED_GROUP.match(line)):
            reason = m["reason"]
        elif section == "unscored" and (m := UNSCORED_ITEM.match(line)):
            if m["side"] != "server":
                continue
            if m["name"].startswith(SCORED_EXTENSIONS) or m["name"] in STRICT:
                sel.scored.append(m["name"])
            else:
                sel.unscored[m["name"]] = reason
    forced = path.with_name("forced.txt")
    if forced.is_file():
        for name in forced.read_text(encoding="utf-8").split():
            if name not in sel.scored:
                sel.scored.append(name)
    return sel


@dataclass
class Outcome:
    name: str
    passed: bool
    checks: str  # "ok/total" or "-"
    note: str


def load_runs(rev_dir: Path) -> dict[str, Path]:
    """Scenario name -> its newest result directory."""
    runs: dict[str, Path] = {}
    for d in sorted(p for p in rev_dir.iterdir() if p.is_dir()):
        if m := RUN_DIR.match(d.name):
            runs[m["name"]] = d  # sorted by timestamp suffix, newest wins
    return runs


def judge(name: str, run: Path | None, rev_dir: Path) -> Outcome:
    if run is None:
        return Outcome(name, False, "-", f"no result written (see {rev_dir / 'harness.log'})")
    try:
        checks = json.loads((run / "checks.json").read_text(encoding="utf-8"))
        if not isinstance(checks, list):
            raise ValueError("checks.json is not a list")
    except (OSError, ValueError) as exc:
        return Outcome(name, False, "-", f"unreadable checks.json: {exc}")
    statuses = [c.get("status") for c in checks if isinstance(c, dict)]
    failures = [c for c in checks if isinstance(c, dict) and c.get("status") == "FAILURE"]
    failures += _unmet(checks, STRICT.get(name, ()))
    ok = statuses.count("SUCCESS")
    warnings = statuses.count("WARNING")
    notes = []
    if failures:
        first = failures[0]
        msg = " ".join(str(first.get("errorMessage") or first.get("description") or "").split())
        notes.append(f"{first.get('id')}: {msg[:160]}")
        if len(failures) > 1:
            notes.append(f"(+{len(failures) - 1} more failing)")
    if warnings:
        notes.append(f"{warnings} warning(s)")
    if ok + len(failures) == 0:
        other = ", ".join(sorted({str(st) for st in statuses})) or "none"
        notes.append(f"nothing checked (statuses: {other})")
    return Outcome(name, not failures, f"{ok}/{ok + len(failures)}", "; ".join(notes))


def _unmet(checks: list[object], required: tuple[str, ...]) -> list[dict[str, object]]:
    """The required checks that are absent or did not succeed, as failures to report."""
    unmet = []
    for check_id in required:
        found = [c for c in checks if isinstance(c, dict) and c.get("id") == check_id]
        if not any(c.get("status") in ("SUCCESS", "FAILURE") for c in found):  # FAILURE: counted
            status = found[0].get("status") if found else "absent"
            why = found[0].get("errorMessage") or found[0].get("details") if found else None
            unmet.append({"id": check_id, "errorMessage": f"required SUCCESS, got {status}: {why}"})
    return unmet


def print_table(rows: list[tuple[str, Outcome]], width: int) -> None:
    for label, o in rows:
        line = f"  {label:<5} {o.name:<{width}}  {o.checks:>7}"
        print(f"{line}  {o.note}".rstrip())


def score_rev(rev: Path, only: list[str] | None) -> tuple[int, int, set[str]]:
    """Print one revision's table; return (passed, failed, scenarios of its selection)."""
    selection_text = _read(rev / "selection.txt")
    sel = parse_selection(rev / "selection.txt")
    known = set(sel.all())
    how = "--requirements" if "Required for" in selection_text else "--suite all --spec-version"
    print(f"\n== {rev.name} ({how} {rev.name}) ==")
    if not sel.scored:
        print(f"  FAIL  the harness listed no scenarios (see {rev / 'selection.txt'})")
        return 0, 1, known
    runs = load_runs(rev)
    scored = [s for s in sel.scored if only is None or s in only]
    unscored = {s: r for s, r in sel.unscored.items() if only is None or s in only}
    if only is not None and not scored and not unscored:
        print(f"  (none of the requested scenarios is part of {rev.name})")
        return 0, 0, known

    width = max(map(len, [*scored, *unscored, *runs]), default=10)
    outcomes = [judge(s, runs.get(s), rev) for s in scored]
    print_table([("PASS" if o.passed else "FAIL", o) for o in outcomes], width)
    passed = sum(o.passed for o in outcomes)
    failed = len(outcomes) - passed

    info = []
    for s, reason in unscored.items():
        o = judge(s, runs.get(s), rev)
        o.note = f"[{reason}] {o.note}".rstrip()
        info.append(o)
    info += [judge(s, runs[s], rev) for s in sorted(runs) if s not in known]
    if info:
        print("  not scored:")
        print_table([("pass" if o.passed else "fail", o) for o in info], width)

    summary = f"  {rev.name}: {passed} passed, {failed} failed of {len(outcomes)} scored"
    if info:
        summary += f"; not scored: {sum(o.passed for o in info)} of {len(info)} pass"
    print(summary)
    rc = _read(rev / "harness.rc").strip() or "?"
    log = rev / "harness.log"
    if rc not in ("0", "1"):
        print(f"  FAIL  the suite exited with status {rc} (timeout or crash; see {log})")
        failed += 1
    elif rc == "1" and failed == 0:
        print(f"  note: the suite exited 1 although every scored scenario passed ({log})")
    return passed, failed, known


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def cmd_score(results: Path, revs: list[str], only: list[str] | None) -> int:
    total_pass = total_fail = 0
    seen: set[str] = set()
    for rev in revs:
        p, f, known = score_rev(results / rev, only)
        total_pass += p
        total_fail += f
        seen |= known
    if only is not None:
        for s in only:
            if s not in seen:
                print(f"  FAIL  {s}: not a server scenario of {' '.join(revs)}")
                total_fail += 1
    print(f"\nresults: {results}")
    print(f"conformance: {total_pass} passed, {total_fail} failed")
    return 0 if total_fail == 0 and total_pass > 0 else 1


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("select")
    sp.add_argument("selection", type=Path)
    sc = sub.add_parser("score")
    sc.add_argument("--only", default="", help="space-separated subset of scenarios")
    sc.add_argument("results", type=Path)
    sc.add_argument("revs", nargs="+")
    args = ap.parse_args(argv)
    if args.cmd == "select":
        print("\n".join(parse_selection(args.selection).all()))
        return 0
    return cmd_score(args.results, args.revs, args.only.split() or None)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The floor under a class-per-tool catalog (issue 50): what CPython alone spends on N empty
classes made with ``types.new_class``, in a bare interpreter (no genmcp, no FastAPI).

    python bench/class_floor.py 100000

Prints, for each kind of class, the CPU seconds of making N and the RSS they add: a plain
class (its instances have a ``__dict__``), a subclass of a base without a ``__dict__`` (such
as ``Tool`` since issue 50's `toolcat`), and one that declares ``__slots__ = ()`` too (as
``@tool``'s classes do). Run each kind in its own process (``--kind``) so one does not reuse
the memory another freed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types

KINDS = ("plain", "slotted_base", "slots")


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        return int(status.read().split("VmRSS:")[1].split()[0]) / 1024


def make(kind: str, n: int) -> list[type]:
    class Base:
        pass

    class Slotted:
        __slots__ = ()

    if kind == "plain":
        return [types.new_class(f"C{i}", (Base,)) for i in range(n)]
    if kind == "slotted_base":
        return [types.new_class(f"C{i}", (Slotted,)) for i in range(n)]
    body = {"__slots__": ()}
    return [types.new_class(f"C{i}", (Slotted,), None, lambda ns: ns.update(body)) for i in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int)
    parser.add_argument("--kind", choices=KINDS)
    args = parser.parse_args()
    if args.kind is None:
        for kind in KINDS:
            subprocess.run([sys.executable, __file__, str(args.n), "--kind", kind], check=True)
        return
    before, started = rss_mb(), time.process_time()
    made = make(args.kind, args.n)
    spent, added = time.process_time() - started, rss_mb() - before
    print(f"{len(made)} classes ({args.kind}): {spent:.2f} s CPU, +{added:.0f} MB RSS "
          f"({added * 1024 * 1024 / args.n:,.0f} bytes each)")


if __name__ == "__main__":
    main()

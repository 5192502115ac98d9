"""Start-up CPU and idle RSS of a large catalog, in-process (issue 50): bench/servers/
genmcp_server.py with ``EXTRA_TOOLS`` generated tools (one schema object, one ``call``
function, as a generated catalog has), built and started (its lifespan), no HTTP server.

    python bench/catalog_startup.py 100000              # this checkout
    python bench/catalog_startup.py 100000 --tree /tmp/base
    python bench/catalog_startup.py 100000 --form arg     # one class, (class, i) providers
    python bench/catalog_startup.py 100000 --form function  # @tool functions (closures)
    python bench/catalog_startup.py 100000 --form function_args  # ... with a `key: str` each
    python bench/catalog_startup.py 100000 --form class_slots  # a class each, `__slots__ = ()`

Prints the CPU seconds of building the app (imports, the tool classes, ``mcp_router``) and of
its lifespan start-up, and the process's RSS after both; then the same split: the imports,
the tool classes (the bench's own ``types.new_class`` calls: CPython's, whatever the
framework; for ``--form function`` the ``@tool`` calls, genmcp's) and the Suite's build. ``make bench-curves``' catalog curve
measures the same through uvicorn (bench/curves.py).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tools", type=int)
    parser.add_argument("--tree", help="a checkout whose src/ to import genmcp from")
    parser.add_argument("--form", choices=("class", "class_slots", "arg", "function", "function_args"), default="class",
                        help="one class per tool (default), one class and (class, i) "
                             "providers, @tool functions generated as closures, or those "
                             "with one argument each; class_slots: a class per tool "
                             "declaring __slots__ = ()")
    args = parser.parse_args()
    os.environ["EXTRA_TOOLS"] = str(args.tools)
    os.environ["EXTRA_FORM"] = args.form
    sys.path.insert(0, HERE)
    started = time.process_time()
    import inproc

    app = inproc.load_app(args.tree)
    built = time.process_time()
    classes = getattr(sys.modules.get("_common"), "CLASSES_CPU", None)

    async def idle() -> None:
        return None

    asyncio.run(inproc.lifespan(app, idle))
    ready = time.process_time()
    with open("/proc/self/status") as status:
        rss_kb = int(status.read().split("VmRSS:")[1].split()[0])
    print(f"{args.tools} tools: build {built - started:.2f} s CPU, lifespan start-up "
          f"{ready - built:.2f} s, RSS {rss_kb / 1024:.0f} MB ({args.tree or 'this checkout'}, "
          f"form {args.form})")
    if classes is not None:
        imported, made = classes
        print(f"  of the build: imports {imported - started:.2f} s, tool classes "
              f"{made - imported:.2f} s, the rest (mcp_router: the Suite) {built - made:.2f} s")


if __name__ == "__main__":
    main()

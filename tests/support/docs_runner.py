"""Runs documentation code blocks, each in a fresh child forked from one preloaded interpreter.

Started by `support.docs.BlockRunner` (``python docs_runner.py``). It imports what the blocks
import (genmcp, FastAPI, pydantic, ...) once, then reads one JSON job per stdin line,
``{"name", "code", "timeout"}``, forks, and runs the code in the child as a script would run
(``__name__ == "__main__"``, the repository root as cwd and on ``sys.path``; a
DeprecationWarning is an error), killed by SIGALRM after ``timeout`` s. It answers one JSON
line, ``{"status", "output"}``: the child's exit status (non-zero on an exception, with its
traceback in ``output``) and what it printed. A fork costs milliseconds where a fresh
interpreter costs ~0.7 s per block.
"""

from __future__ import annotations

import importlib
import json
import linecache
import os
import signal
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRELOAD = (
    "asyncio",
    "fastapi",
    "pydantic",
    "starlette.testclient",
    "genmcp",
    "genmcp.fastapi",
    "genmcp.routes_as_tools",
    # jsonschema, else loaded by a block's first invalid call: on a loaded machine (two
    # xdist workers) the load alone outlasted the loop's fixed 0.6 s wait in schema.offload
    # (the thread's budget leaves the load out, that wait does not) and {"word": 3} came
    # back "validation stopped after 0.5 s: the arguments are too large"
    "genmcp.schema.engine",
    "genmcp.testing",
    "genmcp.fastapi.router",
    "mcp",
    "mcp.client.streamable_http",
    "uvicorn",
)


def child(job: dict[str, object], out: int) -> None:
    """In the forked child: run the block, then leave without returning to the loop."""
    os.dup2(out, 1)
    os.dup2(out, 2)
    signal.alarm(int(str(job["timeout"])))
    warnings.simplefilter("error", DeprecationWarning)  # as the suite's filterwarnings do
    status = 0
    try:
        source, name = str(job["code"]), str(job["name"])
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        code = compile(source, name, "exec", dont_inherit=True)  # a script: no __future__ of ours
        exec(code, {"__name__": "__main__", "__file__": str(job["name"])})
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    except BaseException:
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def run(job: dict[str, object]) -> dict[str, object]:
    with tempfile.TemporaryFile() as out:
        pid = os.fork()
        if pid == 0:
            child(job, out.fileno())
        _, wait_status = os.waitpid(pid, 0)
        out.seek(0)
        output = out.read().decode("utf-8", "replace")
    return {"status": os.waitstatus_to_exitcode(wait_status), "output": output[-6000:]}


def main() -> None:
    os.chdir(ROOT)
    sys.path[0] = str(ROOT)  # not tests/support (its examples.py would shadow examples/)
    for name in PRELOAD:
        importlib.import_module(name)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        print(json.dumps(run(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()

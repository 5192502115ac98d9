"""Keep the start-up objects out of the garbage collector's way, once per process.

A FastAPI app with genmcp holds hundreds of thousands of long-lived objects after start-up
(routes, pydantic models, compiled schemas, imported modules). CPython's full collections
walk all of them, and a busy server's per-request cycles trigger one every few seconds:
measured at c=16, that is most of the p99 (27.6 ms against a 1.9 ms p50). ``gc.freeze()``
after one ``gc.collect()`` moves what exists at start-up into the permanent generation,
which full collections skip (the p99 became 4.5 ms); what is allocated later is collected
as before. Done at the first router start-up of a process only, so a process that builds
many apps (a test suite) freezes just the first one's objects. ``mcp_router(freeze_gc=False)``
turns it off.
"""

from __future__ import annotations

import gc
import logging
import time

__all__ = ["freeze_startup_objects"]

log = logging.getLogger("genmcp")

_frozen = False  # gc.freeze is the process's: once per process (tests/layout)


def freeze_startup_objects() -> bool:
    """Collect, then freeze every object alive now; True the first time in this process."""
    global _frozen
    if _frozen:
        return False
    _frozen = True
    started = time.perf_counter()
    gc.collect()
    gc.freeze()
    log.debug(
        "froze %d start-up objects out of the collector's way in %.0f ms",
        gc.get_freeze_count(),
        (time.perf_counter() - started) * 1000,
    )
    return True

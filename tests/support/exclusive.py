"""The machine to itself: a test marked `exclusive` runs while no other xdist worker runs one.

Some tests measure time against a tight budget (an event loop that must answer within
50 ms while a validation thread runs). Under pytest-xdist the other worker's test loads the
same cores, and such a budget fails for a reason that is not the code's. `xdist_group` does
not help (it only keeps a group on one worker; the other worker goes on). So every test
holds a shared lock for its whole run (setup, call, teardown) and an `exclusive` test holds
it alone: it starts once the test running elsewhere has ended, and no other test starts
until it has ended. Writer preference: a test waiting to run alone holds a gate that new
shared holders must pass, so a busy worker cannot starve it.

`RunLock(folder)`: the two lock files in ``folder`` (the run's own temporary directory, one
per pytest run, so two runs on one machine never wait for each other); `hold()` blocks
(`fcntl.flock`: released by the kernel if the worker dies).

Imports nothing of genmcp or of the other helpers.
"""

from __future__ import annotations

import fcntl
from pathlib import Path

__all__ = ["RunLock"]


class RunLock:
    """The run-wide lock of one worker process: `hold()` it shared for a test, alone for an
    `exclusive` one, `release()` after. One test at a time per process: holds never nest,
    but a run of exclusive tests may keep it alone from one to the next (`hold` is then a
    no-op): released between them, the other worker could start a long test meanwhile."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self._gate = (folder / "exclusive.gate").open("a")
        self._lock = (folder / "exclusive.lock").open("a")
        self._held: str | None = None  # "shared" or "alone"

    def hold(self, *, alone: bool) -> None:
        """Block until held shared (``alone`` False) or alone; keeps an alone hold."""
        if alone and self._held == "alone":
            return
        assert self._held is None, "hold() twice without release()"
        if alone:
            fcntl.flock(self._gate, fcntl.LOCK_EX)  # no new shared holder from here on
            fcntl.flock(self._lock, fcntl.LOCK_EX)  # the tests running elsewhere end
        else:
            fcntl.flock(self._gate, fcntl.LOCK_SH)  # waits while an exclusive test runs or waits
            fcntl.flock(self._lock, fcntl.LOCK_SH)
            fcntl.flock(self._gate, fcntl.LOCK_UN)
        self._held = "alone" if alone else "shared"

    def release(self) -> None:
        if self._held is None:
            return
        fcntl.flock(self._lock, fcntl.LOCK_UN)
        if self._held == "alone":
            fcntl.flock(self._gate, fcntl.LOCK_UN)
        self._held = None

    def close(self) -> None:
        self.release()
        self._gate.close()
        self._lock.close()

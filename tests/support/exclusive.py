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
per pytest run, so two runs on one machine never wait for each other). `shared()` and
`alone()` are blocking context managers (`fcntl.flock`; released if the process dies).

Imports nothing of genmcp or of the other helpers.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

__all__ = ["RunLock"]


class RunLock:
    """The run-wide lock of one worker process: `shared()` for a test, `alone()` for an
    `exclusive` one. One test at a time per process: the two never nest."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self._gate = (folder / "exclusive.gate").open("a")
        self._lock = (folder / "exclusive.lock").open("a")

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        fcntl.flock(self._gate, fcntl.LOCK_SH)  # waits while an exclusive test runs or waits
        try:
            fcntl.flock(self._lock, fcntl.LOCK_SH)
        finally:
            fcntl.flock(self._gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(self._lock, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def alone(self) -> Iterator[None]:
        fcntl.flock(self._gate, fcntl.LOCK_EX)  # no new shared holder from here on
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX)  # the tests running elsewhere end
            try:
                yield
            finally:
                fcntl.flock(self._lock, fcntl.LOCK_UN)
        finally:
            fcntl.flock(self._gate, fcntl.LOCK_UN)

    def close(self) -> None:
        self._gate.close()
        self._lock.close()

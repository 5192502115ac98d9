"""Backtracking patterns run in helper processes, killed at the validation deadline.

Python's ``re`` holds the GIL for a whole search and cannot be interrupted: a pattern with
lookaround on a 60-character string can take seconds, and in a thread it would still freeze
the event loop. A tool that opts in to such patterns (``backtracking_patterns``) has them
searched here instead: a small child interpreter (``python -I -S``, stdlib ``re`` only)
answers one search per line on its pipes, at the lowest CPU priority; the caller waits
without the GIL, and a child still searching at the deadline is killed (the next search
starts a fresh one). Starting a child is not a search's time: ``prepare()`` readies an
idle one before the caller's clock runs and says how long that took (an interpreter
started at the lowest priority on a loaded machine took longer than a whole budget).

Owns the pool of children. Pure: no asyncio, no web framework, nothing from genmcp; POSIX
(``select`` on pipes).
"""

from __future__ import annotations

import atexit
import json
import math
import select
import subprocess
import sys
import threading
import time
from typing import Final

__all__ = ["MAX_CHILDREN", "START_GUARD_S", "TimedOut", "prepare", "search"]

MAX_CHILDREN: Final = 4
"""Helper processes alive at once; a search waits (within its deadline) for a free one."""
START_GUARD_S: Final = 60.0
"""A hang guard on a child's start (``prepare``): one that says nothing by then is killed."""

_CHILD: Final = r"""
import json, os, re, sys
os.nice(19)  # a searching child must not take the CPU from the server's event loop
sys.stdout.write("ready\n")
sys.stdout.flush()
cache = {}
for line in sys.stdin:
    pattern, text = json.loads(line)
    compiled = cache.get(pattern)
    if compiled is None:
        compiled = cache[pattern] = re.compile(pattern)
    sys.stdout.write("1\n" if compiled.search(text) else "0\n")
    sys.stdout.flush()
"""


class TimedOut(Exception):
    """The deadline passed before the search answered (its child was killed)."""


class _Child:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _CHILD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        stdout = self.process.stdout
        assert stdout is not None
        ready, _, _ = select.select([stdout], [], [], START_GUARD_S)
        if not ready or stdout.readline() != "ready\n":
            self.kill()
            raise TimedOut

    def ask(self, pattern: str, text: str, deadline: float) -> bool:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps([pattern, text]) + "\n")
        stdin.flush()
        ready, _, _ = select.select([stdout], [], [], _timeout(deadline))
        if not ready:
            raise TimedOut
        answer = stdout.readline()
        if answer not in ("0\n", "1\n"):
            raise TimedOut  # the child died (killed, or out of memory): treat as over budget
        return answer == "1\n"

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


def _timeout(deadline: float) -> float | None:
    """Seconds left until ``deadline`` (None: no deadline)."""
    if deadline == math.inf:
        return None
    return max(deadline - time.monotonic(), 0.0)


_idle: list[_Child] = []  # the process's helpers: MAX_CHILDREN per process (tests/layout)
_lock = threading.Lock()
_slots = threading.BoundedSemaphore(MAX_CHILDREN)


def prepare() -> float:
    """Make sure an idle child is ready; the seconds spent starting one (0.0: one was).

    Called before a search's clock runs: the caller adds the time to its deadline.
    """
    with _lock:
        if any(child.process.poll() is None for child in _idle):
            return 0.0
    started = time.monotonic()
    if not _slots.acquire(timeout=START_GUARD_S):  # every child busy: search waits its turn
        return time.monotonic() - started
    try:
        child = _Child()
        with _lock:
            _idle.append(child)
    except TimedOut:
        pass  # the search starts one within its own deadline, and says so if it cannot
    finally:
        _slots.release()
    return time.monotonic() - started


def search(pattern: str, text: str, *, deadline: float) -> bool:
    """Whether ``pattern`` matches in ``text``, decided by ``deadline`` (``time.monotonic``).

    Raises:
        TimedOut: no answer by the deadline (waiting for a free child counts).
    """
    if not _slots.acquire(timeout=_timeout(deadline)):
        raise TimedOut
    try:
        with _lock:
            child = _idle.pop() if _idle else None
        if child is None or child.process.poll() is not None:
            child = _Child()
        try:
            found = child.ask(pattern, text, deadline)
        except BaseException:
            child.kill()
            raise
        with _lock:
            _idle.append(child)
        return found
    finally:
        _slots.release()


@atexit.register
def _stop_children() -> None:
    with _lock:
        children, _idle[:] = list(_idle), []
    for child in children:
        child.kill()

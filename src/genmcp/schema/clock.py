"""The validation time budget: one ``Budget`` per validation, checked by every keyword.

``start_clock(budget)``/``stop_clock()`` bracket a validation on the current thread;
``check()`` raises ``OverBudget`` past the deadline, and ``Budget.cancel`` (from any thread,
e.g. the event loop giving up on a validation thread) makes the next check raise.
``each``/``chunks`` walk long sequences with a check every 4096 items, so no loop and no
single C call (``set``, ``map``) runs long between checks. Pure: no asyncio, no genmcp.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Final, TypeVar

__all__ = [
    "Budget",
    "OverBudget",
    "check",
    "chunks",
    "deadline",
    "each",
    "start_clock",
    "stop_clock",
]

_T = TypeVar("_T")
_CHUNK: Final = 4096


class Budget:
    """One validation's deadline (``time.monotonic``); ``cancel`` ends it from any thread."""

    __slots__ = ("deadline",)

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds

    def cancel(self) -> None:
        """Keywords checking this budget raise ``OverBudget`` at their next check."""
        self.deadline = -math.inf


_UNLIMITED: Final = Budget(math.inf)


class _Clock(threading.local):
    budget = _UNLIMITED


_clock = _Clock()


class OverBudget(Exception):
    """Validation ran past its time budget (``start_clock``)."""


def start_clock(budget: Budget) -> None:
    """Keywords on this thread raise ``OverBudget`` once ``budget``'s deadline has passed."""
    _clock.budget = budget


def stop_clock() -> None:
    """No deadline on this thread any more."""
    _clock.budget = _UNLIMITED


def check() -> None:
    if time.monotonic() > _clock.budget.deadline:
        raise OverBudget


def each(items: Iterable[_T]) -> Iterator[_T]:
    """``items``, checking the budget every 4096 (loops that descend nowhere)."""
    for index, item in enumerate(items):
        if not index & 0xFFF:
            check()
        yield item


def chunks(items: list[_T]) -> Iterator[list[_T]]:
    """``items`` in slices of ``_CHUNK``, the budget checked before each (C calls stay short)."""
    for start in range(0, len(items), _CHUNK):
        check()
        yield items[start : start + _CHUNK]


def deadline() -> float:
    """This thread's deadline (``time.monotonic``; infinite when no clock runs)."""
    return _clock.budget.deadline

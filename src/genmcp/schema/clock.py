"""The validation time budget: one ``Budget`` per validation, checked by every keyword.

``start_clock(budget)``/``stop_clock()`` bracket a validation on the current thread;
``check()`` raises ``OverBudget`` past the deadline, and ``Budget.cancel`` (from any thread,
e.g. the event loop giving up on a validation thread) makes the next check raise.
``each``/``chunks`` walk long sequences with a check every 1024 items, so no loop and no
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
    "extend",
    "start_clock",
    "stop_clock",
]

_T = TypeVar("_T")
_CHUNK: Final = 1024
YIELD_EVERY_S = 0.002
"""How often a validation thread lets other threads run."""
YIELD_S = 0.0002
"""How long it lets them (a sleep: the GIL is free meanwhile)."""


class Budget:
    """One validation's deadline (``time.monotonic``); ``cancel`` ends it from any thread.

    ``yielding``: a validation thread's budget; its checks pause ``YIELD_S`` every
    ``YIELD_EVERY_S`` so the event loop's thread, waiting for the GIL after each socket
    call, gets it at once instead of after the 5 ms switch interval.
    """

    __slots__ = ("deadline", "next_yield")

    def __init__(self, seconds: float, *, yielding: bool = False) -> None:
        now = time.monotonic()
        self.deadline = now + seconds
        self.next_yield = now + YIELD_EVERY_S if yielding else math.inf

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
    """Raise ``OverBudget`` past the deadline; yield the GIL when it is time to."""
    budget, now = _clock.budget, time.monotonic()
    if now > budget.deadline:
        raise OverBudget
    if now > budget.next_yield:
        time.sleep(YIELD_S)
        budget.next_yield = now + YIELD_EVERY_S


def each(items: Iterable[_T]) -> Iterator[_T]:
    """``items``, checking the budget every 1024 (loops that descend nowhere)."""
    for index, item in enumerate(items):
        if not index & 0x3FF:
            check()
        yield item


def chunks(items: list[_T]) -> Iterator[list[_T]]:
    """``items`` in slices of ``_CHUNK``, the budget checked before each (C calls stay short)."""
    for start in range(0, len(items), _CHUNK):
        check()
        yield items[start : start + _CHUNK]


def extend(seconds: float) -> None:
    """Move this thread's deadline ``seconds`` later (time that was not the arguments')."""
    _clock.budget.deadline += seconds


def deadline() -> float:
    """This thread's deadline (``time.monotonic``; infinite when no clock runs)."""
    return _clock.budget.deadline

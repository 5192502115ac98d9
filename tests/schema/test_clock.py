"""schema.clock: one validation's budget on this thread, checked by every keyword."""

from __future__ import annotations

import math
import threading
import time

import pytest

from genmcp.schema import clock
from genmcp.schema.clock import Budget, OverBudget, check, chunks, deadline, each


@pytest.fixture(autouse=True)
def no_clock_left_running() -> object:
    yield None
    clock.stop_clock()


def test_without_a_clock_nothing_is_over_budget() -> None:
    assert deadline() == math.inf
    check()
    assert list(each(range(5000))) == list(range(5000))


def test_a_spent_budget_raises_at_the_next_check() -> None:
    budget = Budget(-1.0)
    clock.start_clock(budget)
    assert deadline() == budget.deadline
    with pytest.raises(OverBudget):
        check()
    clock.stop_clock()
    check()  # stopped: the thread has no deadline again


def test_cancel_ends_a_running_budget_from_another_thread() -> None:
    budget = Budget(60.0)
    clock.start_clock(budget)
    check()
    canceller = threading.Thread(target=budget.cancel)
    canceller.start()
    canceller.join()
    assert budget.deadline == -math.inf
    with pytest.raises(OverBudget):
        check()


def test_the_clock_is_per_thread() -> None:
    clock.start_clock(Budget(-1.0))
    seen: list[float] = []
    other = threading.Thread(target=lambda: seen.append(deadline()))
    other.start()
    other.join()
    assert seen == [math.inf]


def test_each_checks_first_then_every_1024_items() -> None:
    clock.start_clock(Budget(-1.0))
    with pytest.raises(OverBudget):
        next(each(["first"]))
    budget = Budget(60.0)
    clock.start_clock(budget)
    walked = []
    with pytest.raises(OverBudget):
        for item in each(range(5000)):
            walked.append(item)
            if item == 10:
                budget.cancel()
    assert walked[-1] == 1023


def test_chunks_slice_and_check_before_each() -> None:
    assert [len(part) for part in chunks(list(range(2500)))] == [1024, 1024, 452]
    assert list(chunks([])) == []
    budget = Budget(60.0)
    clock.start_clock(budget)
    parts = chunks(list(range(2500)))
    next(parts)
    budget.cancel()
    with pytest.raises(OverBudget):
        next(parts)


def test_a_yielding_budget_lets_other_threads_run_between_checks() -> None:
    budget = Budget(60.0, yielding=True)
    assert budget.next_yield <= time.monotonic() + clock.YIELD_EVERY_S
    assert Budget(60.0).next_yield == math.inf  # a budget of the loop's thread never sleeps
    clock.start_clock(budget)
    budget.next_yield = later = time.monotonic() + 60
    check()
    assert budget.next_yield == later  # not yet time: no pause
    budget.next_yield = before = time.monotonic()
    check()
    assert budget.next_yield >= before + clock.YIELD_EVERY_S  # paused; the next one scheduled

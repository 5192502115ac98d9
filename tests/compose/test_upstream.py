"""An upstream's circuit breaker on its own: open, cooling down, half open, closed again.

The breaker behind a mount (``Mount(failures=..., cooldown_s=...)``) over a clock the test
moves; a dead upstream refused at once through a mount is in test_remote.py.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from genmcp.compose import upstream
from genmcp.compose.upstream import Breaker


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    found = Clock()
    monkeypatch.setattr(upstream, "time", SimpleNamespace(monotonic=found))  # this module only
    return found


def test_the_breaker_opens_after_failures_in_a_row(clock: Clock) -> None:
    breaker = Breaker(failures=2, cooldown_s=30)
    breaker.failed()
    assert breaker.allows() and breaker.retry_in() == 0.0
    breaker.succeeded()  # a success in between: the count starts again
    breaker.failed()
    assert breaker.allows()
    breaker.failed()
    assert not breaker.allows()
    clock.now += 10
    assert breaker.retry_in() == 20.0


def test_after_the_cooldown_one_call_tries(clock: Clock) -> None:
    breaker = Breaker(failures=3, cooldown_s=30)
    for _ in range(3):
        breaker.failed()
    clock.now += 30
    assert breaker.allows()  # half open
    breaker.failed()  # that one failure opens it again
    assert not breaker.allows()
    clock.now += 30
    assert breaker.allows()
    breaker.succeeded()
    breaker.failed()
    assert breaker.allows() and breaker.failures == 1

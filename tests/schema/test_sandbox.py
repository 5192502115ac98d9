"""schema.sandbox: backtracking patterns searched in helper processes, killed at the deadline.

Real child interpreters: each test costs a process start (~30 ms) at most.
"""

from __future__ import annotations

import math
import time

import pytest

from genmcp.schema import sandbox


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        (r"^(?=.*\d)\w+$", "abc1", True),
        (r"^(?=.*\d)\w+$", "abcd", False),
        (r"(\w)\1", "hello", True),  # a backreference
        (r"(?<!x)y", "xy", False),
        (r"é\u2028", "café\u2028", True),  # the text crosses the pipe as JSON
    ],
)
def test_a_search_answers_as_pythons_re(pattern: str, text: str, found: bool) -> None:
    assert sandbox.search(pattern, text, deadline=math.inf) is found


@pytest.mark.timeout(30)
def test_a_search_past_its_deadline_is_timed_out_and_the_next_starts_afresh() -> None:
    started = time.monotonic()
    with pytest.raises(sandbox.TimedOut):
        sandbox.search(r"^(a|a)*$", "a" * 40 + "!", deadline=time.monotonic() + 0.2)
    assert time.monotonic() - started < 2  # the child was killed, not waited for
    assert sandbox.search(r"^(?=a)a$", "a", deadline=time.monotonic() + 5)

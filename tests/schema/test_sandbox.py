"""schema.sandbox: backtracking patterns searched in helper processes, killed at the deadline.

Real child interpreters: each test costs a process start (~30 ms) at most.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

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


def searching_children() -> list[int]:
    """Our sandbox children still running (state R: searching; an idle one waits on stdin)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue  # gone meanwhile
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        ours = fields.get("PPid", "").strip() == str(os.getpid())
        if ours and cmdline[1:4] == [b"-I", b"-S", b"-c"] and fields["State"].startswith("R"):
            found.append(int(entry.name))
    return found


@pytest.mark.timeout(30)  # a hang guard: 2**40 steps, were the child waited for
def test_a_search_past_its_deadline_is_timed_out_and_the_next_starts_afresh() -> None:
    with pytest.raises(sandbox.TimedOut):
        sandbox.search(r"^(a|a)*$", "a" * 40 + "!", deadline=time.monotonic() + 0.2)
    assert searching_children() == []  # the child was killed, not left searching
    assert sandbox.search(r"^(?=a)a$", "a", deadline=time.monotonic() + 5)


def test_a_child_is_readied_before_a_search_s_clock_runs_and_the_search_uses_it() -> None:
    """Starting an interpreter is not a search's time: on a loaded machine the start at the
    lowest priority took longer than a whole validation budget (a 4-character search was
    refused as too large)."""
    sandbox._stop_children()  # none idle: a search would have to start one
    assert sandbox.prepare() > 0.0  # started now, before any deadline
    assert sandbox.prepare() == 0.0  # one is ready: nothing more to start
    ready = [child.process.pid for child in sandbox._idle]
    assert len(ready) == 1
    assert sandbox.search(r"^(?=.*\d)\w+$", "abc1", deadline=time.monotonic() + 60)
    assert [child.process.pid for child in sandbox._idle] == ready  # that child answered

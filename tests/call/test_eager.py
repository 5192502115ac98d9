"""call.eager (Python 3.11): a task whose first step runs inside ``eager_task``, as that
task, in its own context; the task goes on from where the step stopped (or ends at once
when it ended there).

Driven on real event loops (asyncio's and uvloop's, as servers run): what the coroutine
saw (its task, its context, what it awaited), what the task ends with, what a cancellation
that comes before the loop ran the task does.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import subprocess
import sys
from asyncio import tasks
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Final

import pytest
import uvloop

from genmcp.call import eager
from genmcp.call.eager import _current_task, eager_task

pytestmark = pytest.mark.skipif(
    sys.version_info >= (3, 12), reason="3.12+ starts a task eagerly itself (Call.start)"
)
VAR: contextvars.ContextVar[str] = contextvars.ContextVar("eager_test", default="unset")


def on_loops(test: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[str], None]:
    """Run ``test`` on a fresh loop of each kind."""

    @pytest.mark.parametrize("kind", ["asyncio", "uvloop"])
    def run(kind: str) -> None:
        if kind == "uvloop":
            with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
                runner.run(test())
        else:
            asyncio.run(test())

    run.__name__ = test.__name__
    return run


@on_loops
async def test_a_coroutine_that_ends_in_its_first_step() -> None:
    seen: list[Any] = []

    async def work() -> str:
        seen.append(asyncio.current_task())
        return "done"

    outer = asyncio.current_task()
    task = eager_task(asyncio.get_running_loop(), work(), "eager-test")
    assert seen == [task]  # ran before eager_task returned, as its own task
    assert asyncio.current_task() is outer  # the caller's task is current again
    assert task.get_name() == "eager-test"
    assert await task == "done"


@on_loops
async def test_a_coroutine_that_waits_goes_on_in_its_task() -> None:
    loop = asyncio.get_running_loop()
    waited: asyncio.Future[int] = loop.create_future()
    steps: list[str] = []

    async def work() -> int:
        steps.append("first")
        value = await waited
        steps.append("second")
        await asyncio.sleep(0)
        return value + 1

    task = eager_task(loop, work(), "eager-test")
    assert steps == ["first"]
    await asyncio.sleep(0)
    assert steps == ["first"] and not task.done()  # still waiting on its future
    waited.set_result(41)
    assert await task == 42
    assert steps == ["first", "second"]


@on_loops
async def test_its_context_is_a_copy() -> None:
    VAR.set("caller")
    seen: list[str] = []

    async def work() -> None:
        seen.append(VAR.get())
        VAR.set("task")
        await asyncio.sleep(0)
        seen.append(VAR.get())

    task = eager_task(asyncio.get_running_loop(), work(), "eager-test")
    assert VAR.get() == "caller"  # the first step's set stays in the task's context
    await task
    assert seen == ["caller", "task"]
    assert VAR.get() == "caller"


@on_loops
async def test_a_timeout_entered_in_the_first_step_binds_to_the_task() -> None:
    async def work() -> str:
        try:
            async with asyncio.timeout(0.01):
                await asyncio.sleep(10)
        except TimeoutError:
            return "timed out"
        return "slept"

    task = eager_task(asyncio.get_running_loop(), work(), "eager-test")
    assert await task == "timed out"
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


@on_loops
async def test_cancelled_before_the_loop_ran_it_cancels_what_it_waits_on() -> None:
    loop = asyncio.get_running_loop()
    waited: asyncio.Future[None] = loop.create_future()
    seen: list[str] = []

    async def work() -> None:
        try:
            await waited
        except asyncio.CancelledError as exc:
            seen.append(f"cancelled: {exc.args}")
            raise

    task = eager_task(loop, work(), "eager-test")
    task.cancel("stop")
    with pytest.raises(asyncio.CancelledError):
        await task
    assert waited.cancelled()  # as a task cancels the future it waits on
    assert seen == ["cancelled: ('stop',)"]
    assert task.cancelled()


@on_loops
async def test_cancelled_before_the_loop_ran_it_on_a_bare_yield() -> None:
    seen: list[str] = []

    async def work() -> None:
        try:
            await asyncio.sleep(0)  # a bare yield: nothing to cancel but the coroutine
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    task = eager_task(asyncio.get_running_loop(), work(), "eager-test")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == ["cancelled"]


@on_loops
async def test_a_cancellation_it_swallows_lets_it_go_on() -> None:
    loop = asyncio.get_running_loop()
    waited: asyncio.Future[None] = loop.create_future()

    async def work() -> str:
        try:
            await waited
        except asyncio.CancelledError:
            asyncio.current_task().uncancel()  # type: ignore[union-attr]
        await asyncio.sleep(0)
        return "went on"

    task = eager_task(loop, work(), "eager-test")
    task.cancel()
    assert await task == "went on"


@on_loops
async def test_cancelled_in_the_step_that_ended_it_ends_cancelled() -> None:
    async def work() -> str:
        me = asyncio.current_task()
        assert me is not None
        me.cancel()  # from inside its own (last) step, as a call cancelled in it
        return "ended"

    task = eager_task(asyncio.get_running_loop(), work(), "eager-test")
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()


@on_loops
async def test_an_exception_after_the_first_step_is_the_tasks() -> None:
    async def work() -> None:
        await asyncio.sleep(0)
        raise ValueError("late")

    task = eager_task(asyncio.get_running_loop(), work(), "eager-test")
    with pytest.raises(ValueError, match="late"):
        await task


@on_loops
async def test_an_exception_in_the_first_step_is_the_tasks() -> None:
    async def work() -> None:
        raise ValueError("early")

    task = eager_task(asyncio.get_running_loop(), work(), "eager-test")
    with pytest.raises(ValueError, match="early"):
        await task


GONE: Final = (
    "Python {version} has no asyncio.tasks.{name}, which genmcp.call.eager reads on 3.11 "
    "(its docstring says why). {what}"
)


def test_on_3_11_the_private_names_it_reads_are_there() -> None:
    """Loud when a 3.11.x drops one: ``_current_tasks`` (then the public, slower
    ``current_task`` is asked: re-measure with bench/gate.py), ``_enter_task``/``_leave_task``
    (then no task can start eagerly: Call.start must stop calling ``eager_task``)."""
    version = sys.version.split()[0]
    assert "_current_tasks" in vars(tasks), GONE.format(
        version=version, name="_current_tasks",
        what="eager_task now asks asyncio.current_task (a Python frame: ~1k instructions more "
        "per call); find the new fast read of the loop's current task, or re-baseline the gate.",
    )  # fmt: skip
    for name in ("_enter_task", "_leave_task"):
        assert name in vars(tasks), GONE.format(
            version=version, name=name, what="eager_task cannot make its task the current one."
        )
    assert _current_task == tasks._current_tasks.get  # the fast read is the one taken


@on_loops
async def test_its_read_of_the_current_task_answers_as_current_task_does() -> None:
    loop = asyncio.get_running_loop()
    assert _current_task(loop) is asyncio.current_task(loop) is not None
    outside: list[object] = []
    done = loop.create_future()

    def callback() -> None:  # a loop callback: no task is current
        outside.extend([_current_task(loop), asyncio.current_task(loop)])
        done.set_result(None)

    loop.call_soon(callback)
    await done
    assert outside == [None, None]


FALLBACK: Final = """
import asyncio, asyncio.tasks as tasks
saved = vars(tasks).pop("_current_tasks")  # as a 3.11.x without it would be

def current_task(loop=None):  # that 3.11.x's public function, reading its own state
    return saved.get(loop if loop is not None else asyncio.get_running_loop())

tasks.current_task = asyncio.current_task = current_task
from genmcp.call import eager
assert eager._current_task is current_task, eager._current_task

async def main():
    seen = []
    async def work():
        seen.append(current_task())
        return "done"
    outer = current_task()
    task = eager.eager_task(asyncio.get_running_loop(), work(), "fallback")
    assert seen == [task] and current_task() is outer, (seen, task, outer)
    assert await task == "done"

asyncio.run(main())
print("eager without _current_tasks: ok")
"""


def test_without_the_private_dict_it_asks_the_public_function() -> None:
    """A 3.11.x without ``tasks._current_tasks``: genmcp still imports, and its first steps
    run as their tasks (before: a ``KeyError`` importing ``genmcp.call.eager``)."""
    src = Path(eager.__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", FALLBACK],
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard only
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "eager without _current_tasks: ok"

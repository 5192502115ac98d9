"""``eager_task``: a task whose first step runs at once, as that task (Python 3.11).

Python 3.12 starts a task eagerly (``asyncio.Task(..., eager_start=True)``): its first step
runs inside the call that makes it, as the current task and in the task's own context, and a
coroutine that ends in that step (most of a server's calls do) is never scheduled for it. On
3.11 the first step waits for the next loop turn, and whoever wants the answer waits with it:
a call that answers at once costs a loop turn and a task wake-up more (about 9 % of an
in-process ``tools/call``'s instructions). :func:`eager_task` does on 3.11 what 3.12 does:

- the task is made first (so ``asyncio.current_task()`` in the first step is that task, as
  ``asyncio.timeout`` and anyio's cancel scopes need), with a copy of the current context;
- the first step runs now, in that context, the task swapped in as the loop's current one;
- the task, when the loop runs it, goes on from where the first step stopped: it waits on
  what the coroutine yielded and passes every later send and throw through, or, when the
  first step ended the coroutine, ends at once.

A cancellation that reaches the task before the loop ran it cancels what the first step
waits on, as a task cancels the future it waits on (the coroutine sees ``CancelledError``
there); when the first step already ended the coroutine, the task ends cancelled, as one
cancelled during its last step does. Only ``call.Call.start`` uses it, on 3.11 (3.12 takes
no generator for a task's coroutine).

Why it reads asyncio's private names (3.11 only; 3.12+ never calls ``eager_task``): no public
API makes a task the loop's current one, so the first step swaps it in with
``asyncio.tasks._enter_task``/``_leave_task`` (what 3.12's own eager start does), and both need
the task that is current now (the caller's: ``_enter_task`` refuses while one is). The public
``asyncio.current_task(loop)`` tells it, but on 3.11 it is a Python function (3.12 made it C)
over a dict, ``asyncio.tasks._current_tasks``: its frame costs about 1k instructions a call
(``bench/gate.py``, 3 runs, 3.11.7: call_2026 354,548 -> 355,450, call_2025 370,966 ->
371,970, +0.25 %), so 3.11 reads that dict's C ``get`` itself, which answers the same (the
dict is the one ``current_task`` and ``_enter_task`` use: ``_asyncio``'s, or the pure-Python
module's own without it). A 3.11.x without the dict would still work, through the public
function (slower); ``tests/call/test_eager.py`` fails, saying so, if one drops it.

Imports asyncio only.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
from asyncio import tasks
from collections.abc import Callable, Coroutine, Generator
from typing import Any, Final

__all__ = ["eager_task"]


def eager_task(
    loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], name: str
) -> asyncio.Task[Any]:
    """A task running ``coro`` on ``loop`` whose first step has run (see the module)."""
    context = contextvars.copy_context()
    driven = _driven(coro)
    task: asyncio.Task[Any] = loop.create_task(driven, name=name, context=context)
    outer = _current_task(loop)
    if outer is not None:
        tasks._leave_task(loop, outer)
    tasks._enter_task(loop, task)
    try:
        context.run(next, driven)  # the first step, up to _driven's first yield
    finally:
        tasks._leave_task(loop, task)
        if outer is not None:
            tasks._enter_task(loop, outer)
    return task


_CURRENT_TASKS: Final[dict[asyncio.AbstractEventLoop, asyncio.Task[Any]] | None] = (
    vars(tasks).get("_current_tasks") if sys.version_info < (3, 12) else None
)
"""3.11: the loop -> current task dict ``tasks.current_task`` reads (private: see the module)."""

_current_task: Final[Callable[[asyncio.AbstractEventLoop], asyncio.Task[Any] | None]] = (
    tasks.current_task if _CURRENT_TASKS is None else _CURRENT_TASKS.get
)
"""``tasks.current_task(loop)``; on 3.11 the C ``get`` of the dict it reads: no frame."""

_STEPPED: Final = object()
"""What ``_driven`` yields to ``eager_task`` once the first step is over (never to the task)."""


def _driven(coro: Coroutine[Any, Any, Any]) -> Generator[Any, Any, Any]:
    """The task's coroutine: ``coro``'s first step when ``eager_task`` starts it, then, when
    the task runs, the rest (one frame and no object per call: the hot path)."""
    ended, value, error = False, None, None
    try:
        yielded = coro.send(None)
    except StopIteration as done:
        ended, value = True, done.value
    except (Exception, asyncio.CancelledError) as exc:  # the task's to raise
        ended, error = True, exc
    thrown: BaseException | None = None
    try:
        yield _STEPPED  # back to eager_task; the task's first step goes on from here
    except GeneratorExit:
        if not ended:
            coro.close()
        raise
    except BaseException as exc:  # cancelled before the loop ran the task
        thrown = exc
    if not ended:
        return (yield from _through(coro, yielded, thrown))
    if error is not None:
        raise error
    if thrown is not None:  # cancelled in the step that ended it: it ends cancelled
        raise thrown
    return value


def _through(
    coro: Coroutine[Any, Any, Any], yielded: Any, thrown: BaseException | None
) -> Generator[Any, Any, Any]:
    """The rest of ``coro``, suspended on ``yielded`` (``thrown``: what the task threw in
    before it ran): every send and throw of the task passed through."""
    if isinstance(thrown, asyncio.CancelledError) and asyncio.isfuture(yielded):
        # as a task cancels the future it waits on: the coroutine sees it when it wakes
        yielded.cancel(thrown.args[0] if thrown.args else None)
        thrown = None
    while True:
        if thrown is None:
            try:
                sent = yield yielded
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:
                thrown = exc
            else:
                try:
                    yielded = coro.send(sent)
                except StopIteration as done:
                    return done.value
                continue
        try:
            yielded = coro.throw(thrown)
        except StopIteration as done:
            return done.value
        finally:
            thrown = None

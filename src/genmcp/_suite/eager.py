"""A task whose first step runs at once, as that task: Python 3.12's eager tasks, on 3.11.

Most calls answer in their first step. Scheduled the usual way, that step waits for the next
loop turn, and the request that made the call must yield to the loop to let it run: every
coroutine of the request (the ASGI middleware stack, the endpoint) is suspended and resumed
once more. :func:`eager_task` runs the first step now instead, inside the new task: the task
is made (and scheduled, as 3.11 always does), the loop's current task is switched to it while
the step runs in the task's own context, then switched back. ``asyncio.current_task()``,
``asyncio.timeout``, task groups and anyio's cancel scopes entered in that step bind to the
call's task, as they do on 3.12.

The task then drives :class:`_Continued`, which replays what the first step came to: the
awaitable it waits on (the task waits on it from there), its return value, or its exception.
A cancel that lands between the two is thrown into the coroutine where it waits, as the task
would have; a coroutine that already returned keeps its result (on 3.12 the task would be
done, and the cancel a no-op).
"""

from __future__ import annotations

import asyncio
import contextvars
from asyncio import tasks as _tasks
from collections.abc import Coroutine, Generator
from typing import Any, Final, final

__all__ = ["eager_task"]

_YIELD: Final = 0
_RETURN: Final = 1
_RAISE: Final = 2


def eager_task(
    loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], name: str
) -> asyncio.Task[Any]:
    """A task running ``coro`` whose first step has run when this returns."""
    context = contextvars.copy_context()
    continued = _Continued(coro)
    task = loop.create_task(continued, name=name, context=context)
    outer = _tasks.current_task(loop)
    if outer is not None:
        _tasks._leave_task(loop, outer)
    _tasks._enter_task(loop, task)
    try:
        context.run(continued.first_step)
    finally:
        _tasks._leave_task(loop, task)
        if outer is not None:
            _tasks._enter_task(loop, outer)
    return task


@final
class _Continued(Coroutine[Any, Any, Any]):
    """``coro`` after its first step, as the task drives it (``send``/``throw``/``close``)."""

    __slots__ = ("_coro", "_first")

    def __init__(self, coro: Coroutine[Any, Any, Any]) -> None:
        self._coro = coro
        self._first: tuple[int, Any] | None = None  # the first step's outcome, until replayed

    def first_step(self) -> None:
        """Run ``coro`` to its first suspension (or its end) and keep the outcome."""
        try:
            self._first = (_YIELD, self._coro.send(None))
        except StopIteration as done:
            self._first = (_RETURN, done.value)
        except BaseException as exc:  # the task raises it, as it would have itself
            self._first = (_RAISE, exc)

    def send(self, value: Any) -> Any:
        first = self._first
        if first is None:
            return self._coro.send(value)
        self._first = None  # the task's own first step: what the coroutine came to
        kind, outcome = first
        if kind == _YIELD:
            return outcome
        if kind == _RETURN:
            raise StopIteration(outcome)
        raise outcome

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        first = self._first
        if first is not None:  # cancelled before the task's own first step
            self._first = None
            kind, outcome = first
            if kind == _RETURN:
                raise StopIteration(outcome)  # it ended first: the result stands
            if kind == _RAISE:
                raise outcome
            if isinstance(outcome, asyncio.Future):
                outcome.cancel()  # what the task would have cancelled, waiting on it
        if val is None and tb is None:
            return self._coro.throw(typ)
        return self._coro.throw(typ, val, tb)

    def close(self) -> None:
        self._first = None
        self._coro.close()

    def __await__(self) -> Generator[Any, None, Any]:
        raise TypeError("driven by its task only")

    def __getattr__(self, name: str) -> Any:  # __qualname__, cr_frame...: the coroutine's
        return getattr(self._coro, name)

    def __repr__(self) -> str:
        return repr(self._coro)

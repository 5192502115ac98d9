"""Debug mode: warn when an ``async def`` hook blocks the event loop.

A blocking call (``time.sleep``, ``requests``, a sync database driver) inside an
``async def`` hook freezes every other request of the process, with no error anywhere.
When the loop runs in asyncio's debug mode (``PYTHONASYNCIODEBUG=1``, ``python -X dev``,
``asyncio.run(..., debug=True)``), :func:`watched` times each step of the hook's coroutine
(from one ``await`` that suspends to the next) and logs a warning on the ``genmcp`` logger
naming the class and hook when a step holds the loop longer than the loop's
``slow_callback_duration`` (0.1 s by default). Outside debug mode nothing is wrapped.

Imports asyncio only.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine, Generator
from typing import Any

__all__ = ["debugging", "watched"]

log = logging.getLogger("genmcp")


def debugging() -> bool:
    """True when the running loop is in asyncio's debug mode."""
    return asyncio.get_running_loop().get_debug()


class _Watched:
    """An awaitable that drives ``coro`` step by step, timing each step."""

    __slots__ = ("_coro", "_label", "_limit")

    def __init__(self, coro: Coroutine[Any, Any, Any], label: str, limit: float) -> None:
        self._coro, self._label, self._limit = coro, label, limit

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, value, error = self._coro, None, None
        while True:
            start = time.perf_counter()
            try:
                yielded = coro.send(value) if error is None else coro.throw(error)
            except StopIteration as stop:
                self._check(start)
                return stop.value
            except BaseException:
                self._check(start)
                raise
            self._check(start)
            try:
                value, error = (yield yielded), None
            except BaseException as exc:  # a cancellation, thrown into the hook
                value, error = None, exc

    def _check(self, start: float) -> None:
        held = time.perf_counter() - start
        if held > self._limit:
            log.warning(
                "%s held the event loop for %.2f s without awaiting: a blocking call "
                "(time.sleep, requests, a sync database driver) in an async def hook stops "
                "every other request; make the hook a plain def (genmcp runs it in a worker "
                "thread) or await asyncio.to_thread(...) around the blocking part",
                self._label,
                held,
            )


async def watched(coro: Coroutine[Any, Any, Any], label: str) -> Any:
    """Await ``coro``, warning when one of its steps blocks the loop (debug mode only)."""
    loop = asyncio.get_running_loop()
    return await _Watched(coro, label, loop.slow_callback_duration)

"""Calling a behaviour's hook: awaited when it is ``async def``, else in a worker thread.

In asyncio's debug mode an ``async def`` hook is watched for blocking (``blocking``).

Imports asyncio only.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from genmcp._suite.blocking import debugging, watched

__all__ = ["call_hook", "is_async_hook"]

_ASYNC: dict[tuple[type, str], bool] = {}


def is_async_hook(owner: object, hook: str) -> bool:
    """True when ``owner``'s ``hook`` is a coroutine function (else it runs in a thread)."""
    key = (type(owner), hook)
    found = _ASYNC.get(key)
    if found is None:  # once per class and hook: a class's methods do not change
        found = _ASYNC[key] = inspect.iscoroutinefunction(getattr(owner, hook))
    return found


async def call_hook(owner: object, hook: str, *args: Any) -> Any:
    """Call ``owner.hook(*args)``: awaited, or run in a worker thread for a plain ``def``."""
    fn = getattr(owner, hook)
    if is_async_hook(owner, hook):
        if debugging():
            return await watched(fn(*args), f"{type(owner).__qualname__}.{hook}()")
        return await fn(*args)
    return await asyncio.to_thread(fn, *args)

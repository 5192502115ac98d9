"""Validation that never holds the event loop: inline when certainly cheap, else a thread.

``validate_off_loop(validator, arguments)`` is what a request's task awaits. It first tries
``validator.inline`` (small arguments, no user code, under ``INLINE_SLICE_S``: the common
tool call, a few microseconds, no thread hop). Otherwise ``validate`` runs on one of
``VALIDATION_THREADS`` threads of its own (tool threads are not starved), with a ``Budget``
counted from the call: the loop waits at most the budget plus ``GRACE_S``, then answers
"validation stopped" and cancels the budget, so the thread stops at its next keyword. What
cannot be interrupted (pydantic's Rust core, a tool's format checker stuck in C) keeps its
thread until it returns, but never the loop. The keywords do their C-level work in chunks,
so the loop gets the GIL back within a few milliseconds.

Imports asyncio; from genmcp only ``genmcp.schema``'s compiler and limits.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Final

from genmcp.schema import limits
from genmcp.schema.clock import Budget
from genmcp.schema.compile import ArgumentValidator, InvalidArguments, over_budget

__all__ = ["GRACE_S", "VALIDATION_THREADS", "validate_off_loop"]

VALIDATION_THREADS: Final = 4
"""Threads that run costly validations; more at once wait (their budget keeps running)."""
GRACE_S: Final = 0.1
"""How long past the budget the loop waits for a thread before answering without it."""

_pool: concurrent.futures.ThreadPoolExecutor | None = None  # bounds every Suite's threads
_pool_lock = threading.Lock()


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(
                VALIDATION_THREADS, thread_name_prefix="genmcp-validate"
            )
        return _pool


async def validate_off_loop(validator: ArgumentValidator, arguments: Any) -> Any:
    """The arguments to call with, or ``InvalidArguments``; the loop is never held long."""
    done, value = validator.inline(arguments)
    if done:
        return value
    budget = Budget(limits.VALIDATION_BUDGET_S, yielding=True)
    future = _executor().submit(_run, validator, arguments, budget)
    try:
        return await asyncio.wait_for(
            asyncio.wrap_future(future), limits.VALIDATION_BUDGET_S + GRACE_S
        )
    except TimeoutError:
        raise InvalidArguments([over_budget()]) from None
    finally:
        budget.cancel()  # finished, timed out or cancelled: a running thread stops


def _run(validator: ArgumentValidator, arguments: Any, budget: Budget) -> Any:
    return validator.validate(arguments, budget=budget)

"""A Redis that answers but refuses to write for now: a refusal, not a fault of the caller.

A Redis at ``maxmemory`` under ``noeviction`` answers writes with ``OOM``, a master short of
replicas (``min-replicas-to-write``, during a failover) with ``NOREPLICAS``, a replica (a
master just demoted) with ``READONLY``, one whose snapshot failed with ``MISCONF``; a
``BUSY`` script, a ``LOADING`` restart or a ``MASTERDOWN`` replica say the same: retry
later. Each is the store being unavailable, whatever was asked (a task's creation, a
transition, its result): :func:`refusing` raises :class:`WritesRefused` for them, one of
the failures a store's breaker turns into ``StorageUnavailable`` (HTTP 503 with
``Retry-After``). Any other error Redis answers (a script's own error) passes through.

redis-py raises some codes as classes of their own (``OutOfMemoryError``, ``ReadOnlyError``:
the code left out of the message); the others are read from the message, which Redis 7
starts with the code, also for an error a script met, and older servers wrap
(``ERR Error running script ...: -MISCONF ...``).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

from redis.exceptions import OutOfMemoryError, ReadOnlyError, RedisError, ResponseError

from genmcp.storage.guard import StoreFailure

__all__ = ["REFUSALS", "WritesRefused", "refusal", "refusing"]

T = TypeVar("T")

REFUSALS: Final = (
    "OOM",
    "NOREPLICAS",
    "READONLY",
    "MISCONF",
    "MASTERDOWN",
    "BUSY",
    "LOADING",
    "TRYAGAIN",
    "CLUSTERDOWN",
)
"""The error codes that mean "retry later": the store refuses for now, nothing is wrong."""
_CODE: Final = re.compile(r"(?:^|-|: )(" + "|".join(REFUSALS) + r")\b")


class WritesRefused(StoreFailure, RedisError):
    """Redis answered with a refusal (``code``): the store is unavailable for now."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.cause = f"refusing: {code}"


def refusal(exc: BaseException) -> str | None:
    """The refusal code of an error Redis answered (``OOM``, ``NOREPLICAS``...), or None."""
    if isinstance(exc, OutOfMemoryError):
        return "OOM"
    if isinstance(exc, ReadOnlyError):
        return "READONLY"
    if not isinstance(exc, ResponseError):
        return None
    found = _CODE.search(str(exc))
    return None if found is None else found.group(1)


async def refusing(operation: Callable[[], Awaitable[T]]) -> T:
    """``await operation()``; a refusal Redis answered is raised as :class:`WritesRefused`."""
    try:
        return await operation()
    except ResponseError as exc:
        code = refusal(exc)
        if code is None:
            raise
        raise WritesRefused(code, str(exc)) from exc

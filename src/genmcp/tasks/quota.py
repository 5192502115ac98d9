"""The task quota as a creation meets it: who counts as an owner, and the error of a refusal.

The store enforces ``TaskQuota`` (``genmcp.storage``); this module picks the quota a creation
counts against and turns the store's ``TaskQuotaExceeded`` into the ``task_quota`` error
(-32029, HTTP 429 with ``Retry-After``) that tells the caller what to do, or, with
``TaskOptions(sep3304=True)``, into SEP-3304's (Draft) ``-32023`` (``errors.sep3304_refusal``,
the shape ``RateLimit(sep3304=True)`` answers too).
"""

from __future__ import annotations

import dataclasses
from typing import Final

from genmcp.errors import MCPError, sep3304_refusal
from genmcp.storage import TaskQuota, TaskQuotaExceeded

__all__ = ["quota_of", "quota_refusal"]

_QUOTA_FIX: Final = {
    "live_per_owner": "you have too many tasks running: wait for one to end or cancel one",
    "created_per_window": "you created too many tasks lately",
    "max_live": "the server runs as many tasks as it takes",
    "fair_share": "the server is busy and you hold your share of its tasks",
    "max_tasks": "the task store is full of running tasks",
}


def quota_refusal(
    exc: TaskQuotaExceeded, quota: TaskQuota | None = None, *, sep3304: bool = False
) -> MCPError:
    """The ``task_quota`` error (-32029, HTTP 429 with ``Retry-After``) for a refused task;
    with ``sep3304``, SEP-3304's ``-32023`` whose ``limit`` is the count of ``quota`` that
    was reached (none for the store's own room) and ``remaining`` 0."""
    why = _QUOTA_FIX.get(exc.limit, exc.limit)
    if sep3304:
        count = None if quota is None else _count(quota, exc.limit)
        what = f"Too many tasks ({exc.limit}): {why}"
        return sep3304_refusal(what, exc.retry_after_s, count, None if count is None else 0)
    wait = round(max(exc.retry_after_s, 0.001), 3)
    return MCPError(
        "task_quota",
        f"Too many tasks ({exc.limit}): {why}; retry in {wait:g}s",
        {"retryAfter": wait, "limit": exc.limit},
    )


def _count(quota: TaskQuota, limit: str) -> int | None:
    """The number the limit named ``limit`` allows (None: not a count of the quota)."""
    field = "crowded_per_owner" if limit == "fair_share" else limit
    value = getattr(quota, field, None) if field in _COUNTS else None
    return value if isinstance(value, int) else None


_COUNTS: Final = frozenset({"live_per_owner", "created_per_window", "max_live",
                            "crowded_per_owner"})  # fmt: skip


def quota_of(quota: TaskQuota, principal: str | None) -> TaskQuota:
    """The quota a creation by ``principal`` counts against. Anonymous callers (no
    principal: a server without auth) are not one owner: distinct clients cannot be told
    apart (one address behind a proxy), so the per-owner limits (the fair share too) are
    off for them and only ``max_live`` holds (``TaskQuota``)."""
    if principal is not None:
        return quota
    return dataclasses.replace(quota, live_per_owner=0, created_per_window=0, crowded_per_owner=0)

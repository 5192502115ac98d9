"""When a Suite may answer: its shared catalog replayed and its mounts started, once.

The lifespan (``Suite.start``) or else the first request waits for it; requests that arrive
together wait for the same start, and a slow mount (a stdio process starting, a connect
timing out) delays none of the others, which start side by side. A mount's failed start is
the answer of every request that waited on it. After a shutdown, a Suite with mounts starts
them again in its next lifespan (:meth:`Readiness.reset`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from genmcp.sync.catalog import SharedCatalog

__all__ = ["Readiness"]


class Readiness:
    """Whether a Suite is ready (:attr:`ready`, read on every request) and the way there.

    ``catalog`` is the Suite's shared catalog (replayed first, unless it was); ``starts`` are
    its mounts' starts, run once together.
    """

    def __init__(
        self, catalog: SharedCatalog, starts: Sequence[Callable[[], Awaitable[None]]]
    ) -> None:
        self._catalog = catalog
        self._starts = tuple(starts)
        self._starting: asyncio.Future[None] | None = None
        self.ready = catalog.started and not self._starts
        """True once nothing is left to wait for (else :meth:`wait` first)."""

    async def wait(self) -> None:
        """Replay the shared catalog if not yet, and start the mounts once; concurrent
        callers wait for the same start."""
        if not self._catalog.started:
            await self._catalog.start()
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
        await asyncio.shield(self._starting)
        self.ready = True

    async def _start(self) -> None:
        await asyncio.gather(*(start() for start in self._starts))

    def reset(self) -> None:
        """At shutdown: with mounts, the next :meth:`wait` starts them again."""
        if self._starting is not None and self._starts:
            self._starting, self.ready = None, False

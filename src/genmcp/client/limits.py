"""``ClientLimits``: how much a server may send and how long a call may last, and the deadline.

A client talks to servers it may not trust (a gateway to anyone's). Without bounds a
server could send a 1 GiB answer (held in memory), a listing whose ``nextCursor`` never
ends, or an answer one byte per second (no read timeout fires). ``ClientLimits`` bounds
each, and each bound crossed ends the call with its ``LimitExceeded`` (``errors``):

* ``max_message_bytes``: one response body, one SSE event, one stdio line;
* ``max_pages``, ``max_items``: one listing (``list_tools``...), every page of it;
* ``deadline_s``: one call as a whole, resumptions and every page of a listing included
  (separate from ``timeout``, which bounds each connect and each read). Time spent in the
  client's own callbacks answering a server's request (a person filling in a form) is not
  counted. A listen stream has none: it is meant to last.

:func:`within` runs a block under a deadline and gives its :class:`Clock`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Final

from genmcp.client.errors import DeadlineExceeded

__all__ = ["DEFAULT_LIMITS", "MIB", "ClientLimits", "Clock", "within"]

MIB: Final = 1024 * 1024


@dataclass(frozen=True)
class ClientLimits:
    """The bounds a ``Client`` holds its server to (see the module docstring).

    ``deadline_s=None`` lifts the deadline (a call may then last as long as the server
    keeps its stream going).
    """

    max_message_bytes: int = 32 * MIB
    """The largest response body, SSE event or stdio line; larger ends the call."""
    max_pages: int = 1000
    """The most pages one listing follows."""
    max_items: int = 100_000
    """The most items one listing collects."""
    deadline_s: float | None = 300.0
    """Seconds one call may take in all."""

    def __post_init__(self) -> None:
        for name in ("max_message_bytes", "max_pages", "max_items"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"ClientLimits({name}={value!r}): a positive whole number")
        if self.deadline_s is not None and not self.deadline_s > 0:
            raise ValueError(f"ClientLimits(deadline_s={self.deadline_s!r}): seconds > 0, or None")


DEFAULT_LIMITS: Final = ClientLimits()


class Clock:
    """One call's deadline; :meth:`paused` stops it while the client's own callbacks run."""

    def __init__(self, timeout: asyncio.Timeout | None = None) -> None:
        self._timeout = timeout
        self._pauses = 0
        self._left = 0.0

    @contextlib.asynccontextmanager
    async def paused(self) -> AsyncIterator[None]:
        """Not counted: the time the block takes (nested and concurrent pauses count once)."""
        timeout = self._timeout
        if timeout is None or timeout.expired():
            yield
            return
        loop = asyncio.get_running_loop()
        if self._pauses == 0:
            when = timeout.when()
            self._left = 0.0 if when is None else max(0.0, when - loop.time())
            timeout.reschedule(None)
        self._pauses += 1
        try:
            yield
        finally:
            self._pauses -= 1
            if self._pauses == 0 and not timeout.expired():
                timeout.reschedule(loop.time() + self._left)


UNBOUNDED: Final = Clock()


@contextlib.asynccontextmanager
async def within(seconds: float | None, url: str, what: str) -> AsyncIterator[Clock]:
    """Run the block under a deadline of ``seconds`` (None: none); ``DeadlineExceeded``
    naming ``url`` and ``what`` (the method) when it passes."""
    if seconds is None:
        yield UNBOUNDED
        return
    try:
        async with asyncio.timeout(seconds) as timeout:
            yield Clock(timeout)
    except TimeoutError:
        if not timeout.expired():
            raise
        raise DeadlineExceeded(
            f"{url} did not finish {what} within the client's deadline of {seconds:g} s "
            "(ClientLimits(deadline_s=...) changes it)",
            "deadline_s",
            seconds,
        ) from None

"""``Interest``: which resource URIs this process's subscribers hold, for whoever must act on it.

A subscriber is a ``subscriptions/listen`` stream naming ``resourceSubscriptions`` (held
while its Call runs) or a 2025 session that sent ``resources/subscribe`` (held until its
``unsubscribe``, its ``DELETE``, or its lifetime's end). Each holds URIs under a key of its
own; a watcher (``watch``) hears a URI's first holder arrive (``True``) and its last one
leave (``False``), so that a remote mount subscribes upstream exactly while someone here
listens, and ends that subscription after (``genmcp.compose.subscriptions``).

It counts this process's subscribers only: a 2025 session whose ``resources/subscribe`` and
``unsubscribe`` reach two processes is held by the first until the session ends there. Only
while someone watches (a remote mount starts watching before the first request): a server
without such a mount keeps no count, and so no memory per subscription.

Imports asyncio and the standard library only; runs on the server's event loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable, Iterable

__all__ = ["Interest", "Watcher"]

log = logging.getLogger("genmcp")

Watcher = Callable[[str, bool], None]
"""``watcher(uri, held)``: ``uri`` gained its first holder (True) or lost its last (False)."""


class Interest:
    """The URIs held by this process's subscribers, by holder (see the module docstring)."""

    __slots__ = ("_holders", "_timers", "_watchers")

    def __init__(self) -> None:
        self._holders: dict[str, set[Hashable]] = {}
        self._timers: dict[tuple[Hashable, str], asyncio.TimerHandle] = {}
        self._watchers: list[Watcher] = []

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        """Tell ``watcher`` of every URI held from now on, and of those held now; returns
        the function that stops it (it then hears nothing more)."""
        self._watchers.append(watcher)
        for uri in list(self._holders):
            self._tell(watcher, uri, True)
        return lambda: self._watchers.remove(watcher) if watcher in self._watchers else None

    def uris(self) -> list[str]:
        """The URIs held now."""
        return list(self._holders)

    def held(self, uri: str) -> int:
        """How many holders ``uri`` has."""
        return len(self._holders.get(uri, ()))

    def hold(self, holder: Hashable, uris: Iterable[str], ttl_s: float | None = None) -> None:
        """``holder`` holds ``uris`` (again: no change); with ``ttl_s``, only that long.
        Nothing is counted while nobody watches."""
        if not self._watchers:
            return
        for uri in uris:
            holders = self._holders.setdefault(uri, set())
            first = not holders
            holders.add(holder)
            if ttl_s is not None:
                self._expire(holder, uri, ttl_s)
            if first:
                for watcher in list(self._watchers):
                    self._tell(watcher, uri, True)

    def release(self, holder: Hashable, uris: Iterable[str] | None = None) -> None:
        """``holder`` lets go of ``uris`` (None: of every URI it holds)."""
        chosen = [u for u, h in self._holders.items() if holder in h] if uris is None else uris
        for uri in list(chosen):
            timer = self._timers.pop((holder, uri), None)
            if timer is not None:
                timer.cancel()
            holders = self._holders.get(uri)
            if holders is None or holder not in holders:
                continue
            holders.discard(holder)
            if not holders:
                del self._holders[uri]
                for watcher in list(self._watchers):
                    self._tell(watcher, uri, False)

    def _expire(self, holder: Hashable, uri: str, ttl_s: float) -> None:
        old = self._timers.pop((holder, uri), None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self._timers[holder, uri] = loop.call_later(ttl_s, self.release, holder, (uri,))

    @staticmethod
    def _tell(watcher: Watcher, uri: str, held: bool) -> None:
        try:
            watcher(uri, held)
        except Exception:  # one watcher's bug does not stop the subscriber or the others
            log.exception("a resource interest watcher failed for %r", uri)

"""Resource subscriptions through a remote mount: held upstream while someone here listens.

A remote mount that serves the upstream's resources (``resources=True``, proxy mode) follows
the outer Suite's ``Interest``: when a URI its repository serves gets its first subscriber
(a ``subscriptions/listen`` stream naming it, or a 2025 session's ``resources/subscribe``),
:class:`UpstreamSubscriptions` subscribes to it upstream, one subscription per URI
(``Client.listen(uris=[uri])``: a listen stream of a 2026-07-28 upstream, a
``resources/subscribe`` of a 2025 session one). Each ``notifications/resources/updated`` the
upstream sends for it becomes the outer Suite's ``resource_updated(uri)`` (the same URI:
URIs are not namespaced), which reaches the outer subscribers in their era. When the last
subscriber leaves, the upstream subscription ends (the stream closed, or
``resources/unsubscribe``); closing the mount ends them all.

An upstream subscription that fails (the upstream restarted, or is down) is opened again
after the mount's ``cooldown_s``; an update sent meanwhile is not seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from genmcp.protocol.methods import RESOURCES_UPDATED

if TYPE_CHECKING:
    from genmcp.suite import Suite

__all__ = ["UpstreamSubscriptions"]

log = logging.getLogger("genmcp")


class UpstreamSubscriptions:
    """The upstream subscriptions of one remote mount, one task per URI (see the module
    docstring); ``upstream`` is the mount's ``remote.Upstream`` (its client, url and
    breaker), ``owns(uri)`` says which URIs are the mount's."""

    def __init__(self, upstream: Any, owns: Callable[[str], bool]) -> None:
        self.upstream, self.owns = upstream, owns
        self.following: dict[str, asyncio.Task[None]] = {}
        """The URIs subscribed upstream now, each with the task that relays its updates."""
        self._ending: set[asyncio.Task[None]] = set()  # unsubscribing upstream
        self._suite: Suite | None = None
        self._unwatch: Callable[[], None] | None = None

    def start(self, suite: Suite) -> None:
        """Follow ``suite``'s subscribers from now on (and those it has)."""
        if self._unwatch is None:
            self._suite = suite
            self._unwatch = suite.interest.watch(self._changed)

    def resync(self) -> None:
        """Subscribe upstream to what is held here and the mount serves now (its repository
        was just added: the URIs held before were not its yet)."""
        if self._suite is not None and self._unwatch is not None:
            for uri in self._suite.interest.uris():
                self._changed(uri, True)

    def _changed(self, uri: str, held: bool) -> None:
        if held and uri not in self.following and self.owns(uri):
            task = asyncio.get_running_loop().create_task(
                self._follow(uri), name=f"mount {self.upstream.url}: subscribed {uri[:64]}"
            )
            self.following[uri] = task
        elif not held:
            ending = self.following.pop(uri, None)
            if ending is not None:
                ending.cancel()  # leaving the subscription ends it upstream
                self._ending.add(ending)
                ending.add_done_callback(self._ending.discard)

    async def _follow(self, uri: str) -> None:
        """Subscribe to ``uri`` upstream and relay its updates, again after a failure."""
        client, suite = self.upstream.client, self._suite
        assert suite is not None
        while True:
            try:
                listening = client.listen(tools=False, prompts=False, resources=False, uris=[uri])
                async with listening as notes:
                    async for note in notes:
                        params = note.get("params") or {}
                        if note.get("method") == RESOURCES_UPDATED and params.get("uri") == uri:
                            suite.resource_updated(uri)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # down, restarted, or it refused the subscription
                log.info("mount %s: subscription to %s ended (%s)", self.upstream.url, uri, exc)
            await asyncio.sleep(self.upstream.breaker.cooldown_s)

    async def aclose(self) -> None:
        """End every upstream subscription and stop following the outer Suite."""
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        tasks = [*self.following.values(), *self._ending]
        self.following = {}
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

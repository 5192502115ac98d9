"""Resource subscriptions through a remote mount: held upstream while someone here listens.

A remote mount that serves the upstream's resources (``resources=True``, proxy mode) follows
the outer Suite's ``Interest``: the URIs its repository serves that some outer subscriber
holds (a ``subscriptions/listen`` stream naming them, or a 2025 session's
``resources/subscribe``) are what :class:`UpstreamSubscriptions` subscribes to upstream:

* a 2026-07-28 upstream: **one** listen stream naming them all (``Client.listen(uris=...)``);
  when the set changes, a stream for the new set is opened, and once the upstream
  acknowledged it the old one is closed (no gap; an update in that instant may come twice);
* a 2025 session upstream: one ``resources/subscribe`` per URI in the mount's session (its
  updates come on the session's one GET stream), ``resources/unsubscribe`` when it is left.

Each ``notifications/resources/updated`` the upstream sends for such a URI becomes the outer
Suite's ``resource_updated(uri)`` (the same URI: URIs are not namespaced), which reaches the
outer subscribers in their era. When the last subscriber of a URI leaves, it is left
upstream too; closing the mount ends every upstream subscription.

An upstream subscription that fails (the upstream restarted, or is down) is opened again
after the mount's ``cooldown_s``; an update sent meanwhile is not seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from genmcp.client import ClientError
from genmcp.protocol.methods import RESOURCES_UPDATED

if TYPE_CHECKING:
    from genmcp.suite import Suite

__all__ = ["UpstreamSubscriptions"]

log = logging.getLogger("genmcp")


class UpstreamSubscriptions:
    """The upstream subscriptions of one remote mount (see the module docstring).

    Args:
        upstream: the mount's ``upstream.Upstream`` (its client, url and breaker).
        owns: whether the outer Suite routes a URI to the mount's repository.
    """

    def __init__(self, upstream: Any, owns: Callable[[str], bool]) -> None:
        self.upstream, self.owns = upstream, owns
        self.wanted: set[str] = set()
        """The mount's URIs some outer subscriber holds now."""
        self.subscribed: frozenset[str] = frozenset()
        """What is subscribed upstream now (or being subscribed)."""
        self._moved = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None
        self._stream: asyncio.Task[None] | None = None  # 2026-07-28: the one listen stream
        self._per_uri: dict[str, asyncio.Task[None]] = {}  # 2025: one subscribe per URI
        self._leaving: set[asyncio.Task[None]] = set()  # 2025: unsubscribing
        self._suite: Suite | None = None
        self._unwatch: Callable[[], None] | None = None

    def start(self, suite: Suite) -> None:
        """Follow ``suite``'s subscribers from now on (and those it has)."""
        if self._unwatch is None:
            self._suite = suite
            self._unwatch = suite.interest.watch(self._changed)

    def resync(self) -> None:
        """Take in what is held here and the mount serves now (its repository was just
        added: the URIs held before were not its yet)."""
        if self._suite is not None and self._unwatch is not None:
            for uri in self._suite.interest.uris():
                self._changed(uri, True)

    def _changed(self, uri: str, held: bool) -> None:
        if held and uri not in self.wanted and self.owns(uri):
            self.wanted.add(uri)
        elif not held and uri in self.wanted:
            self.wanted.discard(uri)
        else:
            return
        self._moved.set()
        if self._runner is None:
            self._runner = asyncio.get_running_loop().create_task(
                self._run(), name=f"mount {self.upstream.url}: subscriptions"
            )

    async def _run(self) -> None:
        """Bring what is subscribed upstream in line with ``wanted``, after each change."""
        client = self.upstream.client
        while True:
            await self._moved.wait()
            self._moved.clear()
            try:
                await client.connect()  # the era decides how to subscribe
            except (ClientError, OSError) as exc:
                log.info("mount %s: not subscribed yet (%s)", self.upstream.url, exc)
                await asyncio.sleep(self.upstream.breaker.cooldown_s)
                self._moved.set()
                continue
            uris = frozenset(self.wanted)
            if uris == self.subscribed:
                continue
            if client.session is None:
                await self._one_stream(uris)
            else:
                self._each_uri(uris)
            self.subscribed = uris

    async def _one_stream(self, uris: frozenset[str]) -> None:
        """(2026-07-28) One listen stream for ``uris``: the new one acknowledged, then the
        old one closed."""
        old, self._stream = self._stream, None
        try:
            if uris:
                ready = asyncio.get_running_loop().create_future()
                self._stream = asyncio.create_task(
                    self._follow(uris, ready), name=f"mount {self.upstream.url}: listen"
                )
                await asyncio.wait({ready, self._stream}, return_when=asyncio.FIRST_COMPLETED)
        finally:  # also when the mount closes meanwhile: the old stream never outlives it
            if old is not None:
                await _ended(old)

    def _each_uri(self, uris: frozenset[str]) -> None:
        """(2025) A subscription per URI of ``uris``; the others left."""
        for uri in [uri for uri in self._per_uri if uri not in uris]:
            leaving = self._per_uri.pop(uri)
            leaving.cancel()  # leaving the subscription unsubscribes upstream
            self._leaving.add(leaving)
            leaving.add_done_callback(self._leaving.discard)
        for uri in uris - self._per_uri.keys():
            self._per_uri[uri] = asyncio.create_task(
                self._follow(frozenset((uri,)), None),
                name=f"mount {self.upstream.url}: subscribed {uri[:64]}",
            )

    async def _follow(self, uris: frozenset[str], ready: asyncio.Future[None] | None) -> None:
        """Subscribe to ``uris`` upstream and relay their updates, again after a failure."""
        suite = self._suite
        assert suite is not None
        while True:
            try:
                async with self.upstream.client.listen(
                    tools=False, prompts=False, resources=False, uris=sorted(uris)
                ) as notes:
                    _set(ready)
                    async for note in notes:
                        params = note.get("params") or {}
                        uri = params.get("uri")
                        if note.get("method") == RESOURCES_UPDATED and uri in uris:
                            suite.resource_updated(uri)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # down, restarted, or it refused the subscription
                log.info("mount %s: subscription to %s ended (%s)", self.upstream.url, uris, exc)
            _set(ready)
            await asyncio.sleep(self.upstream.breaker.cooldown_s)

    async def aclose(self) -> None:
        """End every upstream subscription and stop following the outer Suite."""
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        tasks = [self._runner, self._stream, *self._per_uri.values(), *self._leaving]
        self._runner, self._stream, self._per_uri = None, None, {}
        for task in tasks:
            if task is not None:
                await _ended(task)
        self.wanted.clear()
        self.subscribed = frozenset()


def _set(ready: asyncio.Future[None] | None) -> None:
    if ready is not None and not ready.done():
        ready.set_result(None)


async def _ended(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and wait until it is over (leaving a subscription ends it upstream)."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task

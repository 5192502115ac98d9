"""``Interest``: URIs counted by holder; watchers hear the first holder and the last leave."""

from __future__ import annotations

import asyncio

import pytest

from genmcp.sync.interest import Interest


async def test_watchers_hear_a_uris_first_holder_and_its_last_leaving() -> None:
    interest, heard = Interest(), []
    interest.hold("early", ["a://w"])  # nobody watches: not counted
    assert interest.uris() == []
    first = interest.watch(lambda uri, held: None)
    interest.hold("listen-1", ["a://x"])
    stop = interest.watch(lambda uri, held: heard.append((uri, held)))  # told of a://x
    interest.hold("session-1", ["a://x", "a://y"])
    interest.hold("session-1", ["a://y"])  # again: no change
    interest.release("listen-1")
    interest.release("nobody", ["a://x"])
    assert interest.held("a://x") == 1 and interest.uris() == ["a://x", "a://y"]
    interest.release("session-1")
    stop()
    interest.hold("listen-2", ["a://z"])
    first()
    first()  # twice: no error
    assert heard == [("a://x", True), ("a://y", True), ("a://x", False), ("a://y", False)]


async def test_a_hold_with_a_lifetime_ends_by_itself_and_a_failing_watcher_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    interest, heard = Interest(), []

    def broken(uri: str, held: bool) -> None:
        raise RuntimeError("watcher bug")

    interest.watch(broken)
    interest.watch(lambda uri, held: heard.append((uri, held)))
    interest.hold("session-1", ["a://x"], ttl_s=0.05)
    interest.hold("session-1", ["a://x"], ttl_s=60)  # renewed: the first timer is gone
    await asyncio.sleep(0.2)  # well past the first lifetime, far before the second
    assert interest.held("a://x") == 1
    interest.hold("session-1", ["a://x"], ttl_s=0.05)  # renewed once more, short
    for _ in range(200):  # it ends by itself (the loop only bounds a hang)
        if interest.held("a://x") == 0:
            break
        await asyncio.sleep(0.05)
    assert interest.held("a://x") == 0
    assert heard == [("a://x", True), ("a://x", False)]
    assert "watcher failed" in caplog.text

"""``MemoryProofReplays``: a key is new once until it expires; when full of live keys it
refuses (``StorageUnavailable``) rather than forget one, and takes keys again once some
expired.
"""

from __future__ import annotations

import asyncio

import pytest

from genmcp.storage import ProofReplays
from genmcp.storage.guard import StorageUnavailable
from genmcp.storage.memory import MemoryProofReplays, MemoryStores


async def test_a_key_is_first_once_until_it_expires() -> None:
    replays = MemoryProofReplays()
    assert isinstance(replays, ProofReplays) and isinstance(MemoryStores().replays, ProofReplays)
    assert await replays.first("a", 10) is True
    assert await replays.first("a", 10) is False
    assert await replays.first("b", 0.01) is True
    await asyncio.sleep(0.02)
    assert await replays.first("b", 10) is True  # expired: new again
    assert await replays.first("b", 10) is False and await replays.first("a", 10) is False


async def test_full_of_live_keys_it_refuses_rather_than_forget() -> None:
    replays = MemoryProofReplays(max_entries=3)
    for key in "abc":
        assert await replays.first(key, 10) is True
    with pytest.raises(StorageUnavailable):
        await replays.first("d", 10)
    assert [await replays.first(key, 10) for key in "abc"] == [False] * 3  # none forgotten
    short = MemoryProofReplays(max_entries=1)
    assert await short.first("x", 0.01) is True
    await asyncio.sleep(0.02)
    assert await short.first("y", 10) is True  # the expired one made room

"""FrontLimits and the Gate: per-source and per-client token buckets (the flooder is refused
with a wait, others are not), source keys (an IPv6 address's /64), the store-wide room."""

from __future__ import annotations

import pytest

from genmcp.auth.front.limits import FrontLimits, Gate, Throttled, room, source_key
from genmcp.storage.buckets import MemoryBuckets
from genmcp.storage.memory import MemoryRecordStore


@pytest.mark.parametrize(("host", "key"), [
    ("203.0.113.9", "203.0.113.9"), ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
    ("::ffff:203.0.113.9", "203.0.113.9"), (None, "unknown"), ("testclient", "testclient"),
])  # fmt: skip
def test_a_source_is_an_address_or_an_ipv6_64(host: str | None, key: str) -> None:
    assert source_key(host) == key


async def test_the_gate_refuses_the_flooding_source_then_the_flooded_client() -> None:
    gate = Gate(FrontLimits(sign_ins_per_source=3, sign_ins_per_client=5), MemoryBuckets())
    outcomes = []
    for source in ["a"] * 4 + ["b"] * 3:
        try:
            await gate.sign_in(source, "app")
            outcomes.append("ok")
        except Throttled as exc:
            assert exc.status == 429 and exc.retry_after >= 1
            outcomes.append("address" if "address" in exc.description else "application")
    assert outcomes == ["ok"] * 3 + ["address"] + ["ok", "ok", "application"]
    await gate.sign_in("c", "other app")  # another client, another source: its own budget
    for _ in range(2):
        await gate.register("a")
    limited = Gate(FrontLimits(registrations_per_source=2), MemoryBuckets())
    await limited.register("a"), await limited.register("a")
    with pytest.raises(Throttled):
        await limited.register("a")
    await limited.register("b")


def test_bounds_are_checked_and_an_in_memory_store_caps_the_room() -> None:
    with pytest.raises(ValueError):
        FrontLimits(sign_ins_per_source=0)
    assert room(MemoryRecordStore(max_entries=100), 10_000) == 100
    assert room(MemoryRecordStore(max_entries=100), 10) == 10

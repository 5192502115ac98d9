"""The bounded expiring map (``storage.memory.expiring``) the memory stores keep entries in.

Full, it drops its oldest entries (a key put again is new); an entry whose TTL has run out
reads as absent (a TTL of zero or less: at once), and each put prunes the expired entries at
the front, stopping at the first live one.
"""

from __future__ import annotations

import time

from genmcp.storage.memory.expiring import Expiring


def test_a_full_map_drops_its_oldest_entries_and_a_key_put_again_is_new() -> None:
    entries = Expiring(2)
    for key in ("a", "b", "c"):
        entries.put(key, key.upper(), 60)
    assert len(entries) == 2 and entries.get("a") is None
    entries.put("b", "B2", 60)  # now the newest
    entries.put("d", "D", 60)
    assert [entries.get(k) for k in ("b", "c", "d")] == ["B2", None, "D"]


def test_an_expired_entry_reads_as_absent_and_is_forgotten() -> None:
    entries = Expiring(10)
    entries.put("now", 1, 0)
    entries.put("before", 1, -5)  # a negative TTL is zero
    assert entries.get("now") is None and entries.get("before") is None
    assert len(entries) == 0
    entries.delete("never")  # deleting what is not there is harmless
    entries.put("live", 1, 60)
    entries.delete("live")
    assert entries.get("live") is None


def test_pruning_drops_the_expired_front_and_stops_at_the_first_live_entry() -> None:
    entries = Expiring(10)
    entries.put("old", 1, 0)
    entries.put("new", 2, 60)  # the put pruned "old"
    assert len(entries) == 1
    entries.put("late", 3, 0)  # behind a live entry: left for get or a later prune
    entries.prune(time.monotonic())
    assert len(entries) == 2 and entries.get("late") is None and len(entries) == 1

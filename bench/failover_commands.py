"""Redis commands per operation with and without the replica acknowledgement (issue 47).

Starts a master, a replica and 3 Sentinels (tests/support/redis_topology.OwnSentinel), runs
N task creations, N task finishes and N legacy session lookups through genmcp's Redis stores
on the ``redis+sentinel://`` URL, once with ``RedisOptions(replicas=0)`` (no WAIT: main's
behaviour) and once with the default (WAIT for 1 replica), and prints the master's
``INFO commandstats`` difference per operation. Counts, not time.

    PYTHONPATH=src:tests python bench/failover_commands.py
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from genmcp.storage import TaskEnd
from genmcp.storage.redis import RedisOptions, RedisSessionRegistry, RedisTaskStore
from support.redis_topology import OwnSentinel, admins

N = 200
IGNORED = ("info", "ping", "hello", "client|setinfo", "subscribe", "psync", "replconf")


def counts(url: str) -> dict[str, int]:
    (master,) = admins(url)
    try:
        stats = master.info("commandstats")
    finally:
        master.close()
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


def spent(before: dict[str, int], after: dict[str, int]) -> dict[str, float]:
    return {
        name: (after[name] - before.get(name, 0)) / N
        for name in sorted(after)
        if after[name] != before.get(name, 0) and name not in IGNORED
    }


async def measure(url: str, options: RedisOptions, label: str) -> None:
    tasks = RedisTaskStore.from_url(url, prefix=f"bench-{label}:", options=options)
    registry = RedisSessionRegistry.from_url(url, prefix=f"bench-{label}:", options=options)
    try:
        epoch = await registry.epoch(3600)
        await tasks.renew("warm", 1000)  # connections and scripts loaded
        results: dict[str, dict[str, float]] = {}
        record: dict[str, Any] = {"lastUpdatedAt": "2026-12-07T00:00:00Z", "ttlMs": 60_000}
        before = counts(url)
        for n in range(N):
            await tasks.create({**record, "taskId": f"t{n}"}, lease_ms=5000, owner="me")
        results["task create"] = spent(before, before := counts(url))
        for n in range(N):
            await tasks.finish(f"t{n}", TaskEnd("completed", result={}), "2026-12-07T00:00:01Z")
        results["task finish"] = spent(before, before := counts(url))
        for n in range(N):
            await registry.lookup(f"session-{n}", epoch, ("protocol",))
        results["legacy call (session lookup)"] = spent(before, counts(url))
        for name, figures in results.items():
            total = sum(figures.values())
            print(f"{label:>10} {name:<30} {total:.2f} commands: {figures}")
    finally:
        await tasks.aclose()
        await registry.aclose()


async def main() -> None:
    topology = OwnSentinel(sentinels=3).start()
    try:
        await measure(topology.url, RedisOptions(replicas=0), "no-wait")
        await measure(topology.url, RedisOptions(), "wait")
    finally:
        topology.close()


if __name__ == "__main__":
    asyncio.run(main())

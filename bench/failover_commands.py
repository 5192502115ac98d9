"""Redis commands per operation with and without the replica acknowledgement (issue 47).

Starts a master, a replica and 3 Sentinels (tests/support/redis_topology.OwnSentinel), runs
N task creations, N task finishes, N legacy session lookups, N session writes and N
notification publishes through genmcp's Redis stores on the ``redis+sentinel://`` URL, once
with ``RedisOptions(replicas=0)`` (no WAIT: main's behaviour) and once with the default (WAIT
for 1 replica), and prints the master's ``INFO commandstats`` difference per operation.
A publish is measured twice: on a plain topic (pub/sub, what main did for every
notification) and on a durable one (the notice stream, issue 47), each with a second broker
subscribed and the message received; with the process's CPU time per publish and delivery
(``time.process_time``, both brokers in this process).

    PYTHONPATH=src:tests python bench/failover_commands.py
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from genmcp.storage import Lease, TaskEnd
from genmcp.storage.redis import RedisBroker, RedisOptions, RedisSessionRegistry, RedisTaskStore
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
            await tasks.create({**record, "taskId": f"t{n}"}, Lease("me", 5000))
        results["task create"] = spent(before, before := counts(url))
        for n in range(N):
            await tasks.finish(f"t{n}", TaskEnd("completed", result={}), "2026-12-07T00:00:01Z")
        results["task finish"] = spent(before, before := counts(url))
        for n in range(N):
            await registry.lookup(f"session-{n}", epoch, ("protocol",))
        results["legacy call (session lookup)"] = spent(before, before := counts(url))
        for n in range(N):
            await registry.add(f"session-{n}", "resources", "note://1", 60)
        results["session write (resources/subscribe)"] = spent(before, counts(url))
        await publishes(url, options, label, results)
        for name, figures in results.items():
            total = sum(figures.values())
            print(f"{label:>10} {name:<30} {total:.2f} commands: {figures}")
    finally:
        await tasks.aclose()
        await registry.aclose()


async def publishes(
    url: str, options: RedisOptions, label: str, results: dict[str, dict[str, float]]
) -> None:
    """N publishes on a plain topic, then on a durable one, each received by a second broker."""
    one, two = (RedisBroker.from_url(url, prefix=f"bench-{label}:", options=options) for _ in "12")
    try:
        for topic, name in (("plain", "pub/sub"), ("genmcp.changes", "durable")):
            subscription = two.subscribe(topic)
            await subscription.ready()
            await one.publish(topic, {"warm": True})
            await subscription.receive()
            before, cpu = counts(url), time.process_time()
            for n in range(N):
                await one.publish(topic, {"method": "notifications/resources/updated", "n": n})
                await subscription.receive()
            cpu = (time.process_time() - cpu) / N * 1e6
            results[f"notification {name} (publish + read)"] = spent(before, counts(url))
            print(f"{label:>10} notification {name}: {cpu:.0f} µs CPU per publish and delivery")
            subscription.close()
    finally:
        await one.aclose()
        await two.aclose()


async def main() -> None:
    topology = OwnSentinel(sentinels=3).start()
    try:
        await measure(topology.url, RedisOptions(replicas=0), "no-wait")
        await measure(topology.url, RedisOptions(), "wait")
    finally:
        topology.close()


if __name__ == "__main__":
    asyncio.run(main())
